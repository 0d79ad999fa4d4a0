"""Products, convolutions and pooling of the torch stand-in against torch: matmul's 1-D and batch rules,
einsum, linear, attention; conv and transposed conv (stride, padding, dilation, groups, output_padding);
max/avg/adaptive pooling (ceil_mode, count_include_pad, divisor_override, indices)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb_compare import Arg, compare  # tests/kernelbench/kb_compare.py

from volta.kernelbench.failures import TorchError
from volta.kernelbench.torchsym import installed, new_run

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
                 ((3,), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)), ((5, 2, 3), (5, 3, 1))]


@pytest.mark.parametrize("a,b", MATMUL_SHAPES)
def test_matmul_shapes_match_torch(a, b):
    compare(lambda t, x, y: (t.matmul(x, y), x @ y), Arg(a), Arg(b))


def test_mm_bmm_mv_dot_addmm_baddbmm_outer_match_torch():
    compare(lambda t, a, b, c: (t.mm(a, b), t.bmm(c, c.transpose(1, 2)), t.mv(a, b[:, 0]), t.dot(b[:, 0], b[:, 1]),
                                t.addmm(a[:, :1], a, b, beta=0.5, alpha=2), t.baddbmm(c, c, c, alpha=3),
                                t.outer(b[:, 0], b[0])),
            Arg((3, 3)), Arg((3, 3)), Arg((2, 3, 3)))


EINSUM = ["ij,jk->ik", "bij,bjk->bik", "ij->ji", "ii->i", "ij->", "i,j->ij", "bhqd,bhkd->bhqk", "...ij,...jk",
          "ijk,k->ij"]


@pytest.mark.parametrize("equation", EINSUM)
def test_einsum_matches_torch(equation):
    terms = equation.split("->")[0].split(",")
    size = {"i": 2, "j": 3, "k": 4, "b": 2, "h": 2, "q": 3, "d": 2}
    shapes = [tuple([2] if "..." in term else []) + tuple(size[c] for c in term.replace("...", "")) for term in terms]
    if equation == "ii->i":
        shapes = [(3, 3)]
    compare(lambda t, *xs: t.einsum(equation, *xs), *[Arg(s) for s in shapes])


def test_linear_and_bilinear_match_torch():
    compare(lambda t, x, w, b, w2: (t.nn.functional.linear(x, w, b), t.nn.functional.linear(x, w),
                                    t.nn.functional.bilinear(x, x, w2)),
            Arg((2, 4)), Arg((3, 4)), Arg((3,)), Arg((2, 4, 4)))


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_product_attention_matches_torch(causal):
    compare(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal),
            Arg((2, 2, 3, 4)), Arg((2, 2, 3, 4)), Arg((2, 2, 3, 4)))


def test_scaled_dot_product_attention_with_scale_and_float_mask_matches_torch():
    compare(lambda t, q, k, v, m: t.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3),
            Arg((1, 2, 3, 4)), Arg((1, 2, 5, 4)), Arg((1, 2, 5, 2)), Arg((3, 5)))


@st.composite
def conv_case(draw, transposed: bool):
    nd = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 2]))
    cin = groups * draw(st.integers(1, 2))
    cout = groups * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    padding = tuple(draw(st.integers(0, 2)) for _ in range(nd))
    spatial = tuple(draw(st.integers(max(1, d * (k - 1) + 1 - 2 * p), 5)) for k, d, p in zip(kernel, dilation, padding))
    extra = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation)) if transposed else None
    bias = draw(st.booleans())
    batch = draw(st.integers(1, 2))
    return nd, groups, cin, cout, kernel, stride, dilation, padding, spatial, extra, bias, batch


@settings(max_examples=30, deadline=None)
@given(conv_case(transposed=False))
def test_conv_matches_torch(case):
    nd, groups, cin, cout, kernel, stride, dilation, padding, spatial, _, bias, batch = case
    conv = f"conv{nd}d"
    args = [Arg((batch, cin) + spatial), Arg((cout, cin // groups) + kernel)] + ([Arg((cout,))] if bias else [])
    compare(lambda t, x, w, *b: getattr(t.nn.functional, conv)(x, w, b[0] if b else None, stride, padding, dilation,
                                                               groups), *args)


@settings(max_examples=30, deadline=None)
@given(conv_case(transposed=True))
def test_conv_transpose_matches_torch(case):
    nd, groups, cin, cout, kernel, stride, dilation, padding, spatial, extra, bias, batch = case
    conv = f"conv_transpose{nd}d"
    out = [(s - 1) * st_ - 2 * p + d * (k - 1) + e + 1 for s, st_, p, d, k, e in
           zip(spatial, stride, padding, dilation, kernel, extra)]
    if min(out) <= 0:
        return
    args = [Arg((batch, cin) + spatial), Arg((cin, cout // groups) + kernel)] + ([Arg((cout,))] if bias else [])
    compare(lambda t, x, w, *b: getattr(t.nn.functional, conv)(x, w, b[0] if b else None, stride, padding, extra,
                                                               groups, dilation), *args)


@pytest.mark.parametrize("padding", ["same", "valid"])
def test_conv_string_padding_matches_torch(padding):
    compare(lambda t, x, w: t.nn.functional.conv2d(x, w, padding=padding, dilation=(1, 2)),
            Arg((1, 2, 5, 6)), Arg((3, 2, 2, 3)))


def test_unbatched_conv_matches_torch():
    compare(lambda t, x, w: t.nn.functional.conv1d(x, w, padding=1), Arg((2, 5)), Arg((3, 2, 3)))


def test_conv_with_a_too_small_input_is_torchs_error():
    with installed(new_run()) as t:
        with pytest.raises(TorchError, match="too small"):
            t.nn.functional.conv2d(t.rand(1, 1, 2, 2), t.rand(1, 1, 3, 3))


@st.composite
def pool_case(draw):
    nd = draw(st.integers(1, 3))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    spatial = tuple(draw(st.integers(k, 6)) for k in kernel)
    return nd, kernel, stride, padding, spatial, draw(st.booleans())


@settings(max_examples=30, deadline=None)
@given(pool_case(), st.integers(1, 2))
def test_max_pool_matches_torch(case, dilation):
    nd, kernel, stride, padding, spatial, ceil = case
    if any(p * 2 > dilation * (k - 1) + 1 for p, k in zip(padding, kernel)) or \
            any(dilation * (k - 1) + 1 > s + 2 * p for k, s, p in zip(kernel, spatial, padding)):
        return
    op = f"max_pool{nd}d"
    compare(lambda t, x: tuple(getattr(t.nn.functional, op)(x, kernel, stride, padding, dilation, ceil_mode=ceil,
                                                            return_indices=True)),
            Arg((2, 2) + spatial, "int", 0, 4))


@settings(max_examples=30, deadline=None)
@given(pool_case(), st.booleans(), st.sampled_from([None, 3]))
def test_avg_pool_matches_torch(case, include_pad, divisor):
    nd, kernel, stride, padding, spatial, ceil = case
    op = f"avg_pool{nd}d"
    extra = {} if nd == 1 else {"divisor_override": divisor}
    compare(lambda t, x: getattr(t.nn.functional, op)(x, kernel, stride, padding, ceil, include_pad, **extra),
            Arg((2, 1) + spatial))


@pytest.mark.parametrize("nd,size,out", [(1, (7,), 3), (2, (5, 6), (2, 4)), (2, (5, 6), 1), (3, (3, 4, 5), (2, 1, 3)),
                                         (2, (4, 4), (None, 2))])
def test_adaptive_pools_match_torch(nd, size, out):
    compare(lambda t, x: (getattr(t.nn.functional, f"adaptive_avg_pool{nd}d")(x, out),
                          getattr(t.nn.functional, f"adaptive_max_pool{nd}d")(x, out)), Arg((2, 2) + size))


def test_adaptive_max_pool_indices_match_torch():
    """Floored values make ties: the first maximal position wins, as in torch."""
    compare(lambda t, x: tuple(t.nn.functional.adaptive_max_pool2d(x.floor(), (2, 3), return_indices=True)),
            Arg((1, 2, 5, 7), lo=0, hi=3))
