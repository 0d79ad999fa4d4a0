"""Semantics of the register-to-register instructions: one handler per opcode family, in a table.

A handler takes the decoded instruction and its source operands as uint64 lane arrays of bits and returns the
destination bits (a tuple for instructions with two destinations). PTX ISA §9.7.1 (integer), §9.7.3 (float),
§9.7.4 (comparison), §9.7.8 (logic/shift), §9.7.9.21 (cvt).

Floats are bit-exact: every float instruction rounds once, with its rounding modifier (`.rn` where PTX gives
none), `.ftz` flushing subnormal operands and results to zeros of the same sign, `.sat` clamping to [+0, 1]
with NaN → +0, and NaN results the canonical NaN (0x7fffffff for f32). The reference is `volta.numerics`
(exact arithmetic); this module calls its lane functions, and keeps numpy's own float32/float64 arithmetic only
where IEEE 754 makes it provably the same operation: f32/f64 add, sub, mul, div, sqrt with round-to-nearest-even
(numpy never sets FTZ/DAZ; `.ftz`, `.sat` and NaN canonicalization are applied around it), and f32 fma as an
exact float64 product plus a round-to-odd sum rounded once to float32 (Boldo & Melquiond 2008).
`.approx` instructions follow `volta.numerics.approx`: f32 ex2/lg2/rcp/rsqrt/sqrt/tanh/div and f16/bf16 ex2/tanh
as an H200's unit computes them (`volta.numerics.mufu`, tables and reduction rules), the rest RN of the float64
libm value: numpy computes it, and lanes whose value lies within 2^-30 (relative) of a rounding boundary, or
whose operand or result is special, are recomputed one by one.

Integer ops are exact for every width, with 64-bit products and quotients in uint64 arithmetic (no float
detours, no object arrays). A missing handler is `Unsupported`, never a silent default.
"""
from __future__ import annotations

import numpy as np

from volta.errors import Unsupported
import volta.numerics.approx as _approx
import volta.numerics.lanes as NL
import volta.numerics.mufu as mufu
from volta.numerics.formats import FORMATS, Rnd
from volta.semantics.bits import (  # noqa: F401  (re-exported: dispatch/machine use C.from_float etc.)
    MASKS, U64, as_float, as_int, as_uint, from_float, from_int, is_float, mask, signed, width,
)
from volta.semantics.table import TABLE, handles  # noqa: F401  (TABLE re-exported: the executor reads C.TABLE)
from volta.semantics.table import instruction_type as _t

# Called as ON_DIV_BY_ZERO(d, lane_mask) when an integer `div`/`rem` divides by zero (PTX: the result is
# unspecified). The executor may install a reporter; the value computed meanwhile is NVIDIA's (all ones / a).
ON_DIV_BY_ZERO = None


# ==== float plumbing ===========================================================================

_FMT = {".f32": "f32", ".f64": "f64", ".f16": "f16", ".bf16": "bf16", ".tf32": "tf32", ".e4m3": "e4m3",
        ".e5m2": "e5m2", ".e2m1": "e2m1", ".e2m3": "e2m3", ".e3m2": "e3m2"}
_PACKED = {".f16x2": "f16", ".bf16x2": "bf16", ".e4m3x2": "e4m3", ".e5m2x2": "e5m2"}
_VIEWABLE = frozenset({"f64", "f32", "f16", "bf16"})  # exact float64 views exist
_RND = {".rn": Rnd.RN, ".rz": Rnd.RZ, ".rm": Rnd.RM, ".rp": Rnd.RP, ".rna": Rnd.RNA}
_F32_EXP, _F32_SIGN, _F32_NAN = np.uint32(0x7F800000), np.uint32(0x80000000), np.uint32(0x7FFFFFFF)


def _fmt_of(d, t=None):
    t = t or _t(d)
    try:
        return _FMT[t]
    except KeyError:
        raise Unsupported(f"`{d.inst.opcode}`: no float semantics for type {t}") from None


def _rnd(d):
    """The instruction's float rounding; PTX: add/sub/mul/fma/mad without a modifier round to nearest even."""
    if d.rounding == ".rs":
        raise Unsupported(f"`{d.inst.opcode}`: stochastic rounding (.rs) is not modelled")
    return _RND.get(d.rounding, Rnd.RN)


def _words(bits, fmt):
    return bits.astype(NL.word_dtype(fmt))


def _u64(words):
    return np.asarray(words).astype(np.uint64)


def _halves(fn, d, fmt, *srcs):
    """f16x2/bf16x2: apply fn(d, fmt, *16-bit words) to the low and the high halves independently."""
    lo = _u64(fn(d, fmt, *(s & U64(0xFFFF) for s in srcs))) & U64(0xFFFF)
    hi = _u64(fn(d, fmt, *((s >> U64(16)) & U64(0xFFFF) for s in srcs))) & U64(0xFFFF)
    return lo | (hi << U64(16))


def _float(fn):
    """Route a float handler over its format, splitting packed x2 types into halves."""
    def handler(d, *srcs):
        t = _t(d)
        if t in _PACKED:
            return _halves(fn, d, _PACKED[t], *srcs)
        return _u64(fn(d, _fmt_of(d, t), *srcs))
    handler.__name__ = fn.__name__
    return handler


def _f32_in(bits, ftz):
    w = bits.astype(np.uint32)
    if ftz:
        w = np.where((w & _F32_EXP) == 0, w & _F32_SIGN, w)
    return w.view(np.float32)


def _f32_out(r, ftz=False, sat=False):
    """float32 results (already correctly rounded) → words with .sat, .ftz and the canonical NaN."""
    r = np.asarray(r, dtype=np.float32)
    if sat:
        with np.errstate(invalid="ignore"):
            r = np.where(r > 0, np.minimum(r, np.float32(1)), np.float32(0)).astype(np.float32)
    w = r.view(np.uint32)
    if ftz:
        w = np.where((w & _F32_EXP) == 0, w & _F32_SIGN, w)
    return np.where(np.isnan(r), _F32_NAN, w)


def _f64_out(r):
    r = np.asarray(r, dtype=np.float64)
    return np.where(np.isnan(r), U64(0x7FFFFFFFFFFFFFFF), r.view(np.uint64))


_NATIVE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
_LANES = {"add": NL.add, "sub": NL.sub, "mul": NL.mul, "div": NL.div}


def _binary(kind, d, fmt, a, b):
    """add/sub/mul/div.{rnd}{.ftz}{.sat} in one format: native where IEEE makes numpy the same op."""
    rnd, ftz, sat = _rnd(d), d.has(".ftz"), d.has(".sat")
    if d.op in ("atom", "red"):  # PTX: atom/red .add.f32 round to nearest even and flush subnormals
        rnd, ftz, sat = Rnd.RN, fmt == "f32", False
    if rnd is Rnd.RN and fmt == "f32":
        with np.errstate(all="ignore"):
            return _f32_out(_NATIVE[kind](_f32_in(a, ftz), _f32_in(b, ftz)), ftz, sat)
    if rnd is Rnd.RN and fmt == "f64" and not (ftz or sat):
        with np.errstate(all="ignore"):
            return _f64_out(_NATIVE[kind](a.view(np.float64), b.view(np.float64)))
    return _LANES[kind](_words(a, fmt), _words(b, fmt), fmt, rnd, ftz=ftz, sat=sat)


def fma32_rn(a, b, c):
    """fma.rn.f32 on float32 arrays (no ftz/sat): exact f64 product, round-to-odd sum, one rounding to f32."""
    with np.errstate(all="ignore"):
        p = a.astype(np.float64) * b.astype(np.float64)
        z = c.astype(np.float64)
        s = p + z
        bp = s - p
        err = (p - (s - bp)) + (z - bp)
        err = np.where(np.isfinite(s), err, 0.0)
        bits = s.view(np.uint64)
        fix = (err != 0) & ((bits & U64(1)) == 0)
        if fix.any():
            step = np.where(np.signbit(err) == np.signbit(s), U64(1), U64(0xFFFFFFFFFFFFFFFF))
            s = np.where(fix, bits + step, bits).view(np.float64)
        return s.astype(np.float32)


def _fma_fmt(d, fmt, a, b, c):
    rnd, ftz, sat = _rnd(d), d.has(".ftz"), d.has(".sat")
    if fmt == "f32" and rnd is Rnd.RN:
        return _f32_out(fma32_rn(_f32_in(a, ftz), _f32_in(b, ftz), _f32_in(c, ftz)), ftz, sat)
    return NL.fma(_words(a, fmt), _words(b, fmt), _words(c, fmt), fmt, rnd, ftz=ftz, sat=sat)


# ---- .approx: RN(float64 libm value), vectorized with an exact per-lane fallback near boundaries --------

def _inv(x):
    return 1.0 / x


_NP_FUNCS = {"ex2": np.exp2, "lg2": np.log2, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
             "rsqrt": lambda x: 1.0 / np.sqrt(x), "rcp": _inv, "sqrt": np.sqrt,
             "div": np.divide, "div.full": np.divide}
_EXACT_IN_F64 = frozenset({"rcp", "sqrt", "div", "div.full", "rsqrt"})  # IEEE ops, identical to Python's
_MARGIN = 2.0 ** -30


def approx(op, d, fmt, *words):
    """`op.approx{.ftz}{.sat}` as `volta.numerics.approx` documents it, vectorized over lanes."""
    ftz, sat = d.has(".ftz"), d.has(".sat")
    words = [_words(w, fmt) for w in words]
    if (op, fmt) in mufu.OPS16 and not sat:
        return mufu.evaluate16(op, fmt, words[0]).astype(words[0].dtype)
    decided = None
    if fmt == "f32" and op in mufu.OPS and not sat:  # the measured unit first; RN(libm) only for what it leaves
        hw, decided = mufu.evaluate(op, *words, ftz=ftz)
        if decided.all():
            return hw.astype(words[0].dtype)
    if fmt not in _VIEWABLE:
        return NL.approx(op, *words, fmt=fmt, ftz=ftz, sat=sat)
    xs = [NL.to_f64(NL.flush(w, fmt) if ftz else w, fmt) for w in words]
    with np.errstate(all="ignore"):
        y = _NP_FUNCS[op](*xs)
        if fmt == "f64" and op in _EXACT_IN_F64 and op != "rsqrt":
            out = _f64_out(y)
            if ftz:
                out = NL.flush(out, "f64")
            return out
        if fmt == "f64":
            return NL.approx(op, *words, fmt=fmt, ftz=ftz, sat=sat)
        r = NL.round_f64(y, fmt, Rnd.RN, ftz=ftz, sat=sat)
        slack = np.abs(y) * _MARGIN
        lo = NL.round_f64(y - slack, fmt, Rnd.RN, ftz=ftz, sat=sat)
        hi = NL.round_f64(y + slack, fmt, Rnd.RN, ftz=ftz, sat=sat)
        special = ~np.isfinite(y) | (y == 0) | (lo != r) | (hi != r)
        for x in xs:
            special |= ~np.isfinite(x) | (x == 0)
            if op in ("sin", "cos"):
                special |= np.abs(x) > 1e4
    if op in _EXACT_IN_F64 and op != "rsqrt":
        special &= ~np.isfinite(y) | (y == 0)  # one IEEE f64 op then one rounding: only specials need care
    if decided is not None:
        special &= ~decided
    if special.any():
        idx = np.nonzero(special)[0]
        r = r.copy()
        for i in idx:
            r[i] = _approx.libm_rn(op, *(int(w[i]) for w in words), fmt=fmt, ftz=ftz, sat=sat)
    return r if decided is None else np.where(decided, hw.astype(r.dtype), r)


# ==== add, sub, mul, mad, fma, div, min, max, abs, neg =========================================

@handles("add", "sub")
def _add_sub(d, a, b):
    t = _t(d)
    kind = "sub" if d.op == "sub" else "add"  # atom/red .add call this handler with their own d
    if is_float(t):
        return _float(lambda d, fmt, x, y: _binary(kind, d, fmt, x, y))(d, a, b)
    w = width(t)
    if d.has(".sat") and t == ".s32":
        x, y = as_int(a, 32).astype(np.int64), as_int(b, 32).astype(np.int64)
        v = np.clip(x + y if kind == "add" else x - y, -(1 << 31), (1 << 31) - 1)
        return from_int(v, 32)
    if d.has(".cc"):
        raise Unsupported(f"`{d.inst.opcode}`: carry flags (.cc) are not modelled")
    return mask(a + b if kind == "add" else a - b, w)


_M32 = U64(0xFFFFFFFF)


def _mulhi_u64(x, y):
    """High 64 bits of the 128-bit product of two uint64 arrays (schoolbook on 32-bit halves)."""
    xl, xh, yl, yh = x & _M32, x >> U64(32), y & _M32, y >> U64(32)
    ll, lh, hl, hh = xl * yl, xl * yh, xh * yl, xh * yh
    mid = (ll >> U64(32)) + (lh & _M32) + (hl & _M32)
    return hh + (lh >> U64(32)) + (hl >> U64(32)) + (mid >> U64(32))


def _product(d, a, b):
    """Integer mul.{lo,hi,wide}: the destination bits (width w, or 2w for .wide)."""
    t = _t(d)
    w = width(t)
    if w == 64:
        if d.has(".wide"):
            raise Unsupported(f"`{d.inst.opcode}`: mul.wide takes 16- or 32-bit operands")
        if not d.has(".hi"):
            return a * b  # low 64 bits are the same for signed and unsigned
        hi = _mulhi_u64(a, b)
        if signed(t):  # signed high part: subtract the other operand for each negative one (mod 2^64)
            hi = hi - np.where(as_int(a, 64) < 0, b, U64(0)) - np.where(as_int(b, 64) < 0, a, U64(0))
        return hi
    if signed(t):
        full = as_int(a, w).astype(np.int64) * as_int(b, w).astype(np.int64)
        if d.has(".wide"):
            return from_int(full, 2 * w)
        return from_int(full >> w if d.has(".hi") else full, w)
    full = mask(a, w) * mask(b, w)
    if d.has(".wide"):
        return mask(full, 2 * w)
    return mask(full >> U64(w) if d.has(".hi") else full, w)


@handles("mul")
def _mul(d, a, b):
    if is_float(_t(d)):
        return _float(lambda d, fmt, x, y: _binary("mul", d, fmt, x, y))(d, a, b)
    return _product(d, a, b)


@handles("mad")
def _mad(d, a, b, c):
    t = _t(d)
    if is_float(t):  # mad.f32/f64 is fma (PTX: mad.rnd.f32 is identical to fma.rnd.f32; sm_20+)
        return _float(_fma_fmt)(d, a, b, c)
    if d.has(".cc"):
        raise Unsupported(f"`{d.inst.opcode}`: carry flags (.cc) are not modelled")
    w = 2 * width(t) if d.has(".wide") else width(t)
    p = _product(d, a, b)
    if d.has(".sat") and t == ".s32" and d.has(".hi"):
        v = as_int(p, 32).astype(np.int64) + as_int(c, 32).astype(np.int64)
        return from_int(np.clip(v, -(1 << 31), (1 << 31) - 1), 32)
    return mask(p + c, w)


@handles("mul24", "mad24")
def _mul24(d, a, b, c=None):
    t = _t(d)
    x = as_int(a, 32).astype(np.int64) if signed(t) else as_uint(a, 32).astype(np.int64)
    y = as_int(b, 32).astype(np.int64) if signed(t) else as_uint(b, 32).astype(np.int64)
    x = (x << 40) >> 40 if signed(t) else x & 0xFFFFFF
    y = (y << 40) >> 40 if signed(t) else y & 0xFFFFFF
    p = x * y
    r = from_int(p >> 16 if d.has(".hi") else p, 32)
    return r if c is None else mask(r + c, 32)


@handles("sad")
def _sad(d, a, b, c):
    t = _t(d)
    w = width(t)
    if signed(t):
        x, y = as_int(a, w), as_int(b, w)
        lt = x < y
    else:
        x, y = mask(a, w), mask(b, w)
        lt = x < y
    diff = np.where(lt, mask(b - a, w), mask(a - b, w))
    return mask(c + diff, w)


@handles("fma")
def _fma(d, a, b, c):
    return _float(_fma_fmt)(d, a, b, c)


def _magnitude(bits, w, neg):
    return np.where(neg, mask(~bits + U64(1), w), mask(bits, w))


def _zero_divisor(d, y):
    zero = y == 0
    if ON_DIV_BY_ZERO is not None and zero.any():
        ON_DIV_BY_ZERO(d, zero)
    return zero


@handles("div")
def _div(d, a, b):
    t = _t(d)
    if is_float(t):
        if d.has(".approx", ".full"):
            op = "div.full" if d.has(".full") else "div"
            return _float(lambda d, fmt, x, y: approx(op, d, fmt, x, y))(d, a, b)
        return _float(lambda d, fmt, x, y: _binary("div", d, fmt, x, y))(d, a, b)
    w = width(t)
    y = mask(b, w)
    zero = _zero_divisor(d, y)
    if signed(t):
        nx, ny = as_int(a, w) < 0, as_int(b, w) < 0
        q = _magnitude(a, w, nx) // np.where(zero, U64(1), _magnitude(b, w, ny))
        q = mask(np.where(nx != ny, ~q + U64(1), q), w)
    else:
        q = mask(a, w) // np.where(zero, U64(1), y)
    return np.where(zero, MASKS[w], q)


@handles("rem")
def _rem(d, a, b):
    t = _t(d)
    w = width(t)
    y = mask(b, w)
    zero = _zero_divisor(d, y)
    if signed(t):
        nx, ny = as_int(a, w) < 0, as_int(b, w) < 0
        r = _magnitude(a, w, nx) % np.where(zero, U64(1), _magnitude(b, w, ny))
        r = mask(np.where(nx, ~r + U64(1), r), w)  # the remainder has the dividend's sign
    else:
        r = mask(a, w) % np.where(zero, U64(1), y)
    return np.where(zero, mask(a, w), r)


def _minmax_fmt(pick_max):
    def fn(d, fmt, a, b):
        ftz, nan = d.has(".ftz"), d.has(".NaN")
        if d.has(".xorsign", ".abs", ".relu"):
            raise Unsupported(f"`{d.inst.opcode}`: .xorsign/.abs/.relu min/max are not modelled")
        if fmt not in _VIEWABLE:
            return (NL.fmax if pick_max else NL.fmin)(_words(a, fmt), _words(b, fmt), fmt, ftz=ftz, nan=nan)
        wa, wb = _words(a, fmt), _words(b, fmt)
        if ftz:
            wa, wb = NL.flush(wa, fmt), NL.flush(wb, fmt)
        x, y = NL.to_f64(wa, fmt), NL.to_f64(wb, fmt)
        na, nb = np.isnan(x), np.isnan(y)
        # -0 < +0: among equal values the one with the sign bit is the smaller
        sx, sy = np.signbit(x), np.signbit(y)
        with np.errstate(invalid="ignore"):
            x_smaller = (x < y) | ((x == y) & sx & ~sy)
        take_a = ~x_smaller if pick_max else x_smaller
        take_a = np.where(na, False, np.where(nb, True, take_a))
        r = np.where(take_a, wa, wb)
        bad = (na & nb) | ((na | nb) if nan else False)
        return np.where(bad, r.dtype.type(FORMATS[fmt].canonical_nan), r)
    return fn


@handles("min")
def _min(d, a, b, c=None):
    return _minmax(d, a, b, False)


@handles("max")
def _max(d, a, b, c=None):
    return _minmax(d, a, b, True)


def _minmax(d, a, b, pick_max):
    t = _t(d)
    if is_float(t):
        return _float(_minmax_fmt(pick_max))(d, a, b)
    w = width(t)
    if d.has(".relu"):
        raise Unsupported(f"`{d.inst.opcode}`: .relu integer min/max is not modelled")
    x, y = (as_int(a, w), as_int(b, w)) if signed(t) else (mask(a, w), mask(b, w))
    take_a = (x > y) if pick_max else (x < y)
    return mask(np.where(take_a, a, b), w)


@handles("abs", "neg")
def _abs_neg(d, a):
    t = _t(d)
    if is_float(t):
        def fn(d, fmt, x):
            wx = _words(x, fmt)
            return (NL.fabs if d.op == "abs" else NL.fneg)(wx, fmt, ftz=d.has(".ftz"))
        return _float(fn)(d, a)
    w = width(t)
    x = as_int(a, w).astype(np.int64)
    return from_int(np.abs(x) if d.op == "abs" else -x, w)


@handles("copysign")
def _copysign(d, a, b):
    """copysign d, a, b: the sign of a with the magnitude of b (PTX order, the reverse of C's)."""
    w = width(_t(d))
    sign = U64(1 << (w - 1))
    return mask((b & ~sign) | (a & sign), w)


# ---- sqrt, rcp, and the .approx family ----------------------------------------------------------

def _sqrt_fmt(d, fmt, a):
    rnd, ftz = _rnd(d), d.has(".ftz")
    if rnd is Rnd.RN and fmt == "f32":
        with np.errstate(all="ignore"):
            return _f32_out(np.sqrt(_f32_in(a, ftz)), ftz)
    if rnd is Rnd.RN and fmt == "f64" and not ftz:
        with np.errstate(all="ignore"):
            return _f64_out(np.sqrt(a.view(np.float64)))
    return NL.sqrt(_words(a, fmt), fmt, rnd, ftz=ftz)


def _rcp_fmt(d, fmt, a):
    rnd, ftz = _rnd(d), d.has(".ftz")
    if rnd is Rnd.RN and fmt == "f32":
        with np.errstate(all="ignore"):
            return _f32_out(np.float32(1) / _f32_in(a, ftz), ftz)
    if rnd is Rnd.RN and fmt == "f64" and not ftz:
        with np.errstate(all="ignore"):
            return _f64_out(1.0 / a.view(np.float64))
    return NL.rcp(_words(a, fmt), fmt, rnd, ftz=ftz)


def _maybe_approx(name, exact_fn):
    def handler(d, a):
        if d.has(".approx") or exact_fn is None:
            return _float(lambda d, fmt, x: approx(name, d, fmt, x))(d, a)
        if d.rounding is None:
            raise Unsupported(f"`{d.inst.opcode}` needs .approx or a rounding modifier")
        return _float(exact_fn)(d, a)
    return handler


TABLE["sqrt"] = _maybe_approx("sqrt", _sqrt_fmt)
TABLE["rcp"] = _maybe_approx("rcp", _rcp_fmt)
for _name in ("rsqrt", "ex2", "lg2", "sin", "cos", "tanh"):
    TABLE[_name] = _maybe_approx(_name, None)


@handles("testp")
def _testp(d, a):
    fmt = _fmt_of(d)
    f = FORMATS[fmt]
    w = _words(a, fmt).astype(np.uint64)
    exp = (w >> U64(f.man_bits + f.pad)) & U64((1 << f.exp_bits) - 1)
    man = w & U64((1 << (f.man_bits + f.pad)) - 1)
    top = U64((1 << f.exp_bits) - 1)
    nan, inf = (exp == top) & (man != 0), (exp == top) & (man == 0)
    kind = next(m for m in (".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal")
                if d.has(m))
    r = {".finite": ~(nan | inf), ".infinite": inf, ".number": ~nan, ".notanumber": nan,
         ".normal": (exp != 0) & (exp != top), ".subnormal": (exp == 0) & (man != 0)}[kind]
    return r.astype(np.uint64)


# ==== comparison and selection =================================================================

_CMP = {
    ".eq": np.equal, ".ne": np.not_equal, ".lt": np.less, ".le": np.less_equal, ".gt": np.greater,
    ".ge": np.greater_equal, ".lo": np.less, ".ls": np.less_equal, ".hi": np.greater, ".hs": np.greater_equal,
}


def compare(d, a, b):
    """The boolean lane array of a `setp`/`set` comparison: float ordered compares (incl. `ne`) are false on
    NaN, the `u` forms true, `num`/`nan` test for NaN, ±0 compare equal (PTX §9.7.4.1)."""
    t = _t(d)
    cmp = d.cmp
    if is_float(t):
        if t in _PACKED:
            raise Unsupported(f"`{d.inst.opcode}`: packed setp/set (two predicates) is not modelled")
        fmt = _fmt_of(d, t)
        wa, wb = _words(a, fmt), _words(b, fmt)
        if fmt not in _VIEWABLE:
            return NL.setp(cmp.lstrip("."), wa, wb, fmt, ftz=d.has(".ftz"))
        if d.has(".ftz"):
            wa, wb = NL.flush(wa, fmt), NL.flush(wb, fmt)
        x, y = NL.to_f64(wa, fmt), NL.to_f64(wb, fmt)
        nan = np.isnan(x) | np.isnan(y)
        if cmp == ".num":
            return ~nan
        if cmp == ".nan":
            return nan
        with np.errstate(invalid="ignore"):
            if cmp.endswith("u"):
                return _CMP["." + cmp[1:-1]](x, y) | nan
            return _CMP[cmp](x, y) & ~nan
    w = width(t)
    if signed(t):
        return _CMP[cmp](as_int(a, w), as_int(b, w))
    return _CMP[cmp](mask(a, w), mask(b, w))


def combine(d, p, c):
    if d.boolop is None or c is None:
        return p
    fn = {".and": np.logical_and, ".or": np.logical_or, ".xor": np.logical_xor}[d.boolop]
    return fn(p, c != 0)


@handles("selp")
def _selp(d, a, b, c):
    return np.where(c != 0, a, b)


@handles("slct")
def _slct(d, a, b, c):
    """slct.dtype.{s32,f32} d, a, b, c: d = (c >= 0) ? a : b (-0 counts as 0; a NaN c selects b)."""
    t = d.types[-1]
    if t == ".f32":
        with np.errstate(invalid="ignore"):
            take_a = _f32_in(c, d.has(".ftz")) >= 0
    else:
        take_a = as_int(c, 32) >= 0
    return np.where(take_a, a, b)


# ==== moves and conversions ====================================================================

@handles("mov")
def _mov(d, a):
    return mask(a, width(_t(d)) if d.types else 64)


_INT_RND = {".rni": np.rint, ".rzi": np.trunc, ".rmi": np.floor, ".rpi": np.ceil}


def _relu(words, fmt):
    f = FORMATS[fmt]
    w = np.asarray(words)
    neg = (w & w.dtype.type(f.sign_bit)) != 0
    nan = np.isnan(NL.to_f64(w, fmt)) if fmt in _VIEWABLE else np.zeros(w.shape, bool)
    return np.where(neg & ~nan, w.dtype.type(0), w)


def _f2f(d, a, src, dst):
    """Float → float in one rounding (or to an integral value with .rni/.rzi/.rmi/.rpi).

    `.ftz` on cvt flushes .f32 subnormals only (PTX "cvt": it applies to .f32 sources and destinations; an f16
    subnormal widened to f32 is a normal f32 number and stays)."""
    sat, satfinite = d.has(".sat"), d.has(".satfinite")
    ftz_in, ftz = d.has(".ftz") and src == "f32", d.has(".ftz") and dst == "f32"
    wa = _words(a, src)
    if d.rounding in _INT_RND:
        if src not in _VIEWABLE or dst not in _VIEWABLE:
            raise Unsupported(f"`{d.inst.opcode}`: integral rounding between these formats is not modelled")
        x = NL.to_f64(NL.flush(wa, src) if ftz_in else wa, src)
        out = NL.round_f64(_INT_RND[d.rounding](x), dst, Rnd.RN, ftz=ftz, sat=sat)
    elif src in _VIEWABLE and dst in ("f32", "f16", "bf16", "tf32") and not satfinite:
        x = NL.to_f64(NL.flush(wa, src) if ftz_in else wa, src)
        out = NL.round_f64(x, dst, _rnd(d), ftz=ftz, sat=sat)
    elif src in _VIEWABLE and dst == "f64" and not satfinite:
        x = NL.to_f64(NL.flush(wa, src) if ftz_in else wa, src)  # widening: exact
        if sat:
            with np.errstate(invalid="ignore"):
                x = np.where(x > 0, np.minimum(x, 1.0), 0.0)
        out = _f64_out(x)
    else:
        out = NL.cvt_f2f(NL.flush(wa, src) if ftz_in else wa, src, dst, _rnd(d), ftz=ftz, sat=sat,
                         satfinite=satfinite)
    if d.has(".relu"):
        out = _relu(out, dst)
    return _u64(out)


def _f2i(d, a, src, dst_t):
    """Float → int: round as the modifier says, NaN → 0, saturate to the type's range (PTX: by default)."""
    ftz = d.has(".ftz") and src == "f32"
    wa = _words(a, src)
    w = width(dst_t)
    if src not in _VIEWABLE:
        vals = NL.cvt_f2i(wa, src, dst_t[1:], (d.rounding or ".rzi").lstrip("."), ftz=ftz)
        return from_int(vals, w) if vals.dtype.kind == "i" else mask(vals.astype(np.uint64), w)
    x = NL.to_f64(NL.flush(wa, src) if ftz else wa, src)
    with np.errstate(invalid="ignore"):
        r = _INT_RND.get(d.rounding, np.trunc)(x)
        nan = np.isnan(r)
        r = np.where(nan, 0.0, r)
        if signed(dst_t):
            lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
            big, small = r >= 2.0 ** (w - 1), r < -(2.0 ** (w - 1))
            v = np.where(big | small, 0.0, r).astype(np.int64)
            v = np.where(big, hi, np.where(small, lo, v))
            return from_int(v, w)
        big, small = r >= 2.0 ** w, r < 0
        v = np.where(big | small, 0.0, r).astype(np.uint64)
        return np.where(big, MASKS[w], np.where(small, U64(0), v))


def _i2f(d, a, src_t, dst):
    sw = width(src_t)
    rnd, sat = _rnd(d), d.has(".sat")
    v = as_int(a, sw).astype(np.int64) if signed(src_t) else mask(a, sw)
    if dst in _VIEWABLE:
        small = np.abs(v.astype(np.float64)) < 2.0 ** 53 if sw == 64 else np.ones(v.shape, bool)
        x = v.astype(np.float64)
        if dst == "f64":
            with np.errstate(invalid="ignore"):
                out = _f64_out(np.where(x > 0, np.minimum(x, 1.0), 0.0) if sat else x)
        else:
            out = NL.round_f64(x, dst, rnd, sat=sat).astype(np.uint64)
        if not small.all():
            idx = np.nonzero(~small)[0]
            out = out.astype(np.uint64)
            out[idx] = _u64(NL.cvt_i2f(mask(a[idx], sw), src_t[1:].replace("b", "u"), dst, rnd, sat=sat))
        return _u64(out)
    return _u64(NL.cvt_i2f(mask(a, sw), src_t[1:].replace("b", "u"), dst, rnd, sat=sat))


def _i2i(d, a, src_t, dst_t):
    sw, dw = width(src_t), width(dst_t)
    if signed(src_t):
        v = as_int(a, sw).astype(np.int64)
        if not d.has(".sat"):
            return from_int(v, dw)
        lo = -(1 << (dw - 1)) if signed(dst_t) else 0
        hi = (1 << (dw - 1)) - 1 if signed(dst_t) else min((1 << dw) - 1, (1 << 63) - 1)
        return from_int(np.clip(v, lo, hi), dw)
    v = mask(a, sw)
    if not d.has(".sat"):
        return mask(v, dw)
    hi = (1 << (dw - 1)) - 1 if signed(dst_t) else (1 << dw) - 1
    return np.minimum(v, U64(hi))


def convert(d, a):
    """`cvt.dtype.atype` (§9.7.9.21): float rounding/saturation, float→int saturating with NaN → 0,
    int→float rounded once, integer sign extension/truncation with optional .sat."""
    dst_t, src_t = d.types[0], d.types[-1]
    if is_float(src_t) and is_float(dst_t):
        return _f2f(d, a, _fmt_of(d, src_t), _fmt_of(d, dst_t))
    if is_float(src_t):
        return _f2i(d, a, _fmt_of(d, src_t), dst_t)
    if is_float(dst_t):
        return _i2f(d, a, src_t, _fmt_of(d, dst_t))
    return _i2i(d, a, src_t, dst_t)


@handles("cvt")
def _cvt(d, a, b=None):
    dst_t = d.types[0] if d.types else None
    if dst_t in _PACKED:
        if b is None:
            raise Unsupported(f"`{d.inst.opcode}`: packed conversion with one source is not modelled")
        half = _PACKED[dst_t]
        src = _fmt_of(d, d.types[-1])
        hw = FORMATS[half].width
        lo = _f2f(d, b, src, half) & U64((1 << hw) - 1)  # cvt.rn.f16x2.f32 d, a, b: a → upper half
        hi = _f2f(d, a, src, half) & U64((1 << hw) - 1)
        return lo | (hi << U64(hw))
    return convert(d, a)


import volta.semantics.bitops as bitops  # noqa: E402  (registers logic, shift and bit-field handlers)

bitops.install_packed16()
