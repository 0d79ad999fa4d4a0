"""normal.Budget: a normalization with a hard bound on its work gives up (ExpansionLimit) without doing more than
the bound, and never changes what a normal form is: what it finished, and what a later unbounded call
finishes from its memo, is the normal form a fresh normalizer makes."""
from __future__ import annotations

import pytest

from volta.symbolic import expr as E
from volta.symbolic import normal as N
from volta.symbolic.normal import Budget, ExpansionLimit, Normalizer, equal

LOG2E = E.const(1.4426950408889634)


def _sigmoid_sum(n: int, sign: int = -1) -> E.Expr:
    """sum_j 1 / (1 + 2^(sign·x_j·log2 e)): a row of sigmoids (tests/kernelbench corpus l2_gemm_sigmoid_sum), whose
    common denominator has 2^n monomials, each with an exponent of its own."""
    acc = E.ZERO
    for j in range(n):
        arg = E.mul(E.mul(E.const(sign), E.var("x", j)), LOG2E)
        acc = E.add(acc, E.div(E.ONE, E.add(E.ONE, E.exp2(arg))))
    return acc


def _argmax_chain(n: int) -> E.Expr:
    """The index of the largest of x_0..x_{n-1} by a sequential scan: n nested selects on running maxima (what
    tests/equiv/test_argmax.py's kernels compute), whose select rewrites normalize their arms again."""
    best, index = E.var("x", 0), E.ZERO
    for j in range(1, n):
        x = E.var("x", j)
        cond = E.lt(best, x)
        best, index = E.select(cond, x, best), E.select(cond, E.const(j), index)
    return index


def test_a_row_of_sigmoids_gives_up_within_the_budget():
    """24 sigmoids would make a 16-million-term denominator (22 GB once, in the whole-suite run): the budget
    refuses the step that would pass it, having spent no more than its limit, and the exponents it interned
    (process-wide, never freed) are bounded by it too."""
    limit = 200_000
    budget = Budget(limit)
    before = len(N.EXP_POLYS)
    with pytest.raises(ExpansionLimit):
        Normalizer(budget=budget)(_sigmoid_sum(24))
    assert budget.spent <= limit and budget.refused > 0
    assert sum(len(p) for p in N.EXP_POLYS[before:]) <= limit


def test_nested_selects_give_up_within_the_budget():
    """A 64-level argmax scan: the select rewrites' premises normalize arms that hold the levels below, so the
    work grows with every level; the budget counts those normalizations and substitutions too."""
    limit = 100_000
    budget = Budget(limit)
    with pytest.raises(ExpansionLimit):
        Normalizer(budget=budget)(_argmax_chain(64))
    assert budget.spent <= limit and budget.refused > 0


def _fresh_equal(x: E.Expr, y: E.Expr) -> bool:
    n = Normalizer()
    return equal(n(x), n(y))


def _cases() -> list:
    """Pairs with sums consumed in place, ratios, exponentials and selects: equal ones and different ones."""
    xs = [E.var("a", i) for i in range(8)]
    chain = E.add_all(xs)
    chain_rev = E.add_all(reversed(xs))
    ratio = E.div(E.add_all(E.mul(E.exp2(x), xs[(k + 1) % 8]) for k, x in enumerate(xs)), E.add_all(map(E.exp2, xs)))
    ratio_rev = E.div(E.add_all(E.mul(xs[(k + 1) % 8], E.exp2(x)) for k, x in reversed(list(enumerate(xs)))),
                      E.add_all(map(E.exp2, reversed(xs))))
    square = E.mul(chain, chain)
    return [(chain, chain_rev), (ratio, ratio_rev), (square, E.mul(chain_rev, chain)),
            (square, E.mul(chain, chain_rev)), (_sigmoid_sum(4), _sigmoid_sum(4, 1)),
            (_argmax_chain(5), _argmax_chain(5)), (E.add(chain, xs[0]), chain_rev)]


@pytest.mark.parametrize("pair", range(len(_cases())))
def test_any_budget_gives_up_or_agrees_and_leaves_the_memo_sound(pair):
    """For every budget from 0 up to what the pair takes in full: the bounded attempt either gives up or
    decides as a fresh normalizer does, and an unbounded call on the same memo afterwards (what volta check
    does after giving up) decides the same too."""
    x, y = _cases()[pair]
    want = _fresh_equal(x, y)
    full = Budget(10 ** 12)
    shared = Normalizer()
    assert equal(shared.bounded(full)(x), shared.bounded(full)(y), full) == want
    step = max(1, full.spent // 60)
    for limit in range(0, full.spent + step, step):
        norm = Normalizer()
        budget = Budget(limit)
        bounded = norm.bounded(budget)
        try:
            got = equal(bounded(x), bounded(y), budget)
        except ExpansionLimit:
            got = None
        assert budget.spent <= limit
        assert got in (None, want), limit
        assert equal(norm(x), norm(y)) == want, limit
