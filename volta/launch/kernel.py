"""One kernel launch: which entry of which PTX file, its grid and block, its argument list as written.

The data the launch-spec language (volta/launch/spec.py) and the host steps (volta/launch/hoststeps.py) make and
the machine (volta/exec/machine.py) runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from volta.launch.args import Name, Number, Struct


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
    """One kernel's launch: which entry, grid, block, and its arguments (volta/launch/args.py: `Name`, `Number`,
    `Struct`, one per parameter in order, and `named` ones by parameter name, `--arg PARAM=VALUE`)."""

    ptx: Path
    kernel: str | None
    grid: Dim3
    block: Dim3
    args: tuple
    shared_dynamic: int = 0
    cuda: Path | None = None  # the CUDA source, when known: struct arguments take its field types
    ctas: tuple | None = None  # linear indices of the CTAs to run (--ctas, volta/launch/ctas.py); None: the grid
    host: str | None = None  # a host step of a sequence ("memset out 0", volta/launch/hoststeps.py): its text
    named: tuple = ()  # ((parameter name, Arg), ...): arguments given by name, filling or replacing `args`'s
    globals: tuple = ()  # (name, value text or number) of module .global variables set for it (launch/globalvars.py)

    def __post_init__(self) -> None:
        """Arguments are typed values, read from text once by a front end (volta/launch/args.py), never here."""
        given = list(self.args) + [a for _, a in self.named]
        if not all(isinstance(a, (Name, Number, Struct)) for a in given):
            odd = next(a for a in given if not isinstance(a, (Name, Number, Struct)))
            raise TypeError(f"KernelLaunch argument {odd!r}: expected a Name, Number or Struct (volta.launch.args)")
