"""Reductions and scans of the torch stand-in against torch: dims, keepdim, indices (first extreme wins),
variance corrections, softmax/log_softmax/logsumexp, norms, cumulative ops."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb_compare import Arg, compare  # tests/kernelbench/kb_compare.py

REDUCTIONS = {
    "sum": lambda t, x, d, k: t.sum(x, d, keepdim=k),
    "mean": lambda t, x, d, k: x.mean(d, keepdim=k),
    "prod": lambda t, x, d, k: t.prod(x, d[0], keepdim=k),
    "amax": lambda t, x, d, k: t.amax(x, d, keepdim=k),
    "amin": lambda t, x, d, k: x.amin(d, keepdim=k),
    "max_dim": lambda t, x, d, k: tuple(t.max(x, d[0], keepdim=k)),
    "min_dim": lambda t, x, d, k: tuple(x.min(dim=d[0], keepdim=k)),
    "argmax": lambda t, x, d, k: t.argmax(x, d[0], keepdim=k),
    "argmin": lambda t, x, d, k: x.argmin(dim=d[0], keepdim=k),
    "var": lambda t, x, d, k: t.var(x, d, keepdim=k),
    "var_biased": lambda t, x, d, k: x.var(d, unbiased=False, keepdim=k),
    "std": lambda t, x, d, k: t.std(x, d, correction=0, keepdim=k),
    "logsumexp": lambda t, x, d, k: t.logsumexp(x, d, keepdim=k),
    "norm2": lambda t, x, d, k: t.norm(x, dim=d[:2], keepdim=k),   # torch.norm takes one or two dims
    "norm1": lambda t, x, d, k: t.norm(x, p=1, dim=d, keepdim=k),
    "softmax": lambda t, x, d, k: t.softmax(x, d[0]),
    "log_softmax": lambda t, x, d, k: t.log_softmax(x, dim=d[0]),
    "cumsum": lambda t, x, d, k: t.cumsum(x, d[0]),
    "cumprod": lambda t, x, d, k: x.cumprod(d[0]),
    "cummax": lambda t, x, d, k: tuple(t.cummax(x, d[0])),
}


@st.composite
def shape_and_dims(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    dims = draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape), unique_by=lambda
                         d: d % len(shape)))
    return shape, tuple(dims)


@settings(max_examples=40, deadline=None)
@given(shape_and_dims(), st.booleans(), st.sampled_from(sorted(REDUCTIONS)))
def test_reduction_matches_torch(case, keepdim, name):
    shape, dims = case
    if name.startswith("var") or name == "std":
        if all(shape[d] == 1 for d in dims) and name == "var":
            return                                   # one element: torch's unbiased variance is NaN
    compare(lambda t, x: REDUCTIONS[name](t, x, dims, keepdim), Arg(shape, lo=0.1, hi=2))


def test_whole_tensor_reductions_match_torch():
    compare(lambda t, x: (x.sum(), t.mean(x), x.max(), t.min(x), t.argmax(x), x.argmin(), t.prod(x), x.std(),
                          t.norm(x), x.norm(p="fro"), t.all(x > -5), t.any(x > 1.9), t.count_nonzero(x > 0)),
            Arg((3, 4), lo=0.5, hi=2))


def test_argmax_and_max_indices_take_the_first_of_equal_extremes():
    """Integer-valued inputs with many ties: torch returns the first index of the extreme."""
    compare(lambda t, x: (t.argmax(x, 1), t.argmin(x, 1), t.max(x, 1).indices, t.min(x, 0).indices),
            Arg((6, 5), "int", 0, 3))


def test_cummax_ties_match_torch():
    compare(lambda t, x: tuple(t.cummax(x, 1)) + tuple(t.cummin(x, 0)), Arg((4, 6), "int", 0, 3))


def test_cumsum_reverse_and_exclusive_forms_match_torch():
    compare(lambda t, x: (t.cumsum(x.flip(1), 1).flip(1),
                          t.cumsum(t.cat((t.zeros_like(x[:, :1]), x), dim=1), dim=1)[:, :-1]), Arg((3, 5)))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family_matches_torch(dim):
    compare(lambda t, x: (t.softmax(x, dim), t.nn.functional.softmax(x, dim=dim), x.log_softmax(dim),
                          t.nn.functional.softmin(x, dim=dim)), Arg((3, 4), lo=-5, hi=5))


class _Outputs:
    def __init__(self, values):
        self._values, self.shape = values, (len(values),)

    def values(self):
        return self._values


def _compare_max(seed: Fraction):
    from volta.config import IntegerInputs
    from volta.kernelbench.compare import compare as decide
    from volta.kernelbench.isolation.verify import _Evaluated
    from volta.symbolic import expr as E

    xs = [E.var("x", i) for i in range(3)]
    torch_max = E.maximum(E.maximum(xs[0], xs[1]), xs[2])
    sentinel = E.maximum(E.maximum(E.maximum(E.const(seed), xs[0]), xs[1]), xs[2])
    return decide([_Outputs([torch_max])], [_Outputs([sentinel])], _Evaluated(IntegerInputs.of({})), 10_000)


def test_a_max_seeded_below_every_float32_is_torch_s_max():
    """-FLT_MAX as the seed: equal for every input a float32 tensor holds (Z3 is told each input is a finite
    float32); over all reals it differs below -FLT_MAX, which no input can be (it was UNKNOWN)."""
    flt_max = Fraction(2 ** 128 - 2 ** 104)
    assert _compare_max(-flt_max).verdict == "equivalent"


def test_a_max_seeded_at_minus_1e38_differs_at_a_float32_input():
    """-1e38f as the seed: torch's max differs only below it; the witness is a float32 there (the solver's
    -1e38f - 1 is none), and exact evaluation confirms it."""
    seed = Fraction(float(np.float32(-1e38)))
    got = _compare_max(seed)
    assert got.verdict == "not-equivalent"
    values = list(got.difference.inputs["x"].values())
    assert all(Fraction(float(np.float32(float(v)))) == v for v in values), values
    assert got.difference.ref_value != got.difference.cand_value
    assert min(values) < seed
