"""Logic, shifts, bit fields, byte permutes and dp4a (PTX ISA §9.7.1, §9.7.8): exact for every width.

Handlers register into `volta.semantics.table.TABLE`; compute.py imports this module after its own handlers,
and then has `install_packed16` wrap some of them.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from volta.errors import Unsupported
from volta.semantics.bits import U64, as_int, as_uint, from_int, mask, signed, width
from volta.semantics.table import TABLE, handles
from volta.semantics.table import instruction_type as _t


# ==== logic and shifts =========================================================================

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
    """shl: shift amounts above the width are clamped to it (PTX §9.7.8.7): `shl.b32 x, 40` = 0."""
    w = width(_t(d))
    n = as_uint(b, 32).astype(np.uint64)
    return np.where(n >= U64(w), U64(0), mask(a << np.minimum(n, U64(63)), w))


@handles("shr")
def _shr(d, a, b):
    """shr: clamped amounts; `.s` types fill with the sign bit (arithmetic shift)."""
    t = _t(d)
    w = width(t)
    n = np.minimum(as_uint(b, 32).astype(np.int64), w)
    if signed(t):
        return from_int(as_int(a, w).astype(np.int64) >> np.minimum(n, 63), w)
    return np.where(n >= w, U64(0), mask(a, w) >> np.minimum(n, 63).astype(np.uint64))


@handles("shf")
def _shf(d, a, b, c):
    """shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of the 64-bit b:a by c (mod 32 or clamped to 32)."""
    n = as_uint(c, 32).astype(np.uint64)
    n = np.minimum(n, U64(32)) if d.has(".clamp") else n & U64(31)
    wide = (mask(b, 32) << U64(32)) | mask(a, 32)
    if d.has(".l"):
        return mask((wide << n) >> U64(32), 32)
    return mask(wide >> n, 32)


@handles("lop3")
def _lop3(d, a, b, c, lut):
    """lop3.b32 d, a, b, c, immLut: bit i of d is immLut[(a_i << 2) | (b_i << 1) | c_i] (0xF0, 0xCC, 0xAA)."""
    lut = lut & U64(0xFF)
    values = np.unique(lut)
    out = np.zeros_like(a)
    for value in values:
        v = int(value)
        acc = np.zeros_like(a)
        for idx in range(8):
            if v >> idx & 1:
                acc |= (a if idx & 4 else ~a) & (b if idx & 2 else ~b) & (c if idx & 1 else ~c)
        out = acc if values.size == 1 else np.where(lut == value, acc, out)
    return mask(out, 32)


def _popcount64(x):
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.uint64)
    x = x - ((x >> U64(1)) & U64(0x5555555555555555))
    x = (x & U64(0x3333333333333333)) + ((x >> U64(2)) & U64(0x3333333333333333))
    x = (x + (x >> U64(4))) & U64(0x0F0F0F0F0F0F0F0F)
    return (x * U64(0x0101010101010101)) >> U64(56)


def _bit_length(x):
    """Number of significant bits of each uint64 (0 for 0)."""
    n = np.zeros(x.shape, np.uint64)
    for s in (32, 16, 8, 4, 2, 1):
        hi = (x >> U64(s)) != 0
        n += np.where(hi, U64(s), U64(0))
        x = np.where(hi, x >> U64(s), x)
    return n + (x != 0).astype(np.uint64)


@handles("popc")
def _popc(d, a):
    return _popcount64(mask(a, width(_t(d))))


@handles("clz")
def _clz(d, a):
    w = width(_t(d))
    return U64(w) - _bit_length(mask(a, w))


@handles("brev")
def _brev(d, a):
    w = width(_t(d))
    x = mask(a, w)
    for s, m in ((1, 0x5555555555555555), (2, 0x3333333333333333), (4, 0x0F0F0F0F0F0F0F0F),
                 (8, 0x00FF00FF00FF00FF), (16, 0x0000FFFF0000FFFF), (32, 0x00000000FFFFFFFF)):
        x = ((x >> U64(s)) & U64(m)) | ((x & U64(m)) << U64(s))
    return x >> U64(64 - w) if w < 64 else x


@handles("bfind")
def _bfind(d, a):
    """bfind: position of the most significant non-sign bit; 0xffffffff when there is none."""
    t = _t(d)
    w = width(t)
    v = mask(a, w)
    if signed(t):
        v = np.where(as_int(a, w) < 0, mask(~a, w), v)
    n = _bit_length(v)
    pos = n - U64(1)
    if d.has(".shiftamt"):
        pos = U64(w - 1) - pos
    return np.where(n == 0, U64(0xFFFFFFFF), pos)


def _lowmask(k):
    k = k.astype(np.uint64)
    return np.where(k >= U64(64), U64(0xFFFFFFFFFFFFFFFF), (U64(1) << np.minimum(k, U64(63))) - U64(1))


@handles("bfe")
def _bfe(d, a, b, c):
    """bfe: d[i] = (i < len && pos+i <= msb) ? a[pos+i] : sbit, sbit = a[min(pos+len-1, msb)] for .s types."""
    t = _t(d)
    w = width(t)
    pos = as_uint(b, 32).astype(np.uint64) & U64(0xFF)
    ln = as_uint(c, 32).astype(np.uint64) & U64(0xFF)
    x = mask(a, w)
    room = np.where(pos >= U64(w), U64(0), U64(w) - np.minimum(pos, U64(w)))
    k = np.minimum(ln, room)
    field = np.where(pos >= U64(w), U64(0), x >> np.minimum(pos, U64(63))) & _lowmask(k)
    if signed(t):
        top = np.minimum(pos + ln - U64(1), U64(w - 1))
        sbit = np.where(ln == 0, U64(0), (x >> np.minimum(top, U64(63))) & U64(1))
        field = np.where(sbit == 1, field | ~_lowmask(k), field)
    return mask(field, w)


@handles("bfi")
def _bfi(d, a, b, c, e):
    """bfi: b with len bits of a inserted at pos (bits past the msb are dropped)."""
    w = width(_t(d))
    pos = as_uint(c, 32).astype(np.uint64) & U64(0xFF)
    ln = as_uint(e, 32).astype(np.uint64) & U64(0xFF)
    sh = np.minimum(pos, U64(63))
    fm = np.where(pos >= U64(w), U64(0), mask(_lowmask(ln) << sh, w))
    return mask((b & ~fm) | ((a << sh) & fm), w)


@handles("bmsk")
def _bmsk(d, a, b):
    pos = as_uint(a, 32).astype(np.uint64)
    ln = as_uint(b, 32).astype(np.uint64)
    if d.has(".wrap"):
        pos, ln = pos & U64(31), ln & U64(31)
    else:
        pos, ln = np.minimum(pos, U64(32)), np.minimum(ln, U64(32))
    return np.where(pos >= U64(32), U64(0), mask(_lowmask(ln) << np.minimum(pos, U64(63)), 32))


@handles("szext")
def _szext(d, a, b):
    n = as_uint(b, 32).astype(np.uint64)
    n = n & U64(31) if d.has(".wrap") else np.minimum(n, U64(32))
    x = mask(a, 32) & _lowmask(n)
    if signed(_t(d)):
        sbit = np.where(n == 0, U64(0), (x >> np.maximum(n, U64(1)) - U64(1)) & U64(1))
        x = np.where(sbit == 1, x | ~_lowmask(n), x)
    return mask(x, 32)


# prmt modes other than the default: byte selectors (d.b0, d.b1, d.b2, d.b3) for c[1:0] = 0..3 (PTX "prmt")
_PRMT_MODES = {
    ".f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    ".b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    ".rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    ".ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    ".ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    ".rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}


@handles("prmt")
def _prmt(d, a, b, c):
    """prmt.b32 d, a, b, c: bytes {b, a} numbered 7..0; each selector nibble picks a byte, bit 3 replicates its sign."""
    bytes_ = (mask(b, 32) << U64(32)) | mask(a, 32)
    sel = as_uint(c, 32).astype(np.uint64)
    out = np.zeros_like(a)
    mode = next((m for m in _PRMT_MODES if d.has(m)), None)
    if mode is not None:
        table = np.array(_PRMT_MODES[mode], dtype=np.uint64)
        pick = table[(sel & U64(3)).astype(np.int64)]
        for i in range(4):
            out |= ((bytes_ >> (pick[:, i] * U64(8))) & U64(0xFF)) << U64(8 * i)
        return out
    for i in range(4):
        s = (sel >> U64(4 * i)) & U64(0xF)
        byte = (bytes_ >> ((s & U64(7)) * U64(8))) & U64(0xFF)
        sign = np.where((byte & U64(0x80)) != 0, U64(0xFF), U64(0))
        out |= np.where((s & U64(8)) != 0, sign, byte) << U64(8 * i)
    return out


@handles("dp4a")
def _dp4a(d, a, b, c):
    ta, tb = d.types[0], d.types[1]
    acc = as_int(c, 32).astype(np.int64) if (signed(ta) or signed(tb)) else as_uint(c, 32).astype(np.int64)
    for i in range(4):
        x = ((a >> U64(8 * i)) & U64(0xFF)).astype(np.int64)
        y = ((b >> U64(8 * i)) & U64(0xFF)).astype(np.int64)
        if signed(ta):
            x = np.where(x > 127, x - 256, x)
        if signed(tb):
            y = np.where(y > 127, y - 256, y)
        acc = acc + x * y
    return from_int(acc, 32)


# ==== SIMD video instructions (PTX ISA §9.7.17: vadd4 … vset4, vadd2 … vset2) ==================
# `vop4.dtype.atype.btype{.sat} d, a, b, c` (secondary merge) and `vop4.dtype.atype.btype.add d, a, b, c`
# (secondary accumulate), with the default mask (.b3210 / .h10: every element of d) and the default
# selectors (a's elements from a, b's from b). nvcc emits no other form; explicit masks and selectors
# are operand suffixes (`d.b0`, `a.b3210`) the grammar does not parse.
#   Va[i], Vb[i]: element i of a and b, sign- or zero-extended by .atype / .btype
#   t[i] = Va[i] + Vb[i] | Va[i] - Vb[i] | avg (rounds half away from zero: (s + 1) >> 1 for s ≥ 0, s >> 1 below)
#          | |Va[i] - Vb[i]| | min | max          (vset: t[i] = Va[i] CMP Vb[i] ? 1 : 0)
#   .sat:  t[i] clamped to the element range of .dtype (signed or unsigned)
#   merge:      d = the elements t[i] (truncated to the element width); c is not read
#   accumulate: d = c + Σ t[i] (32-bit wrap-around)

_VOPS = {"vadd": lambda x, y: x + y, "vsub": lambda x, y: x - y,
         "vavrg": lambda x, y: np.where(x + y >= 0, (x + y + 1) >> 1, (x + y) >> 1),
         "vabsdiff": lambda x, y: np.abs(x - y), "vmin": np.minimum, "vmax": np.maximum}
_VCMP = {".eq": np.equal, ".ne": np.not_equal, ".lt": np.less, ".le": np.less_equal, ".gt": np.greater,
         ".ge": np.greater_equal}


def _elements(x, n, ew, is_signed):
    """The n elements of width ew of 32-bit words x, extended to int64."""
    out = []
    for i in range(n):
        e = ((x >> U64(ew * i)) & U64((1 << ew) - 1)).astype(np.int64)
        if is_signed:
            e = np.where(e >= 1 << (ew - 1), e - (1 << ew), e)
        out.append(e)
    return out


def simd_video(opcode, types, sat, accumulate, a, b, c, cmp=None):
    """The instruction's result bits (uint64 lanes holding 32-bit words). `opcode`: 'vadd4', 'vset2', …;
    `types`: (dtype, atype, btype) or (atype, btype) for vset."""
    n = 4 if opcode.endswith("4") else 2
    ew = 32 // n
    base = opcode[:-1]
    if base == "vset":
        ta, tb = types[-2], types[-1]
        td = ".u32"
    else:
        td, ta, tb = (types + (types[-1],) * 3)[:3] if len(types) < 3 else types[:3]
    va = _elements(a, n, ew, signed(ta))
    vb = _elements(b, n, ew, signed(tb))
    if base == "vset":
        fn = _VCMP[cmp if cmp not in (".lo", ".ls", ".hi", ".hs") else {".lo": ".lt", ".ls": ".le", ".hi": ".gt",
                                                                         ".hs": ".ge"}[cmp]]
        t = [fn(x, y).astype(np.int64) for x, y in zip(va, vb)]
    else:
        t = [_VOPS[base](x, y) for x, y in zip(va, vb)]
    if sat and not accumulate:
        lo, hi = (-(1 << (ew - 1)), (1 << (ew - 1)) - 1) if signed(td) else (0, (1 << ew) - 1)
        t = [np.clip(x, lo, hi) for x in t]
    if accumulate:
        total = as_uint(c, 32).astype(np.int64)
        for x in t:
            total = total + x
        return from_int(total, 32)
    out = np.zeros(np.shape(a), np.uint64)
    for i, x in enumerate(t):
        out |= (x.astype(np.uint64) & U64((1 << ew) - 1)) << U64(ew * i)
    return out


def _video(d, a, b, c):
    if d.has(".min", ".max"):
        raise Unsupported(f"`{d.inst.opcode}`: the .min/.max secondary operation of scalar video instructions "
                          f"is not modelled")
    return simd_video(d.op, tuple(d.types), d.has(".sat"), d.has(".add"), a, b, c, d.cmp)


for _op in ("vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4",
            "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2"):
    handles(_op)(_video)


# ==== packed 16-bit integers: add/sub{.sat}.{u16x2,s16x2}, min/max{.relu}.{u16x2,s16x2} (PTX 8.0) =======

def _packed16(fn_name, prior):
    def handler(d, a, b, c=None):
        t = _t(d)
        if c is not None and fn_name in ("min", "max"):   # three inputs (sm_90): min(min(a, b), c) — also for
            return handler(d, handler(d, a, b), c)         # floats, whose NaN rule composes the same way
        if t not in (".u16x2", ".s16x2"):
            if fn_name in ("min", "max") and d.has(".relu") and t in (".s32", ".s16", ".s64"):
                w = width(t)
                r = as_int(_strip_relu(prior)(d, a, b), w).astype(np.int64)
                return from_int(np.maximum(r, 0), w)
            return prior(d, a, b) if c is None else prior(d, a, b, c)
        s = t == ".s16x2"
        xs, ys = _elements(a, 2, 16, s), _elements(b, 2, 16, s)
        if fn_name == "add":
            r = [x + y for x, y in zip(xs, ys)]
        elif fn_name == "sub":
            r = [x - y for x, y in zip(xs, ys)]
        elif fn_name == "min":
            r = [np.minimum(x, y) for x, y in zip(xs, ys)]
        else:
            r = [np.maximum(x, y) for x, y in zip(xs, ys)]
        if d.has(".relu"):
            r = [np.maximum(x, 0) for x in r]
        if d.has(".sat"):
            lo, hi = (-(1 << 15), (1 << 15) - 1) if s else (0, (1 << 16) - 1)
            r = [np.clip(x, lo, hi) for x in r]
        return (r[0].astype(np.uint64) & U64(0xFFFF)) | ((r[1].astype(np.uint64) & U64(0xFFFF)) << U64(16))
    return handler


def _strip_relu(prior):
    """The plain min/max handler, called with a decoded instruction whose `.relu` it must not see."""
    def call(d, a, b):
        return prior(dataclasses.replace(d, mods=d.mods - {".relu"}), a, b)
    return call


def install_packed16():
    """Wrap compute.py's add, sub, min and max (once) with their packed 16-bit integer forms."""
    for name in ("add", "sub", "min", "max"):
        prior = TABLE[name]
        if getattr(prior, "packed16", False):
            continue
        h = _packed16(name, prior)
        h.packed16 = True
        TABLE[name] = h



# ==== fns (PTX ISA §9.7.1.x): the position of the n-th set bit of mask, counted from base ====================

@handles("fns")
def _fns(d, mask_, base, offset):
    """fns.b32 d, mask, base, offset: offset 0 → base if mask[base] else all ones; offset > 0 → the offset-th set
    bit at or above base; offset < 0 → the |offset|-th set bit at or below base; all ones when there is none.
    A base above 31 is undefined (PTX) and refused."""
    m = mask(mask_, 32)
    b = as_uint(base, 32).astype(np.int64)
    off = as_int(offset, 32).astype(np.int64)
    if (b > 31).any():
        raise Unsupported(f"`{d.inst.opcode}` with a base above 31 (undefined in PTX)")
    out = np.full(np.shape(m), 0xFFFFFFFF, np.uint64)
    bits = [((m >> U64(p)) & U64(1)) == 1 for p in range(32)]
    at_base = ((m >> b.astype(np.uint64)) & U64(1)) == 1
    out[(off == 0) & at_base] = b[(off == 0) & at_base].astype(np.uint64)
    up = np.zeros(np.shape(m), np.int64)
    for p in range(32):   # upwards from base
        counted = (p >= b) & bits[p]
        up += counted
        hit = (off > 0) & counted & (up == off)
        out[hit] = U64(p)
    down = np.zeros(np.shape(m), np.int64)
    for p in range(31, -1, -1):   # downwards from base
        counted = (p <= b) & bits[p]
        down += counted
        hit = (off < 0) & counted & (down == -off)
        out[hit] = U64(p)
    return out


@handles("dp2a")
def _dp2a(d, a, b, c):
    """dp2a.{lo,hi}.atype.btype d, a, b, c: d = c + a.h0·b.byte(k) + a.h1·b.byte(k+1), k = 0 (.lo) or 2 (.hi);
    halves of a and bytes of b extended by their types, the sum wrapping at 32 bits."""
    ta, tb = d.types[0], d.types[1]
    k = 2 if d.has(".hi") else 0
    acc = as_uint(c, 32).astype(np.int64)
    for i in range(2):
        x = ((a >> U64(16 * i)) & U64(0xFFFF)).astype(np.int64)
        y = ((b >> U64(8 * (k + i))) & U64(0xFF)).astype(np.int64)
        if signed(ta):
            x = np.where(x > 32767, x - 65536, x)
        if signed(tb):
            y = np.where(y > 127, y - 256, y)
        acc = acc + x * y
    return from_int(acc, 32)
