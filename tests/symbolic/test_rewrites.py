"""The normalizer's rewrites are one table (rules.REWRITES) that names the proved rules (rules.RULES).

Structure: every operator is dispatched through the table, and normal.py never calls a registered rewrite
except through it. Behaviour: a traced normalizer records every application, and on a corpus that makes
every rewrite fire (and on random expressions) each application's two sides agree on concrete inputs
wherever both are defined."""
import ast
import importlib.util
import pathlib
import random
import sys
from fractions import Fraction as F

import pytest
from hypothesis import assume, given, settings, strategies as st

from volta.errors import Unsupported
from volta.symbolic import expr as E
from volta.symbolic import normal as N
from volta.symbolic.evaluate import EvalError, Inexact, Undefined, evaluate, evaluate_float
from volta.symbolic.rules import REWRITES, RULE_NAMES, rewrite
from volta.symbolic.shared import SharedTerms

ROOT = pathlib.Path(__file__).resolve().parents[2]
x, y, z, w = (E.var("rw", i) for i in range(4))


def _check_rules():
    spec = importlib.util.spec_from_file_location("check_rules", ROOT / "proofs" / "check_rules.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["check_rules"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_every_operator_has_a_step_of_the_table():
    for op in E.Op:
        if op not in E.BOOLEAN:
            assert N.STEPS[op] is REWRITES[N.STEPS[op].name], op
    for name in (*N.SELECT_ORIENT, *N.SELECT_RESOLVE):
        assert name in REWRITES


def test_normal_py_calls_rewrites_only_through_the_table():
    """A registered function called by name would be a rewrite the trace (and this table) does not see."""
    registered = {entry.apply.__name__ for entry in REWRITES.values()
                  if entry.apply.__module__ == N.__name__}
    tree = ast.parse((ROOT / "volta" / "symbolic" / "normal.py").read_text())
    direct = [(node.lineno, node.func.id) for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in registered]
    assert direct == []
    assert len(registered) == len(REWRITES)


def test_a_rewrite_must_name_rules_of_the_table():
    with pytest.raises(LookupError, match="not in RULES"):
        rewrite("made-up", "no-such-rule")(lambda norm: None)
    with pytest.raises(LookupError, match="twice"):
        rewrite("sum", "add-comm")(lambda norm: None)
    assert "made-up" not in REWRITES


def test_proofs_read_the_rewrite_table():
    check = _check_rules()
    assert check.rewrite_coverage(set(RULE_NAMES)) == []
    missing = check.rewrite_coverage(set(RULE_NAMES) - {"select-not", "add-assoc"})
    assert any("'select-not'" in p for p in missing) and any("'add-assoc'" in p for p in missing)


# ---------------------------------------------------------------- every application, on concrete inputs

def _corpus() -> list[E.Expr]:
    f = lambda t: E.add(E.mul(z, E.exp2(t)), E.mul(t, t))   # noqa: E731  a total function of t
    both = E.logical_and(E.lt(x, y), E.lt(z, w))
    return [
        E.div(E.add(x, E.mul(y, z)), E.add(w, E.ONE)),            # leaf, constant, sum, product, quotient
        E.exp2(E.add(E.mul(x, 3), E.const(2))), E.exp2(E.div(x, y)),   # exponential; an opaque 2^(x/y)
        E.mul(E.sqrt(E.add(x, y)), E.sqrt(E.add(x, y))),           # radicals
        E.mul(E.rsqrt(E.add(x, E.ONE)), E.ONE), E.tanh(E.add(y, x)), E.absolute(E.absolute(x)),
        E.select(E.lt(x, y), E.add(w, x), E.add(w, y)),           # common terms
        E.maximum(E.add(z, x), E.add(z, y)), E.maximum(E.maximum(x, y), E.maximum(x, E.const(3))),
        E.select(E.logical_not(both), x, y),                      # select-not over a conjunction
        E.select(E.le(x, y), z, w), E.select(E.eq(x, y), z, w),   # polarity
        E.select(E.lt(x, y), x, y), E.select(E.lt(y, x), x, y),   # min, max
        E.select(E.eq(x, y), x, y), E.select(E.ne(y, x), x, y),   # an arm
        E.select(E.lt(x, y), f(y), f(x)),                         # through max
        E.select(E.lt(x, y), E.add(w, E.mul(z, E.exp2(E.sub(x, y)))),   # rescale: the (max, sum) merge of
                 E.add(z, E.mul(w, E.exp2(E.sub(y, x))))),                # pairs (x, z) and (y, w)
        E.select(E.lt(E.ZERO, x), x, E.mul(x, y)),                # boundary: the arms agree at x = 0
        E.select(E.ne(x, y), E.mul(E.sub(x, y), z), E.ZERO),      # ne-boundary
        E.select(E.lt(x, y), E.select(E.lt(x, y), z, w), x),      # nested
        E.select(E.logical_not(E.le(x, E.ZERO)), z, w),           # not-compare
        E.select(E.logical_or(both, E.lt(y, w)), E.mul(x, x), z),  # logic
        E.lg2(E.add(E.ONE, E.mul(4, E.exp2(E.add(x, y))))),         # softplus-reflect: 2 + x + y + lg2(1 + 2^-(…)/4)
    ]


def _shared_corpus() -> list[E.Expr]:
    """A mean subtracted from each element and a sqrt over it twice: shared sums and an atom found again."""
    xs = [E.var("sh", i) for i in range(4)]
    mean = E.mul(E.add_all(xs), E.const(F(1, 4)))
    var = E.mul(E.add_all(E.mul(E.sub(v, mean), E.sub(v, mean)) for v in xs), E.const(F(1, 4)))
    again = E.mul(E.add_all(E.mul(E.sub(mean, v), E.sub(mean, v)) for v in xs), E.const(F(1, 4)))
    return [E.add(E.mul(E.sub(xs[0], mean), E.rsqrt(E.add(var, E.ONE))),
                  E.mul(E.sub(xs[1], mean), E.sqrt(E.add(again, E.ONE))))]


def _agree(before: E.Expr, after: E.Expr, rng: random.Random, tries: int = 24) -> tuple[int, str | None]:
    """(points where both sides have a value, a disagreement or None): exact values, floats where the
    value is irrational (2^(1/2), sqrt 3)."""
    leaves = sorted(set(E.leaves(before)) | set(E.leaves(after)), key=lambda n: n.id)
    funcs = {"f": lambda t: t * t * 3 + 1}
    agreed = 0
    for i in range(tries):
        env = {leaf: F(rng.randint(-6, 6)) if i % 2 else F(rng.randint(-9, 9), rng.randint(1, 4))
               for leaf in leaves}
        try:
            vb, va = evaluate(before, env, funcs), evaluate(after, env, funcs)
        except Undefined:
            continue
        except Inexact:
            if not (_defined(before, env, funcs) and _defined(after, env, funcs)):
                continue   # sqrt of a negative inside a comparison: NaN compares false, the real value is none
            vb, va = evaluate_float(before, env, funcs), evaluate_float(after, env, funcs)
            if type(vb) is float and (vb != vb or va != va or abs(vb) == float("inf") or abs(va) == float("inf")):
                continue
            if type(vb) is float and abs(vb - va) <= 1e-9 * max(1.0, abs(vb)):
                agreed += 1
                continue
        except EvalError:
            continue
        if vb != va:
            return agreed, f"{E.to_str(before)} -> {E.to_str(after)} at {env}: {vb} != {va}"
        agreed += 1
    return agreed, None


def _defined(expr: E.Expr, env: dict, funcs: dict) -> bool:
    """Whether every sub-expression has a real value at env in float evaluation (no NaN hidden under a
    comparison, where `<` and `<=` would read it as false)."""
    for node in E.postorder(expr):
        try:
            value = evaluate_float(node, env, funcs)
        except EvalError:
            return False
        if type(value) is float and value != value:
            return False
    return True


def _traced(roots, shared=None) -> list:
    trace: list = []
    norm = N.Normalizer(shared=shared, trace=trace)
    for root in roots:
        norm(root)
    return trace


def test_every_rewrite_fires_on_the_corpus_and_each_application_holds():
    trace = _traced(_corpus()) + _traced(_shared_corpus(), SharedTerms(wide=3))
    assert {name for name, _b, _a in trace} == set(REWRITES)
    rng = random.Random(29)
    confirmed = set()
    for name, before, after in trace:
        agreed, bad = _agree(before, after, rng)
        assert bad is None, (name, bad)
        if agreed:
            confirmed.add(name)
    assert confirmed == set(REWRITES)


def test_the_trace_does_not_change_the_normal_form():
    for root in _corpus():
        assert N.equal(N.Normalizer(trace=[])(root), N.Normalizer()(root))


def _exprs():
    leaves = st.sampled_from([x, y, z, E.ONE, E.const(2), E.const(F(-1, 2))])

    def extend(inner):
        cond = st.builds(lambda op, a, b: op(a, b), st.sampled_from([E.lt, E.le, E.eq, E.ne]), inner, inner)
        cond = cond | st.builds(E.logical_not, cond)
        return (st.builds(E.add, inner, inner) | st.builds(E.mul, inner, inner) | st.builds(E.sub, inner, inner)
                | st.builds(E.div, inner, inner) | st.builds(E.maximum, inner, inner)
                | st.builds(E.minimum, inner, inner) | st.builds(E.select, cond, inner, inner)
                | st.builds(E.sqrt, inner) | st.builds(E.absolute, inner)
                | st.builds(lambda a: E.exp2(E.add(a, E.ONE)), inner))
    return st.recursive(leaves, extend, max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(_exprs(), st.integers(0, 2**32))
def test_random_expressions_every_application_holds(root, seed):
    rng = random.Random(seed)
    try:
        applied = _traced([root])
    except Unsupported:   # x / (x - x): the normalizer refuses a division by what is identically zero
        assume(False)
    for name, before, after in applied:
        _agreed, bad = _agree(before, after, rng, tries=6)
        assert bad is None, (name, bad)
