"""Z3 on what normal forms leave; counterexample search; the rule table's proofs."""
import importlib.util
import pathlib
import sys
from fractions import Fraction as F

import pytest

from volta.symbolic import expr as E
from volta.symbolic.evaluate import evaluate
from volta.symbolic.normal import equal_exprs
from volta.symbolic.rules import RULES, Rule, build, folded, sides
from volta.symbolic.z3bridge import find_distinguishing_input
from volta.symbolic.verdict import Proved, Refuted, Unknown
from volta.symbolic.z3bridge import decide_equal, emit_smt

a, b, c = E.var("x", 0), E.var("x", 1), E.var("x", 2)
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "proofs" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_normal_forms_decide_without_solver():
    assert decide_equal(E.exp2(a) * E.exp2(b), E.exp2(a + b)) == Proved("normal-form")


def test_z3_proves_max_plus_min():
    # max/min identities are decided by case splits on argument orders before Z3 (cases.py)
    assert decide_equal(E.maximum(a, b) + E.minimum(a, b), a + b) == Proved("case-split")
    assert decide_equal(E.sqrt(a * a), E.absolute(a)) == Proved("z3")


def test_z3_refutes_max_with_confirmed_counterexample():
    v = decide_equal(E.maximum(a, b), a)
    assert isinstance(v, Refuted) and v.confirmed
    assert evaluate(E.maximum(a, b), v.model) != evaluate(a, v.model)


def test_known_inequalities_have_counterexamples():
    for lhs, rhs in [(a + b, a + c), (a / b, b / a), (E.exp2(a) + E.exp2(b), E.exp2(a + b)),
                     ((a + b) * (a + b), a * a + b * b)]:
        v = find_distinguishing_input(lhs, rhs)
        assert isinstance(v, Refuted) and v.confirmed, (lhs, rhs, v)
        va, vb = v.values
        assert va != vb and all(x.denominator <= 4 for x in v.model.values())


def test_counterexample_needing_a_solver_model():
    # differs only where x = 7/3 exactly: small random values miss it, Z3 finds it
    lhs = E.select(E.eq(a, F(7, 3)), E.ONE, E.ZERO)
    v = find_distinguishing_input(lhs, E.ZERO, tries=20)
    assert isinstance(v, Refuted) and v.confirmed and v.model[a] == F(7, 3)


def test_timeout_is_unknown():
    # x^2 - 2y^2 patterns that nonlinear solving cannot finish in a millisecond
    xs = [E.var("t", i) for i in range(8)]
    lhs = E.add_all(E.sqrt(x * x * x + x) * x for x in xs)
    rhs = E.add_all(E.rsqrt(x * x + 1) * x for x in xs)
    v = decide_equal(lhs, rhs, timeout_ms=1)
    assert isinstance(v, (Unknown, Refuted))
    if isinstance(v, Refuted):
        assert v.confirmed


def test_emit_smt_rechecks_with_both_solvers(tmp_path):
    emit_smt(E.maximum(a, b) + E.minimum(a, b), a + b, tmp_path / "maxmin.smt2")
    emit_smt(E.sqrt(a * a) * E.exp2(b), E.absolute(a) * E.exp2(b), tmp_path / "sqrt.smt2")
    recheck = _load("recheck_smt")
    results = recheck.recheck(tmp_path)
    assert [r.agree for r in results] == [True, True]
    assert all(r.z3 == "unsat" for r in results)


@pytest.mark.slow
def test_every_rule_is_proved_and_spot_checked():
    assert _load("check_rules").main() == 0


def test_a_wrong_rule_is_caught():
    check = _load("check_rules")
    assert not check.prove_rule(Rule("bogus", "a / b + c / d", "(a + c) / (b + d)")).startswith("proved")
    assert not check.prove_rule(Rule("bogus-exp", "exp2(a) + exp2(b)", "exp2(a + b)", kind="exp")
                                ).startswith("proved")


# rules whose premise is on constants the rewrite compares itself (extrema._clamp: lo <= hi), at an instance
CONSTANT_PREMISES = {"clamp-order": {"c": 2, "d": 3}}


def test_normalizer_agrees_with_its_rules():
    """Each field/exp rule the normalizer relies on holds between the normal forms of its sides."""
    for rule in RULES:
        if rule.used_by != "normal":
            continue
        lhs, rhs, _ = sides(rule)
        if rule.name in CONSTANT_PREMISES:
            at = {build(v): E.const(k) for v, k in CONSTANT_PREMISES[rule.name].items()}
            lhs, rhs = E.substitute(lhs, at), E.substitute(rhs, at)
        if lhs.op in E.BOOLEAN or "f(" in rule.lhs:   # f: any function (a schema; instances are listed)
            continue
        if any("eq(b, c)" in cond for cond in rule.assume):   # a premise on the arms that boundary.py proves
            continue                                          # per instance (tests/symbolic/test_select_boundary)
        assert equal_exprs(folded(lhs), folded(rhs)), rule.name


def test_a_constant_too_large_for_the_solver_is_unknown_not_a_crash():
    from fractions import Fraction

    from volta.symbolic import expr as E
    from volta.symbolic.verdict import Unknown
    from volta.symbolic.z3bridge import solver_model

    x = E.var("x", 0)
    huge = E.const(Fraction(3 ** 9000, 7))   # 14,000+ bits: Python will not even print it by default
    found = solver_model(E.mul(x, huge), E.add(x, huge), 1_000)
    assert isinstance(found, Unknown) and "beyond what the solver" in found.reason


def test_a_division_in_a_select_arm_does_not_restrict_the_domain():
    # `x != 0 ? 1/x : 0` is defined (0) at x = 0: the arm's divisor is nonzero only where the arm is taken
    guarded = lambda other: E.select(E.ne(a, E.ZERO), E.div(E.ONE, a), other)  # noqa: E731
    assert not isinstance(decide_equal(guarded(E.ZERO), guarded(E.const(5))), Proved)
    assert decide_equal(guarded(E.ZERO), guarded(E.ZERO)) == Proved("normal-form")
    # an unconditional division still restricts it: 1/x·x = 1 wherever 1/x is defined
    assert isinstance(decide_equal(E.div(E.ONE, a) * a, E.ONE), Proved)


def test_rounding_modes_are_different_functions():
    x = E.mul(a, E.const(F(1, 3)))
    v = decide_equal(E.rint(x, ".rni"), E.rint(x, ".rzi"))
    assert not isinstance(v, Proved)
    assert decide_equal(E.add(E.rint(x, ".rmi"), E.ONE), E.add(E.ONE, E.rint(x, ".rmi"))) == Proved("normal-form")


def test_integer_buffers_get_integer_witnesses():
    """Over the reals `0 < x` and `1 <= x` differ (x = 1/2); for an s32 buffer no input tells them apart,
    so no witness may be found, by the random search or by Z3."""
    from volta.config import IntegerInputs
    from volta.symbolic import expr as E
    from volta.symbolic.search import random_search
    from volta.symbolic.verdict import Refuted
    from volta.symbolic.z3bridge import decide_equal

    x = E.var("n", 0)
    a, b = E.select(E.lt(E.ZERO, x), E.ONE, E.ZERO), E.select(E.le(E.ONE, x), E.ONE, E.ZERO)
    assert isinstance(decide_equal(a, b, 5_000), Refuted)   # reals
    integers = IntegerInputs.of({"n": None})   # an integer input without a declared range
    assert random_search(a, b, tries=200, integers=integers) is None
    assert not isinstance(decide_equal(a, b, 5_000, integers=integers), Refuted)
