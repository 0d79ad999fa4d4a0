"""Inputs a kernel can be given (volta/symbolic/domain.py): rounding to a format, checked against the IEEE
reference in volta/numerics/formats.py; the solver told each format's range; witnesses rounded to it."""
from fractions import Fraction

from hypothesis import given, strategies as st

from volta.numerics.formats import Rnd, decode, encode
from volta.symbolic import expr as E
from volta.symbolic.domain import FORMATS, Domain, round_to
from volta.symbolic.search import confirm, random_search
from volta.symbolic.verdict import Proved, Refuted
from volta.symbolic.z3bridge import decide_equal

x, y = E.var("x", 0), E.var("x", 1)
F32 = Domain({"x": "f32"})
FLT_MAX = FORMATS["f32"].largest

rationals = st.fractions(max_denominator=1 << 40).filter(lambda v: abs(v) < 2 ** 100)


@given(rationals, st.sampled_from(["f32", "f16", "bf16", "f64"]),
       st.sampled_from([("nearest", Rnd.RN), ("down", Rnd.RM), ("up", Rnd.RP)]))
def test_round_to_matches_the_ieee_reference(v, name, mode):
    fmt = FORMATS[name]
    word = encode(v, name, mode[1], satfinite=True)
    want = decode(word, name)
    assert round_to(v, fmt, mode[0]) == (want if isinstance(want, Fraction) else Fraction(0))


def test_round_to_never_leaves_the_finite_range():
    assert round_to(-FLT_MAX - 1, FORMATS["f32"], "down") == -FLT_MAX
    assert round_to(Fraction(10) ** 40, FORMATS["f32"]) == FLT_MAX
    assert round_to(Fraction(1, 3), FORMATS["f16"]) == Fraction(1365, 4096)


def test_the_solver_is_told_the_float_range():
    """max(x, -FLT_MAX) and x differ only below -FLT_MAX, where no f32 input lies: proved for f32 inputs,
    refuted for unbounded reals only with a witness no kernel can be given."""
    sentinel = E.maximum(x, E.const(-FLT_MAX))
    assert decide_equal(sentinel, x, domain=F32) == Proved("z3")
    unbounded = decide_equal(sentinel, x)
    assert isinstance(unbounded, Refuted) and unbounded.model[x] < -FLT_MAX


def test_a_model_past_a_sentinel_is_rounded_outward_to_a_value_of_the_format():
    """The max-pool witness `-1e20f - 1`: to nearest it is the sentinel -1e20f itself (no difference); rounded
    down it is the next f32 below, where the two differ, and that is the witness."""
    s = Fraction(float.fromhex("-0x1.5af1d8p+66"))   # -1e20f
    a, b = E.maximum(x, E.const(s)), x
    found = confirm(a, b, {x: s - 1}, F32)
    assert found.confirmed and found.model[x] < s and round_to(found.model[x], FORMATS["f32"]) == found.model[x]


def test_random_search_witnesses_are_values_of_the_format():
    found = random_search(E.mul(x, E.const(3)), E.add(x, E.add(x, y)), domain=Domain({"x": "f16"}))
    assert isinstance(found, Refuted) and found.confirmed
    assert all(round_to(v, FORMATS["f16"]) == v for v in found.model.values())
