"""Hash-consing, constant folding and evaluation of the expression DAG."""
from fractions import Fraction as F

import pytest

from volta.symbolic import expr as E
from volta.symbolic.evaluate import Inexact, Undefined, evaluate, evaluate_float

x, y, z = E.var("x", 0), E.var("x", 1), E.var("y", 0)


def test_hash_consing_is_identity():
    assert E.var("x", 0) is x
    assert E.add(x, y) is E.add(y, x)
    assert E.mul(E.add(x, y), z) is E.mul(z, E.add(y, x))
    assert E.sym("alpha") is E.sym("alpha")
    assert E.call("f", x, y) is E.call("f", x, y)
    assert E.call("f", x, y) is not E.call("f", y, x)
    assert E.gt(x, y) is E.lt(y, x)


def test_constant_folding_is_exact():
    assert E.add(F(1, 3), F(2, 3)) is E.ONE
    assert E.mul(0.5, 4) is E.const(2)
    assert E.const(0.1).data == F(0.1)          # the binary float, exactly
    assert E.add(x, 0) is x and E.mul(x, 1) is x and E.mul(x, 0) is E.ZERO
    assert E.div(x, 4) is E.mul(x, F(1, 4))
    assert E.exp2(-3) is E.const(F(1, 8))
    assert E.exp2(F(1, 2)).op is E.Op.EXP2
    assert E.sqrt(F(9, 4)) is E.const(F(3, 2)) and E.sqrt(2).op is E.Op.SQRT
    assert E.lg2(F(1, 8)) is E.const(-3)
    assert E.maximum(2, 3) is E.const(3) and E.maximum(x, x) is x
    assert E.lt(1, 2) is E.TRUE and E.le(x, x) is E.TRUE and E.lt(x, x) is E.FALSE
    assert E.select(E.TRUE, x, y) is x and E.select(E.lt(x, y), z, z) is z


def test_exact_evaluation_and_its_limits():
    env = {x: F(3), y: F(-1, 2), z: F(4)}
    assert evaluate(x * y + z / x, env) == F(-3, 2) + F(4, 3)
    assert evaluate(E.exp2(x - 1), env) == 4
    assert evaluate(E.select(E.lt(x, y), x, y), env) == F(-1, 2)
    assert evaluate(E.sqrt(z), env) == 2
    with pytest.raises(Inexact):
        evaluate(E.exp2(y), env)
    with pytest.raises(Undefined):
        evaluate(x / (z - 4), env)
    with pytest.raises(Inexact):
        evaluate(E.call("f", x), env)
    assert evaluate(E.call("f", x), env, funcs={"f": lambda v: v * 2}) == 6
    assert evaluate_float(E.exp2(y), env) == pytest.approx(2 ** -0.5)
    assert evaluate_float(x / (z - 4), env) == float("inf")


def test_deep_chain_has_no_recursion_limit():
    acc = E.ZERO
    n = 100_000
    for k in range(n):
        acc = E.add(acc, E.var("deep", k))
    env = {E.var("deep", k): F(1) for k in range(n)}
    assert evaluate(acc, env) == n
    assert evaluate_float(acc, env) == n
