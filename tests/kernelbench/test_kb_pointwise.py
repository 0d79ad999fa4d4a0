"""Elementwise ops of the torch stand-in against torch's CPU results: arithmetic with broadcasting and
type promotion, comparisons, math functions and every activation (torch's formulas, thresholds and
constants included)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb_compare import Arg, compare, torch  # tests/kernelbench/kb_compare.py

from volta.errors import Unsupported
from volta.kernelbench.torchsym import installed, new_run

F = "nn.functional"


def functional(t):
    return t.nn.functional


ACTIVATIONS = [
    ("relu", lambda t, x: t.relu(x)),
    ("relu6", lambda t, x: functional(t).relu6(x)),
    ("leaky_relu", lambda t, x: functional(t).leaky_relu(x, 0.01)),
    ("leaky_relu_default", lambda t, x: functional(t).leaky_relu(x)),
    ("hardtanh", lambda t, x: functional(t).hardtanh(x, -0.5, 1.5)),
    ("elu", lambda t, x: functional(t).elu(x, alpha=0.7)),
    ("selu", lambda t, x: t.selu(x)),
    ("celu", lambda t, x: functional(t).celu(x, alpha=1.3)),
    ("gelu", lambda t, x: functional(t).gelu(x)),
    ("gelu_tanh", lambda t, x: functional(t).gelu(x, approximate="tanh")),
    ("silu", lambda t, x: functional(t).silu(x)),
    ("sigmoid", lambda t, x: t.sigmoid(x)),
    ("tanh", lambda t, x: t.tanh(x)),
    ("softplus", lambda t, x: functional(t).softplus(x)),
    ("softplus_beta", lambda t, x: functional(t).softplus(x, beta=2.0, threshold=1.0)),
    ("mish", lambda t, x: functional(t).mish(x)),
    ("softsign", lambda t, x: functional(t).softsign(x)),
    ("hardsigmoid", lambda t, x: functional(t).hardsigmoid(x)),
    ("hardswish", lambda t, x: functional(t).hardswish(x)),
    ("logsigmoid", lambda t, x: functional(t).logsigmoid(x)),
    ("hardshrink", lambda t, x: functional(t).hardshrink(x, 0.7)),
    ("softshrink", lambda t, x: functional(t).softshrink(x, 0.7)),
    ("tanhshrink", lambda t, x: functional(t).tanhshrink(x)),
    ("threshold", lambda t, x: functional(t).threshold(x, 0.3, -2.0)),
    ("relu_method", lambda t, x: x.relu()),
    ("sigmoid_method", lambda t, x: x.sigmoid()),
]


@pytest.mark.parametrize("name,fn", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_matches_torch(name, fn):
    compare(fn, Arg((3, 5), lo=-4, hi=4))


def test_softplus_keeps_torchs_threshold():
    """Above the threshold softplus is x itself, exactly as torch computes it (log(1 + e^x) is not x)."""
    (out,) = compare(lambda t, x: t.nn.functional.softplus(x, threshold=0.5), Arg((4, 4), lo=-2, hi=2))
    assert any(v.op.name == "SELECT" for v in out.values())


MATH = [
    ("exp", lambda t, x: t.exp(x), -3, 3), ("exp2", lambda t, x: t.exp2(x), -3, 3),
    ("expm1", lambda t, x: t.expm1(x), -3, 3), ("log", lambda t, x: t.log(x), 0.1, 5),
    ("log2", lambda t, x: t.log2(x), 0.1, 5), ("log10", lambda t, x: t.log10(x), 0.1, 5),
    ("log1p", lambda t, x: t.log1p(x), -0.5, 5), ("sqrt", lambda t, x: t.sqrt(x), 0.1, 5),
    ("rsqrt", lambda t, x: t.rsqrt(x), 0.1, 5), ("reciprocal", lambda t, x: t.reciprocal(x), 0.5, 5),
    ("sin", lambda t, x: t.sin(x), -3, 3), ("cos", lambda t, x: t.cos(x), -3, 3),
    ("erf", lambda t, x: t.erf(x), -3, 3), ("erfc", lambda t, x: t.erfc(x), -3, 3),
    ("abs", lambda t, x: t.abs(x), -3, 3), ("neg", lambda t, x: -x, -3, 3), ("sign", lambda t, x: t.sign(x), -3, 3),
    ("square", lambda t, x: t.square(x), -3, 3), ("floor", lambda t, x: t.floor(x), -3, 3),
    ("ceil", lambda t, x: t.ceil(x), -3, 3), ("trunc", lambda t, x: t.trunc(x), -3, 3),
    ("round", lambda t, x: t.round(x), -3, 3), ("frac", lambda t, x: t.frac(x), -3, 3),
    ("pow2", lambda t, x: x ** 2, -3, 3), ("pow3", lambda t, x: t.pow(x, 3), -3, 3),
    ("pow_half", lambda t, x: x ** 0.5, 0.1, 3), ("pow_neg", lambda t, x: x ** -1.5, 0.1, 3),
    ("pow_real", lambda t, x: x ** 0.3, 0.1, 3), ("rpow2", lambda t, x: 2 ** x, -3, 3),
    ("rpow_e", lambda t, x: 3.5 ** x, -3, 3), ("clamp", lambda t, x: t.clamp(x, -1, 0.5), -3, 3),
    ("clamp_min", lambda t, x: x.clamp(min=0.2), -3, 3), ("clamp_max", lambda t, x: t.clamp_max(x, 0.2), -3, 3),
    ("clip", lambda t, x: t.clip(x, max=1.0), -3, 3),
]


@pytest.mark.parametrize("name,fn,lo,hi", MATH, ids=[m[0] for m in MATH])
def test_math_matches_torch(name, fn, lo, hi):
    compare(fn, Arg((2, 7), lo=lo, hi=hi))


shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3)


@st.composite
def broadcastable(draw):
    """Two shapes that broadcast (some dimensions 1 or missing on one side)."""
    shape = draw(shapes)
    other = [1 if draw(st.booleans()) else n for n in shape]
    cut = draw(st.integers(0, len(other)))
    a, b = (tuple(shape), tuple(other[cut:])) if draw(st.booleans()) else (tuple(other[cut:]), tuple(shape))
    return a, b


BINARY = {
    "add": lambda t, a, b: a + b, "sub": lambda t, a, b: a - b, "mul": lambda t, a, b: a * b,
    "div": lambda t, a, b: a / b, "add_alpha": lambda t, a, b: t.add(a, b, alpha=0.5),
    "sub_alpha": lambda t, a, b: t.sub(a, b, alpha=2), "maximum": lambda t, a, b: t.maximum(a, b),
    "minimum": lambda t, a, b: t.minimum(a, b), "where": lambda t, a, b: t.where(a > b, a, b * 2),
    "lt": lambda t, a, b: a < b, "ge": lambda t, a, b: a >= b, "eq": lambda t, a, b: a == b,
    "ne": lambda t, a, b: a != b, "floor_divide": lambda t, a, b: a // b, "remainder": lambda t, a, b: a % b,
    "fmod": lambda t, a, b: t.fmod(a, b), "div_floor": lambda t, a, b: t.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda t, a, b: t.div(a, b, rounding_mode="trunc"), "pow": lambda t, a, b: a.abs() ** b,
}


@settings(max_examples=25, deadline=None)
@given(broadcastable(), st.sampled_from(sorted(BINARY)))
def test_binary_broadcasting_matches_torch(pair, name):
    a, b = pair
    lo = 0.5 if name in ("floor_divide", "remainder", "fmod", "div_floor", "div_trunc", "div") else -2
    compare(BINARY[name], Arg(a), Arg(b, lo=lo, hi=3) if lo > 0 else Arg(b))


SCALARS = [
    ("radd", lambda t, x: 2.5 + x), ("rsub", lambda t, x: 1 - x), ("rmul", lambda t, x: 0.1 * x),
    ("rdiv", lambda t, x: 3 / x), ("mul_int", lambda t, x: x * 3), ("div_scalar", lambda t, x: x / 7),
    ("scalar_compare", lambda t, x: x > 0.25), ("iadd", lambda t, x: x.__iadd__(1.5)),
]


@pytest.mark.parametrize("name,fn", SCALARS, ids=[s[0] for s in SCALARS])
def test_scalar_operands_match_torch(name, fn):
    compare(fn, Arg((3, 3), lo=0.5, hi=2))


def test_integer_arithmetic_and_promotion_match_torch():
    compare(lambda t, i, j: (i // j, i % j, i * j + 1, i / j, (i * 0.5).dtype == t.float32),
            Arg((5,), "int", -9, 9), Arg((5,), "int", 1, 4))


def test_bool_mask_arithmetic_and_logic_match_torch():
    compare(lambda t, x, m: (x * m, t.where(m, x, 0.0), x.masked_fill(m, -1.0), m & (x > 0), m | ~m, m ^ (x > 0)),
            Arg((4, 4)), Arg((4, 4), "bool"))


def test_where_with_scalars_and_logical_ops_match_torch():
    compare(lambda t, x, y: (t.where(x > y, 1.0, -1.0), t.logical_and(x > 0, y > 0), t.logical_not(x > 0),
                             t.logical_xor(x > 0, y > 0)), Arg((3, 4)), Arg((4,)))


def test_inplace_ops_write_through_views():
    def fn(t, x):
        x = x.clone()
        view = x[1:, ::2]
        view.add_(1.0)
        view.mul_(2)
        x[0].relu_()
        x.clamp_(max=2.5)
        return x
    compare(fn, Arg((3, 6)))


def test_tensor_item_of_a_symbolic_value_is_unsupported():
    run = new_run()
    with installed(run) as t:
        x = t.rand(3)
        with pytest.raises(Unsupported, match="depends on the input"):
            if x.sum() > 0:
                pass
        assert t.tensor([2.0, 3.0]).sum().item() == 5.0


def test_an_unknown_op_is_unsupported_naming_it_and_the_line():
    run = new_run()
    with installed(run) as t:
        x = t.rand(3)
        with pytest.raises(Unsupported) as raised:
            t.special_entr(x)
        assert "torch.special_entr" in str(raised.value)
        assert raised.value.span.file == __file__
        with pytest.raises(Unsupported, match="Tensor.lgamma"):
            x.lgamma()


def test_torch_is_restored_after_the_stand_in():
    before = __import__("sys").modules["torch"]
    with installed(new_run()) as t:
        import torch as inside
        assert inside is t and inside is not before
    import torch as after
    assert after is before


# ---- the numerically stable softplus, log1p(exp(-|x|)) + max(x, 0), end to end ------------------------------

STABLE_PROBLEM = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.{op}(x)


def get_inputs():
    return [torch.randn(2, 4) * 10]


def get_init_inputs():
    return []
'''

STABLE_CANDIDATE = '''
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        soft = torch.log1p(torch.exp(-torch.abs(x))) + torch.clamp(x, {side}=0.0)
        return {out}
'''


def _stable(tmp_path, op: str, side: str, out: str):
    from volta.kernelbench.check import check
    (tmp_path / "problem.py").write_text(STABLE_PROBLEM.format(op=op))
    (tmp_path / "cand.py").write_text(STABLE_CANDIDATE.format(side=side, out=out))
    return check(str(tmp_path / "problem.py"), str(tmp_path / "cand.py"))


def test_stable_softplus_under_mish_is_equivalent(tmp_path):
    """torch's mish has no threshold: x·tanh(log1p(e^x)) and the stable form are one real function, proved by
    splitting on the sign of x (|x| is max(x, -x)) and reflecting log(1 + e^x) = x + log(1 + e^-x)."""
    r = _stable(tmp_path, "mish", "min", "x * torch.tanh(soft)")
    assert r.verdict == "equivalent", r.comparison
    assert set(r.comparison.proved_by) <= {"case-split", "identical"}, r.comparison.proved_by


def test_stable_softplus_with_the_wrong_clamp_is_not_equivalent(tmp_path):
    """Negative control: min(x, 0) for max(x, 0) differs by |x| on x > 0, far beyond any rounding (no note)."""
    r = _stable(tmp_path, "mish", "max", "x * torch.tanh(soft)")
    assert r.verdict == "not-equivalent"
    assert r.comparison.difference.note is None


def test_stable_softplus_with_torchs_threshold_is_softplus(tmp_path):
    """x itself above 20, the stable form below: torch's softplus exactly (the select's condition is the same,
    its arms meet by the case split)."""
    r = _stable(tmp_path, "softplus", "min", "torch.where(x > 20, x, soft)")
    assert r.verdict == "equivalent", r.comparison
    assert set(r.comparison.proved_by) <= {"case-split", "identical"}, r.comparison.proved_by


def test_stable_softplus_against_torchs_threshold_is_never_equivalent(tmp_path):
    """torch's softplus is x itself above 20; the stable form is x + log1p(e^-x) there, a real difference of
    under e^-20 relative. Never EQUIVALENT: NOT EQUIVALENT where a witness above 20 is found (then with the note
    that the difference is below float32's resolution), else UNKNOWN (the search's points are small)."""
    r = _stable(tmp_path, "softplus", "min", "soft")
    assert r.verdict in ("not-equivalent", "unknown"), r.verdict
    if r.verdict == "not-equivalent":
        assert "below float32's resolution" in r.comparison.difference.note
