"""Findings the executor reports: values, not exceptions, so one run can report several.

`Finding.key` is what de-duplicates: the first finding of each kind per instruction pair.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

RACE = "race"
DEADLOCK = "deadlock"
OUT_OF_BOUNDS = "out-of-bounds"
MISALIGNED = "misaligned"
UNINITIALIZED = "uninitialized-read"
DIV_BY_ZERO = "division-by-zero"
NONDETERMINISTIC = "nondeterministic-write"  # threads of one warp store different values to one address at once
BENIGN_RACE = "benign-race"  # a write-write race where every write stores the same value (still a PTX data race)
BENIGN_READ = "benign-read-race"  # a read racing only with writes that store the value already there
ORDERING_RACE = "ordering-race"  # morally strong (volatile/relaxed/atomic) accesses no fence orders: not UB
NONDET_BITS = "nondeterministic-bits"  # stores of one slot equal over the reals whose bits differ on an input

KINDS = (RACE, ORDERING_RACE, DEADLOCK, OUT_OF_BOUNDS, MISALIGNED, UNINITIALIZED, DIV_BY_ZERO, NONDETERMINISTIC,
         NONDET_BITS, BENIGN_RACE, BENIGN_READ)
# listed apart: the value (over the reals) cannot depend on the order; they never block a verdict over the
# reals (`volta check`), and --allow-benign-races keeps them out of `volta races`' exit code
BENIGN = frozenset({BENIGN_RACE, BENIGN_READ, NONDET_BITS})


@dataclass(frozen=True)
class ThreadId:
    block: tuple
    thread: tuple

    def __str__(self) -> str:
        return f"block ({', '.join(map(str, self.block))}) thread ({', '.join(map(str, self.thread))})"


@dataclass(frozen=True)
class Site:
    """An instruction: PTX file:line:col, its text, and the CUDA line when `.loc` gave one."""

    ptx: str
    line: int
    col: int
    text: str
    cuda: str | None = None  # `kernel.cu:18`, or `kernel.cu:18 (inlined at kernel.cu:28, kernel.cu:51)`
    cuda_lines: tuple = ()  # every CUDA line of that chain, innermost first

    def __str__(self) -> str:
        where = f"{self.ptx}:{self.line}:{self.col}"
        return f"{where} `{self.text}`" + (f" ({self.cuda})" if self.cuda else "")


@dataclass(frozen=True)
class Finding:
    kind: str
    message: str
    threads: tuple = ()  # ThreadId, one or two
    sites: tuple = ()  # Site per thread (same order)
    buffer: str | None = None
    offset: int | None = None  # byte offset into the buffer
    address: int | None = None
    bounds: int | None = None  # buffer size in bytes
    details: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> tuple:
        return (self.kind, tuple((s.ptx, s.line, s.col) for s in self.sites))

    def to_json(self) -> dict:
        data = asdict(self)
        data["threads"] = [{"block": list(t.block), "thread": list(t.thread)} for t in self.threads]
        return data


def benign_only_where_always(findings: list) -> list:
    """A benign race is one where every racing write stores the same value (or the value already there): on
    every input tried and at every address. Where the same pair of instructions also races with values that
    matter, only the RACE stays."""
    racing = {f.key[1] for f in findings if f.kind == RACE}
    return [f for f in findings if not (f.kind in BENIGN and f.key[1] in racing)]


def is_data_dependence(err) -> bool:
    """The structured run stopped (an `Unsupported`) because control flow, an address or a count depends on
    tensor data: `volta races` then runs concrete trials, `volta check` checks per assignment."""
    return "depends on tensor data" in err.message
