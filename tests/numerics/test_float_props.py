"""Scalar and lane ops against independent references: numpy/ml_dtypes for .rn, exact Fractions otherwise."""
from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import ml_dtypes
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from volta.numerics import convert, lanes, scalar
from volta.numerics.formats import FORMATS, Rnd, decode

NP = {"f32": (np.float32, np.uint32), "f16": (np.float16, np.uint16), "bf16": (ml_dtypes.bfloat16, np.uint16)}
CANON = {"f32": 0x7FFFFFFF, "f16": 0x7FFF, "bf16": 0x7FFF}


@cache   # one strategy per format: built anew for each draw, hypothesis re-analysed it every time (a third of the file)
def words(fmt: str):
    """Uniform words, plus words biased toward subnormals, specials and nearby exponents."""
    f = FORMATS[fmt]
    width = f.width
    top = ((1 << f.exp_bits) - 1) << f.man_bits
    near = st.builds(lambda s, e, m: (s << (width - 1)) | (e << f.man_bits) | m, st.integers(0, 1),
                     st.integers(f.bias - 3, f.bias + 3), st.integers(0, (1 << f.man_bits) - 1))
    sub = st.builds(lambda s, m: (s << (width - 1)) | m, st.integers(0, 1), st.integers(0, (1 << f.man_bits) - 1))
    special = st.sampled_from([top, top | 1, top | (1 << (f.man_bits - 1)), (1 << (width - 1)) | top, 0,
                               1 << (width - 1)])
    return st.one_of(st.integers(0, (1 << width) - 1), near, sub, special)


def _np_value(w: int, fmt: str):
    ft, ut = NP[fmt]
    return np.array([w], dtype=ut).view(ft)[0]


def _np_word(x, fmt: str) -> int:
    ft, ut = NP[fmt]
    arr = np.array([x], dtype=ft)
    if np.isnan(arr[0].astype(np.float32)):
        return CANON[fmt]
    return int(arr.view(ut)[0])


def _rn_reference(op: str, a: int, b: int, fmt: str) -> int:
    """numpy/ml_dtypes compute f16/bf16 via f32, which is innocuous double rounding for + and · (p' ≥ 2p+2)."""
    x, y = _np_value(a, "f32" if fmt == "f32" else fmt), _np_value(b, fmt)
    if fmt != "f32":
        x, y = np.float32(x), np.float32(y)
        with np.errstate(all="ignore"):
            r = x + y if op == "add" else x * y
        return _np_word(np.array([r]).astype(NP[fmt][0])[0], fmt)
    with np.errstate(all="ignore"):
        r = x + y if op == "add" else x * y
    return _np_word(r, fmt)


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("op", ["add", "mul"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_rn_matches_numpy(fmt, op, data):
    a, b = data.draw(words(fmt)), data.draw(words(fmt))
    want = _rn_reference(op, a, b, fmt)
    assert getattr(scalar, op)(a, b, fmt) == want
    assert int(getattr(lanes, op)(np.array([a]), np.array([b]), fmt)[0]) == want


def _check_direction(word: int, v: Fraction, fmt: str, rnd: Rnd):
    """The result is the right neighbour of v: ≤ v for RM, ≥ v for RP, |·| ≤ |v| for RZ, and adjacent."""
    f = FORMATS[fmt]
    r = decode(word, fmt)
    if isinstance(r, float) and math.isinf(r):
        assert abs(v) > f.max_finite
        return
    r = Fraction(r)
    if rnd is Rnd.RM:
        assert r <= v
    elif rnd is Rnd.RP:
        assert r >= v
    elif rnd is Rnd.RZ:
        assert abs(r) <= abs(v)
    if r != v:  # no representable number strictly between r and v
        step = word + 1 if (r < v) != (r < 0) else word - 1
        if 0 <= step <= f.word_mask and not (step & f.sign_bit) != (word & f.sign_bit):
            n = decode(step, fmt)
            if not (isinstance(n, float) and (math.isnan(n) or math.isinf(n))):
                assert not (min(r, v) < Fraction(n) < max(r, v))


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("rnd", list(Rnd))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_fma_all_modes_against_fractions(fmt, rnd, data):
    a, b, c = (data.draw(words(fmt)) for _ in range(3))
    got = scalar.fma(a, b, c, fmt, rnd)
    assert int(lanes.fma(np.array([a]), np.array([b]), np.array([c]), fmt, rnd)[0]) == got
    vals = [decode(w, fmt) for w in (a, b, c)]
    if any(isinstance(v, float) and (math.isnan(v) or math.isinf(v)) for v in vals):
        return
    v = Fraction(vals[0]) * Fraction(vals[1]) + Fraction(vals[2])
    if v != 0:
        _check_direction(got, v, fmt, rnd)


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("rnd", list(Rnd))
@pytest.mark.parametrize("ftz", [False, True])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_lanes_equal_scalar(fmt, rnd, ftz, data):
    """Each example is a batch of up to 16 operand triples, one per lane, that `lanes` computes at once and
    `scalar` one by one: ~140 triples a case (measured) where 100 single-lane examples were mostly hypothesis and
    numpy per-call overhead (9.1 CPU s for the 30 cases), and lanes next to each other must not mix."""
    triples = data.draw(st.lists(st.tuples(words(fmt), words(fmt), words(fmt)), min_size=1, max_size=16))
    A, B, C = (np.array([t[k] for t in triples]) for k in range(3))
    ops = {"add": (lanes.add(A, B, fmt, rnd, ftz=ftz), lambda a, b, c: scalar.add(a, b, fmt, rnd, ftz=ftz)),
           "sub": (lanes.sub(A, B, fmt, rnd, ftz=ftz), lambda a, b, c: scalar.sub(a, b, fmt, rnd, ftz=ftz)),
           "mul": (lanes.mul(A, B, fmt, rnd, ftz=ftz, sat=True),
                   lambda a, b, c: scalar.mul(a, b, fmt, rnd, ftz=ftz, sat=True)),
           "fma": (lanes.fma(A, B, C, fmt, rnd, ftz=ftz), lambda a, b, c: scalar.fma(a, b, c, fmt, rnd, ftz=ftz))}
    for name, (got, one) in ops.items():
        for k, (a, b, c) in enumerate(triples):
            assert int(got[k]) == one(a, b, c), (name, a, b, c)


@pytest.mark.parametrize("rnd", list(Rnd))
@settings(max_examples=150, deadline=None)
@given(a=words("f32"), b=words("f32"))
def test_f32_add_directed_against_fractions(rnd, a, b):
    va, vb = decode(a, "f32"), decode(b, "f32")
    assume(not any(isinstance(v, float) and (math.isnan(v) or math.isinf(v)) for v in (va, vb)))
    v = Fraction(va) + Fraction(vb)
    assume(v != 0)
    _check_direction(scalar.add(a, b, "f32", rnd), v, "f32", rnd)


@pytest.mark.parametrize("dst", ["f16", "bf16"])
@settings(max_examples=200, deadline=None)
@given(w=words("f32"))
def test_cvt_rn_f32_to_half_matches_numpy(dst, w):
    x = _np_value(w, "f32")
    with np.errstate(all="ignore"):
        want = _np_word(np.array([x]).astype(NP[dst][0])[0], dst)
    assert convert.f2f(w, "f32", dst, "rn") == want


@pytest.mark.parametrize("src", ["f16", "bf16"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_cvt_half_to_f32_exact(src, data):
    w = data.draw(words(src))
    with np.errstate(all="ignore"):
        want = _np_word(np.float32(_np_value(w, src)), "f32")
    assert convert.f2f(w, src, "f32") == want


@pytest.mark.parametrize("fmt,dt", [("e4m3", ml_dtypes.float8_e4m3fn), ("e5m2", ml_dtypes.float8_e5m2),
                                    ("e3m2", ml_dtypes.float6_e3m2fn), ("e2m3", ml_dtypes.float6_e2m3fn),
                                    ("e2m1", ml_dtypes.float4_e2m1fn), ("f16", np.float16),
                                    ("bf16", ml_dtypes.bfloat16)])
def test_decode_every_word_matches_ml_dtypes(fmt, dt):
    f = FORMATS[fmt]
    for w in range(1 << f.width):
        ref = float(np.array([w], dtype=np.uint8 if f.width <= 8 else np.uint16).view(dt)[0])
        v = decode(w, fmt)
        if math.isnan(ref):
            assert isinstance(v, float) and math.isnan(v)
        else:
            assert float(v) == ref and math.copysign(1, float(v)) == math.copysign(1, ref)


@settings(max_examples=150, deadline=None)
@given(w=words("f32"), fmt=st.sampled_from(["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"]))
def test_cvt_rn_satfinite_to_small_formats_matches_ml_dtypes(w, fmt):
    x = _np_value(w, "f32")
    assume(not np.isnan(x) and not np.isinf(x))
    dt = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e3m2": ml_dtypes.float6_e3m2fn,
          "e2m3": ml_dtypes.float6_e2m3fn, "e2m1": ml_dtypes.float4_e2m1fn}[fmt]
    f = FORMATS[fmt]
    assume(abs(float(x)) <= float(f.max_finite))  # ml_dtypes does not saturate
    want = int(np.array([x]).astype(dt).view(np.uint8)[0])
    assert convert.f2f(w, "f32", fmt, "rn", satfinite=True) == want
