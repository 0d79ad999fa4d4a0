"""The exact random search (volta/symbolic/search.py): scaled inputs make exponents exact, plain ones stay
in the search."""
from volta.symbolic import expr as E
from volta.symbolic.search import exp2_scales, random_search
from volta.symbolic.verdict import Refuted

W = [E.var("W", k) for k in range(4)]
X = [E.var("x", k) for k in range(4)]
MEAN = E.mul(E.add_all(E.mul(w, x) for w, x in zip(W, X)), E.const(1) / 64)   # the search scales inputs by 64


def _gelu(s, inner):
    return E.mul(E.mul(0.5, s), E.add(1, inner))


def test_plain_inputs_are_tried_between_scaled_ones():
    """An erf GELU and a tanh-approximate one of a mean of products beside its exp: scaled by 64, the mean is
    64 times the products' sum, so every argument is far out,
    where the two agree to more digits than their enclosures resolve (12 scaled tries found nothing); a plain
    small input parts them."""
    shared = E.exp2(MEAN)
    a = E.add(_gelu(MEAN, E.call("erf", E.div(MEAN, E.sqrt(E.const(2))))), shared)
    c = E.sqrt(E.div(E.const(2), E.sym("pi")))
    b = E.add(_gelu(MEAN, E.tanh(E.mul(c, E.add(MEAN, E.mul(E.const(0.044715), E.mul(MEAN, E.mul(MEAN, MEAN))))))),
              shared)
    assert exp2_scales(a, b) == [64]
    found = random_search(a, b, tries=12)
    assert isinstance(found, Refuted) and found.confirmed
    assert found.values[0] != found.values[1]

