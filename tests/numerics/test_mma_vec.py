"""The vectorized MMA model equals the exact oracle bit for bit on random tiles with specials and subnormals."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.errors import UsageError
from volta.numerics.formats import FORMATS
from volta.numerics.formats import Rnd
from volta.numerics.mma_model import (HOPPER_FP8_PTXAS_12_4, HOPPER_WGMMA_FP8, PARAMS, MmaParams, mma_dot,
                                     mma_tile)
from volta.numerics.mma_vec import mma, mma_batch

ROWS = [(arch, i, a) for arch, rows in PARAMS.items() for (i, a) in rows if i != "f64"]


def _words(rng, fmt_name, shape, specials):
    """Words near 1.0 (so cancellation and truncation happen), some subnormal, zero, and optionally inf/NaN."""
    f = FORMATS[fmt_name]
    spread = int(rng.integers(1, 6))
    e = rng.integers(max(f.bias - spread, 1), f.bias + spread, size=shape)
    m = rng.integers(0, 1 << f.man_bits, size=shape)
    s = rng.integers(0, 2, size=shape)
    w = (s << (f.width - 1)) | (e << (f.man_bits + f.pad)) | (m << f.pad)
    sub = rng.random(shape) < 0.1
    w[sub] &= (1 << (f.width - 1)) | ((1 << (f.man_bits + f.pad)) - 1)
    w[rng.random(shape) < 0.1] = 0
    raw = rng.random(shape) < 0.1
    w[raw] = rng.integers(0, 1 << f.width, size=int(raw.sum()))
    if not specials:
        top = ((1 << f.exp_bits) - 1) << (f.man_bits + f.pad)
        w[(w & top) == top] &= ~(1 << (f.man_bits + f.pad))
    return w.astype(np.int64)


@pytest.mark.parametrize("arch,in_fmt,acc_fmt", ROWS)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), specials=st.booleans())
def test_vectorized_equals_oracle(arch, in_fmt, acc_fmt, seed, specials):
    rng = np.random.default_rng(seed)
    M, N, K = 3, 3, int(rng.integers(1, 70))
    A = _words(rng, in_fmt, (M, K), specials)
    B = _words(rng, in_fmt, (K, N), specials)
    C = _words(rng, acc_fmt, (M, N), specials)
    want = np.array(mma_tile(A.tolist(), B.tolist(), C.tolist(), arch, in_fmt, acc_fmt))
    assert (mma(A, B, C, arch, in_fmt, acc_fmt) == want).all()
    batch = mma_batch(np.repeat(A, N, axis=0), np.tile(B.T, (M, 1)), C.ravel(), arch, in_fmt, acc_fmt)
    assert (batch.reshape(M, N) == want).all()


# Rows that no architecture uses, so that every structure parameter is exercised in both models: directed
# roundings (f32 and f16 accumulators), a directed c_after (the scalar fallback), a split with three passes,
# cut14 with c after, an operand conversion to bf16, and passes summed instead of chained (the Hopper fp8 row of
# ptxas 12.4-12.6, the same with directed sums of three passes) — plus the wgmma row, which PARAMS does not hold.
VARIANTS = [
    ("f16", "f16", MmaParams(16, 25, -21, Rnd.RZ)),
    ("f16", "f16", MmaParams(8, 24, -20, Rnd.RP)),
    ("bf16", "f32", MmaParams(16, 25, -133, Rnd.RN)),
    ("bf16", "f32", MmaParams(8, 24, None, Rnd.RM)),
    ("e4m3", "f32", MmaParams(16, 25, -133, Rnd.RZ, inst_k=32, c_after=Rnd.RZ)),
    ("e5m2", "f16", MmaParams(8, 25, -21, Rnd.RN, inst_k=32, c_after=Rnd.RP, split_mod=4,
                              k_split=((3,), (0, 2), (1,)), operand_fmt="f16")),
    ("e4m3", "f32", MmaParams(16, 13, None, Rnd.RZ, cut14=True, inst_k=32, c_after=Rnd.RN)),
    ("e4m3", "f32", MmaParams(4, 25, -133, Rnd.RZ, operand_fmt="bf16")),
    ("e4m3", "f32", HOPPER_FP8_PTXAS_12_4),
    ("e5m2", "f32", HOPPER_FP8_PTXAS_12_4),
    ("e4m3", "f32", HOPPER_WGMMA_FP8),
    ("e5m2", "f16", MmaParams(8, 25, -21, Rnd.RN, inst_k=32, c_after=Rnd.RN, split_mod=4,
                              k_split=((3,), (0, 2), (1,)), operand_fmt="f16", pass_sum=Rnd.RP)),
]


@pytest.mark.parametrize("in_fmt,acc_fmt,p", VARIANTS, ids=[f"v{i}-{v[0]}-{v[1]}" for i, v in enumerate(VARIANTS)])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), specials=st.booleans())
def test_vectorized_equals_oracle_param_variants(in_fmt, acc_fmt, p, seed, specials):
    rng = np.random.default_rng(seed)
    M, N, K = 2, 3, int(rng.integers(1, 70))
    A = _words(rng, in_fmt, (M, K), specials)
    B = _words(rng, in_fmt, (K, N), specials)
    C = _words(rng, acc_fmt, (M, N), specials)
    want = np.array(mma_tile(A.tolist(), B.tolist(), C.tolist(), "hopper", in_fmt, acc_fmt, params=p))
    assert (mma(A, B, C, "hopper", in_fmt, acc_fmt, params=p) == want).all()
    batch = mma_batch(np.repeat(A, N, axis=0), np.tile(B.T, (M, 1)), C.ravel(), "hopper", in_fmt, acc_fmt, params=p)
    assert (batch.reshape(M, N) == want).all()


def test_zero_result_is_positive_zero():
    assert mma_dot([0xBF80, 0x3F80], [0x3F80, 0x3F80], 0, "hopper", "bf16", "f32") == 0
    assert mma_dot([0x8000], [0x3F80], 0x80000000, "hopper", "bf16", "f32") == 0


def test_nan_and_inf_rules():
    inf, ninf, nan = 0x7F80, 0xFF80, 0x7FC0
    assert mma_dot([inf, 0], [0x3F80, 0], 0, "ampere", "bf16", "f32") == 0x7F800000
    assert mma_dot([inf], [0], 0, "ampere", "bf16", "f32") == 0x7FFFFFFF  # inf·0
    assert mma_dot([inf, ninf], [0x3F80, 0x3F80], 0, "ampere", "bf16", "f32") == 0x7FFFFFFF
    assert mma_dot([nan], [0x3F80], 0, "ampere", "bf16", "f32") == 0x7FFFFFFF
    assert mma_dot([ninf], [0x3F80], 0x7F800000, "hopper", "bf16", "f32") == 0x7FFFFFFF


def test_tf32_low_bits_ignored():
    a = 0x3F800000 | 0x1FFF
    assert mma_dot([a], [0x3F800000], 0, "ampere", "tf32", "f32") == 0x3F800000


def test_f64_is_ieee_fma_chain():
    one, third = 0x3FF0000000000000, 0x3FD5555555555555
    got = mma(np.array([[third]], dtype=np.uint64), np.array([[0x4008000000000000]], dtype=np.uint64),
              np.array([[0xBFF0000000000000]], dtype=np.uint64), "ampere", "f64", "f64")
    assert int(got[0, 0]) == 0xBC90000000000000  # fma(1/3, 3, -1) = -2^-54 exactly
    assert one  # keeps the constant documented


@pytest.mark.parametrize("args", [("pascal", "bf16", "f32"), ("volta", "bf16", "f32"), ("ampere", "e4m3", "f32"),
                                  ("hopper", "f99", "f32")])
def test_unknown_rows_are_usage_errors(args):
    with pytest.raises(UsageError):
        mma_dot([0], [0], 0, *args)


def test_bad_shapes_and_words():
    with pytest.raises(UsageError):
        mma(np.zeros((2, 3), int), np.zeros((4, 2), int), np.zeros((2, 2), int), "hopper", "bf16", "f32")
    with pytest.raises(UsageError):
        mma(np.full((1, 1), 1 << 16), np.zeros((1, 1), int), np.zeros((1, 1), int), "hopper", "bf16", "f32")
