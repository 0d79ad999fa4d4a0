"""Modes as values, and the numbers of the hardware named once.

A mode that changes what a command decides is a frozen value handed down to whoever reads it, never a module
global set for the duration of a command: two checks in one process (the batch runner, the Python API, a test)
cannot see each other's modes, and a reader says in its signature which modes it depends on.

`FastPaths`: which of the machine's fast paths a run may take. Each computes what the general path computes, only
faster; tests and benchmarks turn one off to compare the two (results, registers and counters must agree).

`IntegerInputs`: which input buffers of the launch in hand hold integers and the range of their elements. Over
the reals their elements are still reals (what holds for every real holds for every integer), but a
counterexample must give them integer values inside those ranges, the solver is told so, and the executor's
exact integer arithmetic (volta/exec/handlers/integer_real.py) bounds them by those ranges. `volta check` and the
feasibility re-run of `volta races` make one from the launch's buffers (volta/launch/spec.py: `integer_inputs`);
every other run has none (`NO_INTEGERS`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

WARP_SIZE = 32   # threads of a warp (PTX ISA 5.2.2 `WARP_SZ`): lane ids, warp collectives, tensor-core fragments
FULL_WARP_MASK = (1 << WARP_SIZE) - 1   # a membermask naming every lane of a warp (shfl/vote without one, mma)
WARPGROUP_SIZE = 4 * WARP_SIZE   # threads of a warpgroup, 4 consecutive warps of a CTA (PTX ISA §9.7.15): wgmma

# Defaults a command's --help shows, named here so that the help loads neither the machine nor the reports
SCHEDULE_BUDGET = 8  # schedules per kernel over all its concrete input sets (`volta races --schedules`)
MAX_FINDINGS_SHOWN = 20  # findings per kernel in text output (`volta races --max-findings`)
FP_MODES = ("ieee", "volta", "ampere", "ada", "hopper", "blackwell")  # the bit-exact float models (`--fp`)


@dataclass(frozen=True)
class FastPaths:
    """The machine's fast paths a run may take: all, unless a test or a benchmark compares one with the general
    path."""
    one_thread: bool = True        # a lone lane as decoded steps over a register cache (volta/exec/fast/onethread.py)
    blocks: bool = True            # straight-line runs of those steps compiled into one function (fast/oneblock.py)
    lane_structured: bool = True   # `volta check`: polynomial data as lane-structured values (exec/state/lanesym.py)


ALL_FAST = FastPaths()


@dataclass(frozen=True)
class IntegerInputs:
    """Names of the integer input buffers and symbols, and (lo, hi) of their elements' values."""
    ranges: tuple = ()   # ((name, (lo, hi) or None), ...) sorted by name
    _by_name: dict = field(init=False, compare=False, repr=False, hash=False)
    _memo: dict = field(init=False, compare=False, repr=False, hash=False)   # node -> reads such a leaf

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", dict(self.ranges))
        object.__setattr__(self, "_memo", {})

    @staticmethod
    def of(ranges: dict) -> IntegerInputs:
        return IntegerInputs(tuple(sorted(ranges.items())))

    @property
    def names(self):
        return self._by_name.keys()

    def __bool__(self) -> bool:
        return bool(self._by_name)

    def __contains__(self, name) -> bool:
        return name in self._by_name

    def range_of(self, name) -> tuple[int, int] | None:
        return self._by_name.get(name)

    @property
    def memo(self) -> dict:
        """expression node -> whether it reads an integer leaf (volta/symbolic/expr.py: has_integer_leaf)."""
        return self._memo


NO_INTEGERS = IntegerInputs()
