"""One value stored by several threads: are the stores equal over the reals?

Triton gives several warps the same elements when a tensor has fewer elements than 32 x num_warps (a
replicated layout: `tl.sum` over 64 columns with 4 warps), and every replica stores the same slots; CUDA
kernels store a block's result from every thread (`out[blockIdx.x] = total;` with no `if (threadIdx.x == 0)`).
Between threads of different warps those stores are a data race in the PTX memory model, and one of the
writes is the value that remains (aligned stores do not tear). In a symbolic run (`volta check`, the Triton
launcher, the re-run of `volta races` over the reals) each racing write's value is an expression: identical
expressions or equal normal forms make the race a `benign-race` (`details["reals"]`): whichever write lands,
the slot holds the same real number, so the outputs stay one function of the inputs and the verdict goes on.
A value that can differ (random search finds an input) or an undecided comparison keeps the RACE.

Real-equal values can still differ in bits (an fma-first butterfly computes fma(x_L, x_L, RN(x_M^2)) on
lane L and fma(x_M, x_M, RN(x_L^2)) on lane M). Every instruction pair compared equal here — racing stores of
different warps, and the stores of one warp's lanes to one address in one instruction (CUDA: one write
lands) — is noted on the machine (`Machine.replicas`); `volta/exec/drivers/replica_bits.py` then compares their bits
on concrete inputs.
"""
from __future__ import annotations

from volta.symbolic.normal import Normalizer, equal_exprs

WITNESS_TRIES = 60  # random inputs tried before a comparison is left undecided


def real_equal(m, a, b):
    """True when `a` and `b` are equal over the reals (identical, or equal normal forms), False when an input
    makes them differ, None when undecided (or when either is unknown). Decided pairs are remembered on the
    machine, so a slot stored by many replicas is compared once per distinct pair of values."""
    if a is b:
        return a is not None or None
    if a is None or b is None:
        return None
    memo = m.__dict__.setdefault("real_equal_memo", {})
    key = (id(a), id(b))
    if key not in memo:
        if m.normalizer is None:
            m.normalizer = Normalizer()
        if equal_exprs(a, b, m.normalizer):
            verdict = True
        else:
            from volta.symbolic.search import random_search  # start-up: mpmath loads for a differing replica

            verdict = False if random_search(a, b, tries=WITNESS_TRIES) is not None else None
        memo[key] = (verdict, a, b)   # a and b held, so that their ids stay theirs
    return memo[key][0]


def stored_expr(region, row: int, off: int, size: int):
    """The expression memory holds at (row, off), `size` bytes wide (a stored expression or a lane-structured
    row), or None when it holds concrete bits or a value of another width."""
    if region.symsize is None or region.symsize[row, off] != size:
        return None
    if region.sym is not None and region.sym[row, off] is not None:
        return region.sym[row, off]
    refs = region.lsref
    if refs is not None and int(refs[row, off]) > 0:
        return region.lslist[int(refs[row, off]) - 1].exprs()[int(region.lsrow[row, off])]
    return None


def note(m, *ops) -> None:
    """Record an instruction pair (or one instruction) whose stores to one slot were compared equal, by the
    PTX (line, col) of each, as findings name them."""
    m.replicas.add(frozenset((op.span.line, op.span.col) for op in ops))


def words(image_a, image_b) -> list:
    """Two stored byte strings (little-endian) as hex words, for a finding's details."""
    return ["0x" + bytes(x)[::-1].hex() for x in (image_a, image_b)]
