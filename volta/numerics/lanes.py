"""Scalar float instructions over arrays of lanes: numpy uint word arrays in, word arrays out.

The executor keeps registers as arrays over lanes; these functions are the same ops as `scalar` (which stays
the reference) with numpy fast paths for the hot cases: add/sub/mul/fma on f32, f16 and bf16 in every rounding
mode with .ftz/.sat, and f64 add/sub/mul .rn. The fast path computes in float64, where f32-family products are
exact and TwoSum gives the exact error of a sum; the sum is then rounded to odd (its last bit records
inexactness) so that the one rounding to the target format, done by `round_f64`, is correct (Boldo & Melquiond,
"Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008). Everything else
runs the exact scalar op per lane.

API: every function takes word arrays (any unsigned/signed integer dtype, broadcastable) plus the same modifiers
as the scalar op, and returns words in `word_dtype(fmt)` (bool for `setp`).
"""
from __future__ import annotations

import numpy as np

import volta.numerics.approx as _approx
import volta.numerics.convert as _convert
import volta.numerics.scalar as _scalar
from volta.numerics.formats import Format, NanStyle, Rnd, as_rnd, get_format

_WORD_DTYPES = {4: np.uint8, 6: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
_FAST = frozenset({"f32", "f16", "bf16"})  # target formats with ≤ 24-bit significands


def word_dtype(fmt: Format | str):
    return _WORD_DTYPES[get_format(fmt).width]


def words_of(arr, fmt: Format) -> np.ndarray:
    return np.asarray(arr).astype(word_dtype(fmt))


def to_f64(words, fmt: Format | str) -> np.ndarray:
    """Exact float64 values of f64/f32/f16/bf16 words (NaN payloads are not kept)."""
    fmt = get_format(fmt)
    w = words_of(words, fmt)
    if fmt.name == "f64":
        return w.view(np.float64)
    with np.errstate(invalid="ignore"):  # signalling NaNs warn when widened
        if fmt.name == "f32":
            return w.view(np.float32).astype(np.float64)
        if fmt.name == "f16":
            return w.view(np.float16).astype(np.float64)
        if fmt.name == "bf16":
            return (w.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    raise ValueError(f"no float64 view of {fmt.name}")


def flush(words, fmt: Format | str) -> np.ndarray:
    """`.ftz` on operands: subnormal words become zeros of the same sign."""
    fmt = get_format(fmt)
    w = words_of(words, fmt)
    exp_mask = w.dtype.type((((1 << fmt.exp_bits) - 1) << (fmt.man_bits + fmt.pad)))
    sign = w.dtype.type(fmt.sign_bit)
    return np.where((w & exp_mask) == 0, w & sign, w)


def _overflow_words(neg: np.ndarray, fmt: Format, rnd: Rnd) -> np.ndarray:
    to_inf = {Rnd.RN: np.ones_like(neg), Rnd.RNA: np.ones_like(neg), Rnd.RZ: np.zeros_like(neg),
              Rnd.RP: ~neg, Rnd.RM: neg}[rnd]
    big = np.where(to_inf, fmt.inf_word if fmt.has_inf else fmt.max_word, fmt.max_word)
    if not fmt.has_inf and fmt.has_nan:
        return np.where(to_inf, fmt.canonical_nan, np.where(neg, fmt.sign_bit, 0) | fmt.max_word)
    return np.where(neg, fmt.sign_bit, 0) | big


def round_f64(x: np.ndarray, fmt: Format | str, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False,
              sat: bool = False) -> np.ndarray:
    """Round float64 values (taken as exact) to words of a format with ≤ 51-bit significands, vectorized."""
    fmt, rnd = get_format(fmt), as_rnd(rnd)
    x = np.asarray(x, dtype=np.float64)
    nan = np.isnan(x)
    if sat:
        x = np.minimum(np.maximum(np.where(nan, 0.0, x), 0.0), 1.0) + 0.0
        nan = np.zeros_like(nan)
    neg = np.signbit(x)
    ax = np.abs(x)
    inf = np.isinf(ax)
    ax = np.where(inf | nan, 0.0, ax)
    m = fmt.man_bits
    _, e = np.frexp(ax)
    qe = np.maximum(e.astype(np.int64) - 1, fmt.emin) - m
    s = np.ldexp(ax, (-qe).astype(np.int32))
    fl = np.floor(s)
    frac = s - fl
    if rnd is Rnd.RN:
        i = np.rint(s)
    elif rnd is Rnd.RNA:
        i = fl + (frac >= 0.5)
    elif rnd is Rnd.RZ:
        i = fl
    elif rnd is Rnd.RP:
        i = fl + ((frac > 0) & ~neg)
    else:
        i = fl + ((frac > 0) & neg)
    i = i.astype(np.int64)
    carry = i >> (m + 1)
    i >>= carry
    qe += carry
    exp = qe + m
    over = inf | (exp > fmt.emax) | ((exp == fmt.emax) & (i > fmt.max_significand))
    sub = i < (1 << m)
    bits = np.where(sub, i, ((exp + fmt.bias) << m) | (i - (1 << m))) << fmt.pad
    if ftz:
        bits = np.where(sub, 0, bits)
    word = np.where(neg, fmt.sign_bit, 0) | bits
    word = np.where(over, _overflow_words(neg, fmt, rnd), word)
    if fmt.has_inf:
        word = np.where(inf, np.where(neg, fmt.sign_bit, 0) | fmt.inf_word, word)
    if nan.any():
        word = np.where(nan, fmt.canonical_nan if fmt.nan_style is not NanStyle.NONE else 0, word)
    return word.astype(word_dtype(fmt))


def _two_sum_err(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Knuth's TwoSum: the exact error s - (a + b) of a float64 sum, 0 where s is not finite."""
    bp = s - a
    ap = s - bp
    err = (a - ap) + (b - bp)
    return np.where(np.isfinite(s), err, 0.0)


def _round_odd(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """Sticky rounding: an inexact sum whose last bit is even moves one ulp toward the exact value."""
    bits = s.view(np.uint64).copy()
    fix = (err != 0) & ((bits & np.uint64(1)) == 0)
    away = np.signbit(err) == np.signbit(s)
    step = np.where(away, np.uint64(1), np.uint64(0xFFFFFFFFFFFFFFFF))  # +1 or -1 in magnitude
    bits = np.where(fix, bits + step, bits)
    return bits.view(np.float64)


def _sum_rounded(p: np.ndarray, z: np.ndarray, fmt: Format, rnd: Rnd, ftz: bool, sat: bool) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + z
        err = _two_sum_err(p, z, s)
        s = _round_odd(s, err)
        if rnd is Rnd.RM:  # an exact zero sum is -0 under round-toward-minus unless both terms are +0
            s = np.where(s == 0, -((-p) + (-z)), s)
    return round_f64(s, fmt, rnd, ftz=ftz, sat=sat)


def _operands(fmt: Format, ftz: bool, *arrays):
    return [to_f64(flush(a, fmt) if ftz else a, fmt) for a in arrays]


def lanewise(op, *arrays, fmt: Format | str, out_dtype=None, **kw) -> np.ndarray:
    """Run an exact scalar op per lane: the fallback for everything without a fast path."""
    fmt = get_format(fmt)
    arrays = np.broadcast_arrays(*(np.asarray(a) for a in arrays))
    shape = arrays[0].shape
    out = np.empty(shape, dtype=out_dtype or word_dtype(fmt))
    for idx in np.ndindex(shape):
        out[idx] = op(*(int(a[idx]) for a in arrays), fmt, **kw)
    return out


def _fast_ok(fmt: Format) -> bool:
    return fmt.name in _FAST


def add(a, b, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False) -> np.ndarray:
    fmt, rnd = get_format(fmt), as_rnd(rnd)
    if fmt.name == "f64" and rnd is Rnd.RN and not sat:
        return _native64(np.add, a, b)
    if not _fast_ok(fmt):
        return lanewise(_scalar.add, a, b, fmt=fmt, rnd=rnd, ftz=ftz, sat=sat)
    x, y = _operands(fmt, ftz, a, b)
    return _sum_rounded(x, y, fmt, rnd, ftz, sat)


def sub(a, b, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False) -> np.ndarray:
    fmt = get_format(fmt)
    nb = words_of(b, fmt) ^ word_dtype(fmt)(fmt.sign_bit)  # a - b = a + (-b), NaN signs are irrelevant
    return add(a, nb, fmt, rnd, ftz=ftz, sat=sat)


def mul(a, b, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False) -> np.ndarray:
    fmt, rnd = get_format(fmt), as_rnd(rnd)
    if fmt.name == "f64" and rnd is Rnd.RN and not sat:
        return _native64(np.multiply, a, b)
    if not _fast_ok(fmt):
        return lanewise(_scalar.mul, a, b, fmt=fmt, rnd=rnd, ftz=ftz, sat=sat)
    x, y = _operands(fmt, ftz, a, b)
    with np.errstate(invalid="ignore"):
        return round_f64(x * y, fmt, rnd, ftz=ftz, sat=sat)  # f32-family products are exact in f64


def fma(a, b, c, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False) -> np.ndarray:
    """a·b + c with one rounding; f64 runs the exact scalar op per lane (no exact float128 in numpy)."""
    fmt, rnd = get_format(fmt), as_rnd(rnd)
    if not _fast_ok(fmt):
        return lanewise(_scalar.fma, a, b, c, fmt=fmt, rnd=rnd, ftz=ftz, sat=sat)
    x, y, z = _operands(fmt, ftz, a, b, c)
    with np.errstate(invalid="ignore"):
        return _sum_rounded(x * y, z, fmt, rnd, ftz, sat)


def _native64(ufunc, a, b) -> np.ndarray:
    with np.errstate(all="ignore"):
        r = ufunc(to_f64(a, "f64"), to_f64(b, "f64"))
    w = r.view(np.uint64).copy()
    w[np.isnan(r)] = np.uint64(0x7FFFFFFFFFFFFFFF)
    return w


# ------------------------------------------------------------------------ per-lane ops without a fast path

def div(a, b, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False) -> np.ndarray:
    return lanewise(_scalar.div, a, b, fmt=fmt, rnd=rnd, ftz=ftz, sat=sat)


def sqrt(a, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False) -> np.ndarray:
    return lanewise(_scalar.sqrt, a, fmt=fmt, rnd=rnd, ftz=ftz)


def rcp(a, fmt, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False) -> np.ndarray:
    return lanewise(_scalar.rcp, a, fmt=fmt, rnd=rnd, ftz=ftz)


def fmin(a, b, fmt, *, ftz: bool = False, nan: bool = False) -> np.ndarray:
    return lanewise(_scalar.fmin, a, b, fmt=fmt, ftz=ftz, nan=nan)


def fmax(a, b, fmt, *, ftz: bool = False, nan: bool = False) -> np.ndarray:
    return lanewise(_scalar.fmax, a, b, fmt=fmt, ftz=ftz, nan=nan)


def fabs(a, fmt, *, ftz: bool = False) -> np.ndarray:
    fmt = get_format(fmt)
    w = flush(a, fmt) if ftz else words_of(a, fmt)
    return w & word_dtype(fmt)(fmt.sign_bit - 1)


def fneg(a, fmt, *, ftz: bool = False) -> np.ndarray:
    fmt = get_format(fmt)
    w = flush(a, fmt) if ftz else words_of(a, fmt)
    return w ^ word_dtype(fmt)(fmt.sign_bit)


def copysign(a, b, fmt) -> np.ndarray:
    """copysign d, a, b: sign of a, magnitude of b."""
    fmt = get_format(fmt)
    dt = word_dtype(fmt)
    return (words_of(a, fmt) & dt(fmt.sign_bit)) | (words_of(b, fmt) & dt(fmt.sign_bit - 1))


def setp(op: str, a, b, fmt, *, ftz: bool = False) -> np.ndarray:
    return lanewise(lambda x, y, f, **kw: _scalar.setp(op, x, y, f, **kw), a, b, fmt=fmt, out_dtype=bool,
                    ftz=ftz)


def cvt_f2f(a, src, dst, rnd: Rnd | str = Rnd.RN, *, ftz: bool = False, sat: bool = False,
            satfinite: bool = False) -> np.ndarray:
    src_fmt, dst_fmt = get_format(src), get_format(dst)
    return lanewise(lambda w, f, **kw: _convert.f2f(w, f, dst_fmt, **kw), a, fmt=src_fmt,
                    out_dtype=word_dtype(dst_fmt), rnd=rnd, ftz=ftz, sat=sat, satfinite=satfinite)


def cvt_f2i(a, src, dst: str, rnd: str = "rni", *, ftz: bool = False) -> np.ndarray:
    """Returns int64 values (uint64 for u64); mask to the register width to store."""
    dt = np.uint64 if dst == "u64" else np.int64
    return lanewise(lambda w, f, **kw: _convert.f2i(w, f, dst, **kw), a, fmt=src, out_dtype=dt, rnd=rnd,
                    ftz=ftz)


def cvt_i2f(a, src: str, dst, rnd: Rnd | str = Rnd.RN, *, sat: bool = False) -> np.ndarray:
    dst_fmt = get_format(dst)
    arr = np.asarray(a).astype(np.uint64)
    out = np.empty(arr.shape, dtype=word_dtype(dst_fmt))
    for idx in np.ndindex(arr.shape):
        out[idx] = _convert.i2f(int(arr[idx]), src, dst_fmt, rnd, sat=sat)
    return out


def approx(op: str, *arrays, fmt="f32", ftz: bool = False, sat: bool = False) -> np.ndarray:
    """`.approx` ops per lane; see `approx.APPROX_OPS` for why these results are a documented choice."""
    return lanewise(lambda *ws, **kw: _approx.approx(op, *ws[:-1], fmt=ws[-1], **kw), *arrays, fmt=fmt,
                    ftz=ftz, sat=sat)
