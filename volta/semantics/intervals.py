"""Interval bounds of the real operators beyond + and ×'s bounded case, for `realops.bounds`.

A bound is a pair (lo, hi) of Fractions, None for an unbounded side; every rule is sound (the value lies in the
interval), not tight. `realops.bounds` walks an expression children first and asks these for |a|, a·b with
unbounded factors, rint (any rounding to an integer) and select(c, a, b). The select rule reads its condition:
a condition the bounds decide picks one side, and a side that is the compared value (or its absolute value,
against a constant) is bounded by the condition under which it is chosen — the clamp `|j| > 126 ? copysign(126,
j) : j` of libdevice's and fast-math's exp range reduction (coshf, erfcf) is then within [-126, 126], and
within [0, 126] where j is a truncation of a non-negative value.
"""
from __future__ import annotations

import math
from fractions import Fraction

from volta.symbolic import expr as E

INF = float("inf")


def _ext(lo, hi):
    """None sides as -inf/+inf."""
    return (-INF if lo is None else lo, INF if hi is None else hi)


def _back(lo, hi):
    return (None if lo == -INF else lo, None if hi == INF else hi)


def _times(x, y):
    """A product of interval ends, 0·∞ = 0 (an end at 0 bounds the product at 0 whatever the other factor)."""
    if x == 0 or y == 0:
        return 0
    if x in (INF, -INF) or y in (INF, -INF):
        return INF if (x > 0) == (y > 0) else -INF
    return x * y


def mul(a, b):
    (a0, a1), (b0, b1) = _ext(*a), _ext(*b)
    ps = [_times(x, y) for x in (a0, a1) for y in (b0, b1)]
    return _back(min(ps), max(ps))


def absolute(a):
    lo, hi = a
    if lo is not None and lo >= 0:
        return (lo, hi)
    if hi is not None and hi <= 0:
        return (-hi, None if lo is None else -lo)
    return (Fraction(0), None if lo is None or hi is None else max(-lo, hi))


def divide(a, b):
    """a / b for a bounded divisor away from 0 (ln 2 = 1/log2 e, 1/π in named constants); else unbounded."""
    (a0, a1), (b0, b1) = a, b
    if None in (a0, a1, b0, b1) or b0 <= 0 <= b1:
        return (None, None)
    ps = [a0 / b0, a0 / b1, a1 / b0, a1 / b1]
    return (min(ps), max(ps))


SQRT_STEP = Fraction(1, 1 << 32)


def sqrt(a):
    """sqrt of a non-negative interval (√2, √π in named constants): ends within 2^-32, outward."""
    lo, hi = a
    if lo is None or lo < 0:
        return (None, None)
    return (_sqrt_below(lo), None if hi is None else _sqrt_below(hi) + SQRT_STEP)


def _sqrt_below(q: Fraction) -> Fraction:
    """A rational at most sqrt(q) and within 2^-32 of it (q >= 0)."""
    return Fraction(math.isqrt(math.floor(q * (1 << 64))), 1 << 32)


def rint(a):
    """Rounded to an integer by any PTX mode (nearest, toward zero, down, up): within [floor(lo), ceil(hi)]."""
    lo, hi = a
    return (None if lo is None else Fraction(math.floor(lo)), None if hi is None else Fraction(math.ceil(hi)))


def union(a, b):
    (a0, a1), (b0, b1) = a, b
    return (None if a0 is None or b0 is None else min(a0, b0), None if a1 is None or b1 is None else max(a1, b1))


def select(node, memo):
    """select(c, a, b): the side the bounds decide c for, else both, each refined by the condition it is
    chosen under."""
    cond, a, b = node.args
    taken = decided(cond, memo)
    sides = [(a, True), (b, False)] if taken is None else [(a, True)] if taken else [(b, False)]
    out = None
    for side, truth in sides:
        r = refine(side, cond, truth, memo)
        if r is None:   # never chosen: the condition and the side's bounds contradict
            continue
        out = r if out is None else union(out, r)
    return out if out is not None else (None, None)


def decided(cond, memo):
    """True/False when the bounds of a comparison's operands decide it, else None."""
    if cond.op is E.NOT:
        d = decided(cond.args[0], memo)
        return None if d is None else not d
    if cond.op not in (E.LT, E.LE):
        return None
    (p0, p1), (q0, q1) = memo[cond.args[0]], memo[cond.args[1]]
    strict = cond.op is E.LT
    if p1 is not None and q0 is not None and (p1 < q0 if strict else p1 <= q0):
        return True
    if p0 is not None and q1 is not None and (p0 >= q1 if strict else p0 > q1):
        return False
    return None


def refine(e, cond, truth: bool, memo):
    """Bounds of e where cond has the value `truth`, or None where that cannot happen. Reads `s < k`, `k < s`
    (and <=) with k a constant and s either e or |e|; anything else leaves e's own bounds."""
    lo, hi = memo[e]
    while cond.op is E.NOT:
        cond, truth = cond.args[0], not truth
    if cond.op not in (E.LT, E.LE):
        return (lo, hi)
    p, q = cond.args
    if q.op is E.CONST:      # p < k (true) / p >= k (false): s = p bounded above / below by k
        s, k, upper = p, q.data, truth
    elif p.op is E.CONST:    # k < q (true) / q <= k (false)
        s, k, upper = q, p.data, not truth
    else:
        return (lo, hi)
    if s is e:   # (a strict comparison bounds e by k itself: closed intervals are a superset)
        lo, hi = (lo, k if hi is None else min(hi, k)) if upper else (k if lo is None else max(lo, k), hi)
    elif s.op is E.ABS and s.args[0] is e and upper:   # |e| <= k: e in [-k, k]
        lo, hi = (-k if lo is None else max(lo, -k)), (k if hi is None else min(hi, k))
    if lo is not None and hi is not None and lo > hi:
        return None
    return (lo, hi)
