"""Semantics of the register-to-register instructions: one handler per opcode family, in a table.

A handler takes the decoded instruction and its source operands as uint64 lane arrays of bits
and returns the destination bits (a tuple for instructions with two destinations). PTX ISA §9.7.1
(integer), §9.7.3 (float), §9.7.4 (comparison), §9.7.8 (logic/shift), §9.7.9.21 (cvt).
Floats are IEEE through numpy; f32 NaN results are the canonical 0x7fffffff.
A missing handler is `Unsupported`, never a silent default.
"""
from __future__ import annotations

import numpy as np

from volta.semantics.bits import (
    MASKS, U64, as_float, as_int, as_uint, from_float, from_int, is_float, mask, signed, width,
)

TABLE = {}


def handles(*names):
    def register(fn):
        for n in names:
            TABLE[n] = fn
        return fn
    return register


def _t(d):
    return d.types[-1] if d.types else ".b32"


def _fl(d, bits, t=None):
    return as_float(bits, t or _t(d))


def _out_f(d, values, t=None):
    t = t or _t(d)
    if d.has(".sat"):
        values = np.where(np.isnan(values), 0, np.clip(values, 0, 1))
    if d.has(".ftz") and t == ".f32":
        tiny = np.abs(values) < np.float32(1.1754944e-38)
        values = np.where(tiny & (values != 0), np.copysign(np.float32(0), values), values)
    bits = from_float(values, t)
    if t == ".f32":
        bits = np.where(np.isnan(values), U64(0x7FFFFFFF), bits)
    return bits


def _ftz_in(d, x):
    if d.has(".ftz") and x.dtype == np.float32:
        tiny = np.abs(x) < np.float32(1.1754944e-38)
        return np.where(tiny, np.copysign(np.float32(0), x), x)
    return x


def _pairwise(d, fn, *srcs):
    """f16x2 / bf16x2: apply fn to the low and high halves."""
    base = ".f16" if d.type == ".f16x2" else ".bf16"
    halves = []
    for shift in (0, 16):
        args = [_ftz_in(d, as_float((s >> U64(shift)) & U64(0xFFFF), base).astype(np.float32)) for s in srcs]
        halves.append(from_float(fn(*args), base) & U64(0xFFFF))
    return halves[0] | (halves[1] << U64(16))


def _float_op(fn):
    def handler(d, *srcs):
        t = _t(d)
        if t in (".f16x2", ".bf16x2"):
            return _pairwise(d, fn, *srcs)
        xs = [_ftz_in(d, _fl(d, s)) for s in srcs]
        with np.errstate(all="ignore"):
            return _out_f(d, fn(*xs))
    return handler


def _fma(a, b, c):
    if a.dtype == np.float32:  # exact product in f64, one more rounding: numerics owns the exact version
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
    return a * b + c


# ---- add, sub, mul, mad, div, min, max, abs, neg ---------------------------------------------

@handles("add", "sub")
def _add_sub(d, a, b):
    t = _t(d)
    if is_float(t):
        return _float_op(np.add if d.op == "add" else np.subtract)(d, a, b)
    w = width(t)
    r = a + b if d.op == "add" else a - b
    if d.has(".sat") and t == ".s32":
        x = as_int(a, 32).astype(np.int64)
        y = as_int(b, 32).astype(np.int64)
        v = np.clip(x + y if d.op == "add" else x - y, -(1 << 31), (1 << 31) - 1)
        return from_int(v, 32)
    return mask(r, w)


def _mul_parts(d, a, b):
    t = _t(d)
    w = width(t)
    if signed(t):
        x, y = as_int(a, w).astype(object if w == 64 else np.int64), as_int(b, w).astype(object if w == 64 else np.int64)
    else:
        x, y = as_uint(a, w).astype(object if w == 64 else np.uint64), as_uint(b, w).astype(object if w == 64 else np.uint64)
    return x * y, w


def _product_bits(d, a, b):
    full, w = _mul_parts(d, a, b)
    if d.has(".wide"):
        return _to_bits(full, 2 * w)
    if d.has(".hi"):
        return _to_bits(full >> w if full.dtype == object else (full.astype(np.int64) >> w if signed(_t(d)) else full >> U64(w)), w)
    return _to_bits(full, w)


def _to_bits(values, w):
    if values.dtype == object:
        m = (1 << w) - 1
        return np.array([int(v) & m for v in values], dtype=np.uint64)
    return from_int(values, w) if values.dtype.kind == "i" else mask(values.astype(np.uint64), w)


@handles("mul")
def _mul(d, a, b):
    if is_float(_t(d)):
        return _float_op(np.multiply)(d, a, b)
    return _product_bits(d, a, b)


@handles("mad")
def _mad(d, a, b, c):
    t = _t(d)
    if is_float(t):
        return _float_op(_fma)(d, a, b, c)
    p = _product_bits(d, a, b)
    return mask(p + c, 2 * width(t) if d.has(".wide") else width(t))


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


@handles("fma")
def _fma_h(d, a, b, c):
    return _float_op(_fma)(d, a, b, c)


@handles("div")
def _div(d, a, b):
    t = _t(d)
    if is_float(t):
        return _float_op(np.divide)(d, a, b)
    w = width(t)
    if signed(t):
        x, y = as_int(a, w).astype(np.int64), as_int(b, w).astype(np.int64)
        safe = np.where(y == 0, 1, y)
        q = np.abs(x) // np.abs(safe) * np.sign(x) * np.sign(safe)
        return from_int(np.where(y == 0, -1, q), w)
    x, y = as_uint(a, w), as_uint(b, w)
    return mask(np.where(y == 0, ~np.zeros_like(x), x // np.where(y == 0, 1, y)).astype(np.uint64), w)


@handles("rem")
def _rem(d, a, b):
    t = _t(d)
    w = width(t)
    if signed(t):
        x, y = as_int(a, w).astype(np.int64), as_int(b, w).astype(np.int64)
        safe = np.where(y == 0, 1, y)
        r = np.fmod(x, safe)
        return from_int(np.where(y == 0, x, r), w)
    x, y = as_uint(a, w), as_uint(b, w)
    return mask(np.where(y == 0, x, x % np.where(y == 0, 1, y)).astype(np.uint64), w)


def _minmax(d, a, b, pick):
    t = _t(d)
    if is_float(t):
        def fn(x, y):
            r = pick(x, y) if not d.has(".NaN") else (np.maximum(x, y) if pick is np.fmax else np.minimum(x, y))
            # -0 < +0 for min/max
            zero = (x == 0) & (y == 0)
            signed_pick = np.where(pick is np.fmin, np.signbit(x) | np.signbit(y), np.signbit(x) & np.signbit(y))
            return np.where(zero, np.copysign(np.zeros_like(x), np.where(signed_pick, -1, 1)), r)
        return _float_op(fn)(d, a, b)
    w = width(t)
    conv = (lambda v: as_int(v, w)) if signed(t) else (lambda v: as_uint(v, w))
    base = np.minimum if pick is np.fmin else np.maximum
    r = base(conv(a), conv(b))
    return from_int(r, w) if signed(t) else mask(r.astype(np.uint64), w)


@handles("min")
def _min(d, a, b, c=None):
    return _minmax(d, a, b, np.fmin)


@handles("max")
def _max(d, a, b, c=None):
    return _minmax(d, a, b, np.fmax)


@handles("abs", "neg")
def _abs_neg(d, a):
    t = _t(d)
    if is_float(t):
        w = width(t) if t not in (".f16x2", ".bf16x2") else 32
        sign = U64(1 << (w - 1)) if t not in (".f16x2", ".bf16x2") else U64(0x80008000)
        return (a & ~sign) & MASKS[w] if d.op == "abs" else (a ^ sign) & MASKS[w]
    w = width(t)
    x = as_int(a, w).astype(np.int64)
    return from_int(np.abs(x) if d.op == "abs" else -x, w)


@handles("copysign")
def _copysign(d, a, b):
    w = width(_t(d))
    sign = U64(1 << (w - 1))
    return (b & ~sign) | (a & sign)


# ---- transcendental approximations (not bit-specified: computed in f64, rounded once) -------

def _unary(fn):
    return lambda d, a: _float_op(fn)(d, a)


with np.errstate(all="ignore"):
    TABLE["sqrt"] = _unary(np.sqrt)
    TABLE["rsqrt"] = _unary(lambda x: (1.0 / np.sqrt(x.astype(np.float64))).astype(x.dtype))
    TABLE["rcp"] = _unary(lambda x: (1.0 / x.astype(np.float64)).astype(x.dtype))
    TABLE["ex2"] = _unary(lambda x: np.exp2(x.astype(np.float64)).astype(x.dtype))
    TABLE["lg2"] = _unary(lambda x: np.log2(x.astype(np.float64)).astype(x.dtype))
    TABLE["sin"] = _unary(lambda x: np.sin(x.astype(np.float64)).astype(x.dtype))
    TABLE["cos"] = _unary(lambda x: np.cos(x.astype(np.float64)).astype(x.dtype))
    TABLE["tanh"] = _unary(lambda x: np.tanh(x.astype(np.float64)).astype(x.dtype))


# ---- logic and shifts ------------------------------------------------------------------------

@handles("and", "or", "xor")
def _logic(d, a, b):
    fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[d.op]
    return mask(fn(a, b), width(_t(d)))


@handles("not")
def _not(d, a):
    return mask(~a, width(_t(d)))


@handles("cnot")
def _cnot(d, a):
    return np.where(mask(a, width(_t(d))) == 0, U64(1), U64(0))


@handles("shl")
def _shl(d, a, b):
    w = width(_t(d))
    n = np.minimum(as_uint(b, 32).astype(np.uint64), U64(w))
    return np.where(n >= w, U64(0), mask(a << np.minimum(n, U64(63)), w))


@handles("shr")
def _shr(d, a, b):
    t = _t(d)
    w = width(t)
    n = np.minimum(as_uint(b, 32).astype(np.int64), w)
    if signed(t):
        x = as_int(a, w).astype(np.int64)
        return from_int(x >> np.minimum(n, 63), w)
    return np.where(n >= w, U64(0), mask(a, w) >> np.minimum(n, 63).astype(np.uint64))


@handles("shf")
def _shf(d, a, b, c):
    n = as_uint(c, 32).astype(np.uint64)
    n = np.minimum(n, U64(32)) if d.has(".clamp") else n & U64(31)
    wide = (mask(b, 32) << U64(32)) | mask(a, 32)
    if d.has(".l"):
        return mask((wide << n) >> U64(32), 32)
    return mask(wide >> n, 32)


@handles("lop3")
def _lop3(d, a, b, c, lut):
    lut = lut.astype(np.uint64)
    out = np.zeros_like(a)
    for bit in range(32):
        idx = (((a >> U64(bit)) & U64(1)) << U64(2)) | (((b >> U64(bit)) & U64(1)) << U64(1)) | ((c >> U64(bit)) & U64(1))
        out |= ((lut >> idx) & U64(1)) << U64(bit)
    return out


@handles("popc")
def _popc(d, a):
    x = mask(a, width(_t(d)))
    count = np.zeros_like(x)
    for bit in range(width(_t(d))):
        count += (x >> U64(bit)) & U64(1)
    return count


@handles("clz")
def _clz(d, a):
    w = width(_t(d))
    x = mask(a, w)
    n = np.full(x.shape, w, dtype=np.uint64)
    for bit in range(w):
        n = np.where(((x >> U64(bit)) & U64(1)) == 1, U64(w - 1 - bit), n)
    return n


@handles("brev")
def _brev(d, a):
    w = width(_t(d))
    out = np.zeros_like(a)
    for bit in range(w):
        out |= ((a >> U64(bit)) & U64(1)) << U64(w - 1 - bit)
    return out


@handles("bfind")
def _bfind(d, a):
    t = _t(d)
    w = width(t)
    x = as_int(a, w).astype(np.int64) if signed(t) else None
    v = mask(a, w) if not signed(t) else from_int(np.where(x < 0, ~x, x), w)
    pos = np.full(a.shape, 0xFFFFFFFF, dtype=np.uint64)
    for bit in range(w):
        pos = np.where(((v >> U64(bit)) & U64(1)) == 1, U64(bit if not d.has(".shiftamt") else w - 1 - bit), pos)
    return pos


@handles("bfe")
def _bfe(d, a, b, c):
    t = _t(d)
    w = width(t)
    pos = as_uint(b, 32).astype(np.int64) & 0xFF
    ln = as_uint(c, 32).astype(np.int64) & 0xFF
    x = mask(a, w)
    out = np.zeros_like(x)
    for i in range(w):
        src = pos + i
        inside = i < ln
        bitval = np.where(src < w, (x >> np.minimum(src, w - 1).astype(np.uint64)) & U64(1), U64(0))
        if signed(t):
            sbit = np.minimum(pos + ln - 1, w - 1)
            signv = np.where(ln == 0, U64(0), (x >> sbit.astype(np.uint64)) & U64(1))
            bitval = np.where(inside & (src < w), bitval, signv)
            out |= np.where(inside | True, bitval, U64(0)) << U64(i)
        else:
            out |= np.where(inside, bitval, U64(0)) << U64(i)
    return mask(out, w)


@handles("bfi")
def _bfi(d, a, b, c, e):
    w = width(_t(d))
    pos = as_uint(c, 32).astype(np.uint64) & U64(0xFF)
    ln = as_uint(e, 32).astype(np.uint64) & U64(0xFF)
    field = np.where(ln >= 64, ~U64(0), (U64(1) << np.minimum(ln, U64(63))) - U64(1))
    fm = mask(field << np.minimum(pos, U64(63)), w)
    fm = np.where(pos >= w, U64(0), fm)
    return mask((b & ~fm) | ((a << np.minimum(pos, U64(63))) & fm), w)


@handles("prmt")
def _prmt(d, a, b, c):
    bytes_ = (mask(b, 32) << U64(32)) | mask(a, 32)
    sel = as_uint(c, 32).astype(np.uint64)
    out = np.zeros_like(a)
    for i in range(4):
        s = (sel >> U64(4 * i)) & U64(0xF)
        byte = (bytes_ >> ((s & U64(7)) * U64(8))) & U64(0xFF)
        sign = np.where((byte & U64(0x80)) != 0, U64(0xFF), U64(0))
        out |= np.where((s & U64(8)) != 0, sign, byte) << U64(8 * i)
    return out


@handles("dp4a")
def _dp4a(d, a, b, c):
    ta, tb = d.types[0], d.types[1]
    acc = as_int(c, 32).astype(np.int64) if signed(ta) or signed(tb) else as_uint(c, 32).astype(np.int64)
    for i in range(4):
        x = ((a >> U64(8 * i)) & U64(0xFF)).astype(np.int64)
        y = ((b >> U64(8 * i)) & U64(0xFF)).astype(np.int64)
        x = np.where(signed(ta) & (x > 127), x - 256, x) if signed(ta) else x
        y = np.where(y > 127, y - 256, y) if signed(tb) else y
        acc = acc + x * y
    return from_int(acc, 32)


# ---- comparison and selection ----------------------------------------------------------------

_CMP = {
    ".eq": np.equal, ".ne": np.not_equal, ".lt": np.less, ".le": np.less_equal, ".gt": np.greater,
    ".ge": np.greater_equal, ".lo": np.less, ".ls": np.less_equal, ".hi": np.greater, ".hs": np.greater_equal,
}


def compare(d, a, b):
    """The boolean lane array of a `setp`/`set` comparison (ordered/unordered floats per §9.7.4)."""
    t = _t(d)
    cmp = d.cmp
    if is_float(t):
        x, y = _ftz_in(d, _fl(d, a)), _ftz_in(d, _fl(d, b))
        nan = np.isnan(x) | np.isnan(y)
        if cmp == ".num":
            return ~nan
        if cmp == ".nan":
            return nan
        if cmp.endswith("u") and cmp not in (".lo", ".ls"):
            return _CMP["." + cmp[1:-1]](x, y) | nan
        with np.errstate(invalid="ignore"):
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
    t = d.types[-1]
    neg = (as_float(c, ".f32") < 0) if t == ".f32" else (as_int(c, 32) < 0)
    return np.where(neg, b, a)


# ---- moves and conversions --------------------------------------------------------------------

@handles("mov")
def _mov(d, a):
    return mask(a, width(_t(d)) if d.types else 64)


def convert(d, a):
    """`cvt.dtype.atype`: float rounding/saturation, integer extension/truncation (§9.7.9.21)."""
    dst, src = d.types[0], d.types[-1]
    if is_float(src) and is_float(dst):
        x = as_float(a, src)
        if d.rounding in (".rni", ".rzi", ".rmi", ".rpi"):
            x = {".rni": np.rint, ".rzi": np.trunc, ".rmi": np.floor, ".rpi": np.ceil}[d.rounding](x)
        with np.errstate(all="ignore"):
            return _out_f(d, x, dst)
    if is_float(src):  # float -> int: round, saturate, NaN -> 0
        x = as_float(a, src).astype(np.float64)
        rnd = {".rni": np.rint, ".rzi": np.trunc, ".rmi": np.floor, ".rpi": np.ceil}.get(d.rounding, np.trunc)
        w = width(dst)
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed(dst) else (0, (1 << w) - 1)
        with np.errstate(invalid="ignore"):
            r = np.where(np.isnan(x), 0, np.clip(rnd(x), lo, hi))
        if w == 64 and not signed(dst):
            return np.array([int(v) for v in r], dtype=np.uint64)
        return from_int(r.astype(np.int64), w) if w < 64 or signed(dst) else r.astype(np.uint64)
    sw = width(src)
    v = as_int(a, sw).astype(np.int64) if signed(src) else as_uint(a, sw).astype(np.uint64)
    if is_float(dst):
        with np.errstate(all="ignore"):
            return _out_f(d, v.astype(np.float64), dst)
    dw = width(dst)
    if d.has(".sat"):
        lo, hi = (-(1 << (dw - 1)), (1 << (dw - 1)) - 1) if signed(dst) else (0, (1 << dw) - 1)
        return from_int(np.clip(v.astype(np.int64) if v.dtype.kind == "i" else np.minimum(v, U64(hi)).astype(np.int64), lo, hi), dw)
    return from_int(v, dw) if v.dtype.kind == "i" else mask(v, dw)


@handles("cvt")
def _cvt(d, a, b=None):
    if b is not None and d.types and d.types[0] in (".f16x2", ".bf16x2"):
        half = ".f16" if d.types[0] == ".f16x2" else ".bf16"
        lo = from_float(as_float(b, ".f32"), half) & U64(0xFFFF)
        hi = from_float(as_float(a, ".f32"), half) & U64(0xFFFF)
        return lo | (hi << U64(16))
    return convert(d, a)
