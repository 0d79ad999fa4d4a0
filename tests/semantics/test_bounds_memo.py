"""realops.bounds is memoized process-wide by interned node: results must equal a fresh walk's, whatever
was asked before (shared sub-DAGs, the same node under different parents, a cleared or overflowing memo)."""
from fractions import Fraction as F

import pytest

from volta.semantics import realops
from volta.symbolic import expr as E


def fresh(e):
    """bounds of e with an empty memo (what the unmemoized walk computed)."""
    return realops._bounds_walk(e, {})


def reference(e):
    """An independent recursive definition of the same interval rules (small expressions only)."""
    op = e.op
    if op is E.CONST:
        return e.data, e.data
    if op in (E.ADD, E.MUL, E.MAX, E.MIN) and len(e.args) == 2:
        (a0, a1), (b0, b1) = reference(e.args[0]), reference(e.args[1])
        if op is E.ADD:
            return (None if None in (a0, b0) else a0 + b0, None if None in (a1, b1) else a1 + b1)
        if op is E.MUL:   # unbounded ends as ±inf, with 0·inf = 0 (an end at 0 bounds the product at 0)
            inf = float("inf")
            ends_a = (-inf if a0 is None else a0, inf if a1 is None else a1)
            ends_b = (-inf if b0 is None else b0, inf if b1 is None else b1)
            ps = [0 if x == 0 or y == 0 else x * y for x in ends_a for y in ends_b]
            lo, hi = min(ps), max(ps)
            return (None if lo == -inf else lo, None if hi == inf else hi)
        if op is E.MAX:
            lo = a0 if b0 is None else b0 if a0 is None else max(a0, b0)
            return lo, None if None in (a1, b1) else max(a1, b1)
        hi = a1 if b1 is None else b1 if a1 is None else min(a1, b1)
        return None if None in (a0, b0) else min(a0, b0), hi
    if op is E.EXP2:
        return F(0), None
    return None, None


def clamp(x):
    return E.minimum(E.maximum(x, E.ZERO), E.ONE)


def _attention_like(n=24):
    """Row-shaped DAG: one dot product shared under many expf-style roots, as attention outputs are."""
    q = [E.var("Q", i) for i in range(n)]
    k = [E.var("K", i) for i in range(n)]
    dot = E.add_all(E.mul(x, y) for x, y in zip(q, k))
    t = clamp(E.fma(dot, E.const(F(3, 512)), E.const(F(1, 2))))
    roots = [E.fma(t, E.const(252), E.const(12582913))]
    for j in range(1, 12):   # the same clamp under different parents, and other sub-terms sharing `dot`
        roots.append(E.fma(t, E.const(252 - j), E.const(12582913 + j)))
        roots.append(E.add(E.mul(E.exp2(dot), E.const(j)), E.const(j)))
        roots.append(E.maximum(E.minimum(E.add(t, E.const(j)), E.const(F(j, 3))), E.const(-j)))
    return t, roots


def test_memo_equals_fresh_walk_on_shared_dag():
    realops.clear_bounds_memo()
    t, roots = _attention_like()
    first = [realops.bounds(r) for r in roots]
    assert first == [fresh(r) for r in roots]
    assert first == [reference(r) for r in roots]
    assert realops.bounds(t) == (0, 1)
    assert [realops.bounds(r) for r in reversed(roots)] == first[::-1]     # hits now, same answers


def test_same_subterm_under_different_parents_is_not_stale():
    """The clamp is memoized first; parents built on it afterwards get their own bounds (an entry keyed on
    anything coarser than the node, e.g. the clamp's or a leaf's, would hand one parent another's)."""
    realops.clear_bounds_memo()
    a = E.var("A", 0)
    t = clamp(a)
    assert realops.bounds(t) == (0, 1)
    ok = E.fma(t, E.const(252), E.const(12582913))
    past = E.fma(t, E.const(300), E.const(12582913))
    zero = E.fma(t, E.const(254), E.const(12582912))
    assert realops.bounds(ok) == (12582913, 12582913 + 252)
    assert realops.bounds(past) == (12582913, 12582913 + 300)
    assert realops.exponent_field(ok) is not None
    assert realops.exponent_field(past) is None      # exponent field past 254: refused
    assert realops.exponent_field(zero) is None      # 0 is not a normal exponent
    assert realops.exponent_field(ok) is not None    # and asking again after the refusals changes nothing
    # unbounded sub-terms memoized as (None, None) stay unbounded where a parent does not bound them
    assert realops.bounds(a) == (None, None)
    assert realops.bounds(E.add(a, E.const(12582913))) == (None, None)
    assert realops.exponent_field(E.add(a, E.const(12582913))) is None


def test_memo_cleared_or_overflowing_gives_the_same_answers(monkeypatch):
    _, roots = _attention_like(8)
    want = [fresh(r) for r in roots]
    monkeypatch.setattr(realops, "BOUNDS_MEMO_MAX", 5)     # forces clearing between calls
    realops.clear_bounds_memo()
    got = [realops.bounds(r) for r in roots]
    assert got == want
    assert len(realops._BOUNDS) <= 5 + max(len(E.postorder(r)) for r in roots)
    realops.clear_bounds_memo()
    assert [realops.bounds(r) for r in roots] == want
