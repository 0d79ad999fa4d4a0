"""Ordering races: strong accesses (volatile, relaxed, atomic) that nothing orders, reported as their own kind.

Under the PTX memory model two conflicting accesses that are *morally strong* (both strong, each one's scope
including the other's thread) are no data race: the behaviour is defined. It is not determined: a consumer
that sees a volatile flag can still read a stale volatile payload when no release/acquire pattern (a fence
between payload and flag on both sides, or `st.release`/`ld.acquire` at a scope that covers both threads)
orders the payload's write before its read; two blocks' volatile read-modify-write sequences interleave; the
lanes of a warp-synchronous volatile reduction without `__syncwarp()` read what the schedule gives them. The
shadow memory (volta/exec/races/shadow.py) finds such pairs — at least one access not an atomic, causality not
ordering them, the reader not having observed the write before, the read not a polling read a spin loop
repeats — and this module words the finding: which threads, blocks and lines, why nothing orders them, and
what depends on the schedule. Two writes of equal values leave the same value in any order: no finding.
"""
from __future__ import annotations

import os

from volta.exec import findings as F
from volta.exec.races import memmodel
from volta.ir.program import cuda_frames
from volta.launch.spec import DTYPES


def report(m, region, c, op, prior, byte: int, size: int) -> None:
    """Report ordering conflict `c` between `prior` (the earlier access's instruction) and `op`."""
    first, second = int(c.prior_tid), int(c.tid)
    element = f"`{region.name}[{byte // max(1, _itemsize(region, size))}]`"
    who, earlier = _thread(m, second), _thread(m, first)
    if c.prior_write and not c.write:
        what = (f"{who} reads {element} at {_where(op)} concurrently with the write at {_where(prior)} by {earlier}")
        outcome = "the value read depends on the schedule"
    elif c.write and not c.prior_write:
        what = (f"{who} writes {element} at {_where(op)} concurrently with the read at {_where(prior)} by {earlier}")
        outcome = "the value read depends on the schedule"
    else:
        what = (f"{who} writes {element} at {_where(op)} concurrently with the write at {_where(prior)} by "
                f"{earlier}, a different value")
        outcome = "the value that remains depends on the schedule"
    m.report(F.ORDERING_RACE, f"ordering race: {what}; the accesses are {_strength(prior, op)}, so not undefined "
             f"behaviour, but {_why(m, first, second)}: {outcome}", prior, [first, second], second=op,
             buffer=region.name, offset=byte, bounds=region.size)


def _why(m, a: int, b: int) -> str:
    """Why nothing orders two accesses of threads a and b."""
    if m.gwarp[a] == m.gwarp[b]:
        return ("nothing orders them within the warp (no __syncwarp(); under independent thread scheduling a "
                "warp's threads do not run in lock step)")
    clocks = m.clocks
    if m.cta[a] != m.cta[b] and clocks is not None and clocks.vc is not None and \
            0 < int(clocks.fence_scope[a]) < memmodel.GPU:
        return ("the fence between them orders only within a block (`membar.cta`/`fence.cta`, "
                "__threadfence_block(); blocks need __threadfence())")
    return "no fence or barrier orders them"


def _strength(prior, op) -> str:
    kinds = {_kind(prior), _kind(op)}
    return f"{kinds.pop()}" if len(kinds) == 1 else " and ".join(sorted(kinds))


def _kind(op) -> str:
    if op.op in ("atom", "red"):
        return "atomic"
    for name in ("volatile", "relaxed", "acquire", "release"):
        if op.d.has("." + name):
            return name
    return "strong"


def _thread(m, lane: int) -> str:
    t = m.thread_id(lane)
    return f"thread ({', '.join(map(str, t.thread))}) of block ({', '.join(map(str, t.block))})"


def _where(op) -> str:
    """The innermost CUDA line (`k.cu:12`), or the PTX line without `.loc`."""
    frames = cuda_frames(op)
    if frames:
        file, line = frames[0]
        return f"{os.path.basename(str(file))}:{line}"
    return f"{os.path.basename(str(op.span.file))}:{op.span.line}"


def _itemsize(region, size: int) -> int:
    """The element size of a buffer, or the access size for variables (shared arrays have no dtype here)."""
    return DTYPES[region.dtype][1] if region.dtype in DTYPES else size
