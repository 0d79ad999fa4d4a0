"""One kernel launch: which entry of which PTX file, its grid and block, its argument list as written.

The data the launch-spec language (volta/launch/spec.py) and the host steps (volta/launch/hoststeps.py) make and
the machine (volta/exec/machine.py) runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Dim3:
    x: int
    y: int = 1
    z: int = 1

    @property
    def count(self) -> int:
        return self.x * self.y * self.z

    def __str__(self) -> str:
        return f"{self.x}x{self.y}x{self.z}" if self.z > 1 else (f"{self.x}x{self.y}" if self.y > 1 else str(self.x))


@dataclass(frozen=True)
class KernelLaunch:
    """One kernel's launch: which entry, grid, block, and its argument list (raw strings)."""

    ptx: Path
    kernel: str | None
    grid: Dim3
    block: Dim3
    args: tuple
    shared_dynamic: int = 0
    cuda: Path | None = None  # the CUDA source, when known: struct arguments take its field types
    ctas: tuple | None = None  # linear indices of the CTAs to run (--ctas, volta/launch/ctas.py); None: the grid
    host: str | None = None  # a host step of a sequence ("memset out 0", volta/launch/hoststeps.py): its text
    globals: tuple = ()  # (name, value text or number) of module .global variables set for it (launch/globalvars.py)
