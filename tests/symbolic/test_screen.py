"""The float screen (volta/symbolic/screen.py): float64 at several input scales picks the point, exact
evaluation confirms it; equal functions are never refuted, whatever float64 says."""
from fractions import Fraction

from volta.symbolic import constants as C
from volta.config import IntegerInputs
from volta.symbolic import expr as E
from volta.symbolic.domain import FORMATS, Domain, round_to
from volta.symbolic.evaluate import evaluate
from volta.symbolic.screen import Screen
from volta.symbolic.verdict import Refuted

W = [E.var("W", k) for k in range(32)]
X = [E.var("x", k) for k in range(32)]
DOT = E.add_all(E.mul(w, x) for w, x in zip(W, X))
SQRT_2_OVER_PI = next(r.value for r in C.TABLE if r.name == "sqrt(2/pi)")


def _gelu_tanh(s):
    inner = E.mul(SQRT_2_OVER_PI, E.add(s, E.mul(E.const(0.044715), E.mul(s, E.mul(s, s)))))
    return E.mul(E.mul(0.5, s), E.add(1, E.tanh(inner)))


def _gelu_poly(s):
    """A stand-in for libdevice's erff: an odd polynomial close to erf(s/sqrt 2) near 0 (and nowhere equal)."""
    t = E.mul(s, E.const(Fraction(7071, 10000)))
    t2 = E.mul(t, t)
    erf = E.mul(E.mul(t, E.const(Fraction(11284, 10000))), E.add(1, E.mul(t2, E.const(Fraction(-1, 3)))))
    return E.mul(E.mul(0.5, s), E.add(1, erf))


def test_the_screen_finds_what_small_integers_cannot_tell_apart():
    """Over a 32-term dot product of small integers the GELUs are near their tails; at scale 1/4 they part."""
    a, b = _gelu_tanh(DOT), _gelu_poly(DOT)
    found = Screen(Domain({"W": "f32", "x": "f32"})).search(a, b)
    assert isinstance(found, Refuted) and found.confirmed
    assert all(round_to(v, FORMATS["f32"]) == v for v in found.model.values())
    va, vb = found.values
    assert va != vb


def test_equal_functions_are_never_refuted():
    screen = Screen()
    s = DOT
    assert screen.search(E.mul(E.add(s, 1), E.add(s, 1)), E.add(E.add(E.mul(s, s), E.mul(2, s)), 1)) is None
    e = E.exp2(E.mul(X[0], C.LOG2E))
    assert screen.search(E.mul(e, e), E.exp2(E.mul(E.mul(2, X[0]), C.LOG2E))) is None


def test_the_simplest_point_that_parts_clearly_is_the_witness():
    """saxpy with a sign slip: every input 1 already parts the outputs (2 against 0); that is the witness."""
    found = Screen().search(E.add(X[0], X[1]), E.sub(X[0], X[1]))
    assert found.model == {X[0]: 1, X[1]: 1}


def test_integer_inputs_get_integers_of_their_range():
    n = E.var("n", 0)
    found = Screen(integers=IntegerInputs.of({"n": (0, 255)})).search(E.mul(n, n), n)
    assert found is not None and all(v.denominator == 1 and 0 <= v <= 255 for v in found.model.values())
    assert evaluate(E.mul(n, n), found.model) != evaluate(n, found.model)



def _gelu_erf(s):
    """torch's GELU: s·(1 + erf(s/sqrt 2))/2, erf an uninterpreted call as kernelbench reads libdevice's erff."""
    return E.mul(E.mul(0.5, s), E.add(1, E.call("erf", E.div(s, E.sqrt(E.const(2))))))


def test_the_screen_evaluates_erf_so_an_erf_gelu_parts_from_a_tanh_gelu():
    """Without erf's float64 value the screen saw no point worth an exact look (an erf GELU over a 4,224-term
    mean was UNKNOWN after 60 exact tries at ~1 s each); with it the screen finds and confirms the difference."""
    a, b = _gelu_erf(DOT), _gelu_tanh(DOT)
    found = Screen(Domain({"W": "f32", "x": "f32"})).search(a, b)
    assert isinstance(found, Refuted) and found.confirmed
    va, vb = found.values
    assert va != vb


def test_an_erf_gelu_is_never_refuted_against_itself_written_apart():
    """Equal functions: erf(s/sqrt 2) against erf(s·(1/sqrt 2)) with 1/sqrt 2 exact: no confirmed witness."""
    inv = E.div(E.const(1), E.sqrt(E.const(2)))
    b = E.mul(E.mul(0.5, DOT), E.add(1, E.call("erf", E.mul(DOT, inv))))
    assert Screen().search(_gelu_erf(DOT), b) is None
