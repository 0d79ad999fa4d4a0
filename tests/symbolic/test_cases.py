"""Case splits on the order of max/min/abs arguments (volta/symbolic/cases.py): |a| as max(a, -a), orders whose
strict form is empty skipped (Fourier-Motzkin), and a differential check that nothing proved there is false."""
import random
from fractions import Fraction as F

from hypothesis import given, settings, strategies as st

from volta.symbolic import expr as E
from volta.symbolic.cases import _affine_forms, _strictly_empty, decide_by_cases
from volta.symbolic.evaluate import EvalError, evaluate
from volta.symbolic.normal import UNIT, Normalizer
from volta.symbolic.verdict import Proved

x, y = E.var("x", 0), E.var("x", 1)


def test_abs_meets_max_and_min_of_zero():
    """|x| = max(x, 0) - min(x, 0): the orders -x < x < 0 and 0 < x < -x hold nowhere and are skipped."""
    assert decide_by_cases(E.absolute(x), E.sub(E.maximum(x, 0), E.minimum(x, 0))) == Proved("case-split")
    assert decide_by_cases(E.add(E.maximum(x, 0), E.maximum(E.neg(x), 0)), E.absolute(x)) == Proved("case-split")


def test_stable_softplus_meets_softplus():
    """lg2(1 + 2^-|x|) + max(x, 0) = lg2(1 + 2^x): on each sign of x one side is the other reflected
    (rule softplus-reflect); on a sum, not just a leaf."""
    for t in (x, E.add(E.mul(3, x), y)):
        stable = E.add(E.lg2(E.add(1, E.exp2(E.neg(E.absolute(t))))), E.maximum(t, 0))
        assert decide_by_cases(stable, E.lg2(E.add(1, E.exp2(t)))) == Proved("case-split")


def test_wrong_identities_are_not_proved():
    """Negative controls: each differs on an open set of inputs."""
    softplus = E.lg2(E.add(1, E.exp2(x)))
    assert decide_by_cases(E.absolute(x), E.maximum(x, 0)) is None
    assert decide_by_cases(E.add(E.lg2(E.add(1, E.exp2(E.neg(E.absolute(x))))), E.minimum(x, 0)), softplus) is None
    assert decide_by_cases(E.lg2(E.add(1, E.exp2(E.neg(E.absolute(x))))), softplus) is None


def test_strict_systems():
    """Each row is an affine form > 0 (monomial -> coefficient, UNIT its constant)."""
    mx, my, mz = ((((x.id, 1),), 0)), ((((y.id, 1),), 0)), "z"
    assert _strictly_empty([{mx: 1}, {mx: -1}])                          # x > 0 and -x > 0
    assert _strictly_empty([{mx: 1, my: -1}, {my: 1, mz: -1}, {mz: 1, mx: -1}])   # x > y > z > x
    assert _strictly_empty([{UNIT: -1}]) and _strictly_empty([{UNIT: 0}])
    assert not _strictly_empty([{mx: 1}, {mx: -1, UNIT: 1}])             # 0 < x < 1
    assert not _strictly_empty([{mx: 1}, {my: 1}])
    assert not _strictly_empty([{mx: 1, my: -1}, {mx: -1, my: 1, UNIT: 1}])   # 0 < x - y < 1
    assert not _strictly_empty([])


def test_two_arguments_of_one_form_turn_the_skip_off():
    """2x and x + x differ as expressions but vanish together everywhere: no chamber separates them, so no order
    may be skipped as empty."""
    assert _affine_forms([E.mul(2, x), E.add(x, x), E.ZERO], Normalizer()) is None
    assert _affine_forms([E.mul(2, x), x, E.ZERO], Normalizer()) is not None


# ---- differential: whatever the case split proves holds at every point, ties included ----------------------

def _tree(rng: random.Random, depth: int):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([x, y, E.const(rng.randint(-2, 2))])
    op = rng.choice(["add", "sub", "scale", "abs", "max", "min", "neg"])
    a = _tree(rng, depth - 1)
    if op in ("abs", "neg"):
        return E.absolute(a) if op == "abs" else E.neg(a)
    if op == "scale":
        return E.mul(rng.choice([2, -1, F(1, 2)]), a)
    b = _tree(rng, depth - 1)
    return {"add": E.add, "sub": E.sub, "max": E.maximum, "min": E.minimum}[op](a, b)


def _rewrite(rng: random.Random, root):
    """root with its extrema rewritten by true identities (|u| = max(u, 0) - min(u, 0), max(u, v) = u + v -
    min(u, v), ...) and, sometimes, by a false one (|u| -> u, max -> min, a shifted clamp)."""
    def go(n):
        if not n.args:
            return n
        args = tuple(go(c) for c in n.args)
        r = rng.random()
        if n.op is E.ABS:
            u = args[0]
            if r < 0.4:
                return E.sub(E.maximum(u, 0), E.minimum(u, 0))
            if r < 0.7:
                return E.add(E.maximum(u, 0), E.maximum(E.neg(u), 0))
            if r < 0.8:
                return u                                   # false
        if n.op is E.MAX:
            u, v = args
            if r < 0.4:
                return E.sub(E.add(u, v), E.minimum(u, v))
            if r < 0.5:
                return E.minimum(u, v)                     # false
            if r < 0.6:
                return E.maximum(u, E.add(v, 1))           # false
        if n.op is E.MIN and r < 0.4:
            return E.neg(E.maximum(E.neg(args[0]), E.neg(args[1])))
        return E.rebuild(n, args)
    return go(root)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_whatever_is_proved_holds_everywhere(seed):
    rng = random.Random(seed)
    a = _tree(rng, 3)
    b = _rewrite(rng, a)
    if decide_by_cases(a, b) is None:
        return
    for vx in range(-3, 4):           # integer points: ties between the arguments happen here
        for vy in range(-3, 4):
            env = {x: F(vx, 2), y: F(vy)}
            try:
                assert evaluate(a, env) == evaluate(b, env), (E.to_str(a), E.to_str(b), env)
            except EvalError:
                pass


def test_an_element_proved_by_cases_needs_no_exact_search(monkeypatch):
    """`volta check`'s element decision tries the case split before 60 exact evaluations (enclosures of lg2 and
    tanh: ten times the split's cost on a Mish of a Mish), and it still finds a difference after a failed split."""
    from volta.equiv import check as C
    stable = E.add(E.lg2(E.add(1, E.exp2(E.neg(E.absolute(x))))), E.maximum(x, 0))
    softplus = E.lg2(E.add(1, E.exp2(x)))
    searched = []
    real_search = C.random_search
    monkeypatch.setattr(C, "random_search", lambda *a, **k: searched.append(1) or real_search(*a, **k))
    assert C._compare(E.mul(x, E.tanh(stable)), E.mul(x, E.tanh(softplus)), Normalizer(), 10_000, None, "o", 0) \
        == Proved("case-split")
    assert not searched
    wrong = C._compare(E.mul(y, stable), E.mul(y, E.add(softplus, E.minimum(x, 0))), Normalizer(), 10_000, None,
                       "o", 0)
    assert not isinstance(wrong, Proved)
