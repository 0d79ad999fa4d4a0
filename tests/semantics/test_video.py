"""SIMD video instructions (vadd4 … vset4, vadd2 … vset2), packed 16-bit integer add/min/max, and the integer
intrinsics nvcc 13 lowers to prmt/shf/brev/popc/bfind/sad: bit-exact against pure-Python models.

Two levels: the handler (`simd_video`) against a per-element Python model with hypothesis, and the CUDA
intrinsics end to end — tests/semantics/data/intrinsics.cu (PTX for sm_80 and sm_90 committed, made by nvcc 13)
run by `volta run` and every output slot compared with the intrinsic's CUDA definition.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.semantics.bitops import simd_video
from tests.semantics.helpers import D, one

DATA = Path(__file__).parent / "data"
u32 = st.integers(0, 0xFFFFFFFF)


def elems(x, n, signed):
    ew = 32 // n
    out = []
    for i in range(n):
        e = (x >> (ew * i)) & ((1 << ew) - 1)
        if signed and e >= 1 << (ew - 1):
            e -= 1 << ew
        out.append(e)
    return out


def pack(vals, n):
    ew = 32 // n
    r = 0
    for i, v in enumerate(vals):
        r |= (v & ((1 << ew) - 1)) << (ew * i)
    return r


def avg(x, y):   # PTX vavrg: (x + y + 1) >> 1 for a non-negative sum, (x + y) >> 1 otherwise (floor shifts)
    s = x + y
    return (s + 1) >> 1 if s >= 0 else s >> 1


OPS = {"vadd": lambda x, y: x + y, "vsub": lambda x, y: x - y, "vavrg": avg, "vabsdiff": lambda x, y: abs(x - y),
       "vmin": min, "vmax": max}
CMPS = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
        "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}


def model(op, n, td, ta, tb, sat, add, a, b, c, cmp=None):
    ew = 32 // n
    xs, ys = elems(a, n, ta == "s32"), elems(b, n, tb == "s32")
    if op == "vset":
        t = [int(CMPS[cmp](x, y)) for x, y in zip(xs, ys)]
    else:
        t = [OPS[op](x, y) for x, y in zip(xs, ys)]
    if sat and not add:
        lo, hi = (-(1 << (ew - 1)), (1 << (ew - 1)) - 1) if td == "s32" else (0, (1 << ew) - 1)
        t = [min(max(v, lo), hi) for v in t]
    if add:
        return (c + sum(t)) & 0xFFFFFFFF
    return pack(t, n)


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(sorted(OPS)), n=st.sampled_from([2, 4]), td=st.sampled_from(["u32", "s32"]),
       ta=st.sampled_from(["u32", "s32"]), tb=st.sampled_from(["u32", "s32"]), mode=st.sampled_from(["", "sat", "add"]),
       a=u32, b=u32, c=u32)
def test_vop_against_model(op, n, td, ta, tb, mode, a, b, c):
    opcode = f"{op}{n}.{td}.{ta}.{tb}" + (f".{mode}" if mode else "")
    assert one(opcode, a, b, c) == model(op, n, td, ta, tb, mode == "sat", mode == "add", a, b, c), opcode


@settings(max_examples=200, deadline=None)
@given(n=st.sampled_from([2, 4]), ta=st.sampled_from(["u32", "s32"]), tb=st.sampled_from(["u32", "s32"]),
       cmp=st.sampled_from(sorted(CMPS)), add=st.booleans(), a=u32, b=u32, c=u32)
def test_vset_against_model(n, ta, tb, cmp, add, a, b, c):
    opcode = f"vset{n}.{ta}.{tb}.{cmp}" + (".add" if add else "")
    assert one(opcode, a, b, c) == model("vset", n, "u32", ta, tb, False, add, a, b, c, cmp), opcode


def test_vabsdiff4_known_values():
    # bytes (a, b): (0x10, 0x01), (0x00, 0xff), (0x80, 0x7f), (0x05, 0x05)
    a, b = 0x05800010, 0x057FFF01
    assert one("vabsdiff4.u32.u32.u32", a, b, 0) == 0x0001FF0F
    assert one("vabsdiff4.u32.u32.u32.add", a, b, 100) == 100 + 0x0F + 0xFF + 0x01
    assert one("vabsdiff4.s32.s32.s32", a, b, 0) == 0x00FF010F   # signed: |-128 - 127| = 255, |0 - -1| = 1


@settings(max_examples=200, deadline=None)
@given(t=st.sampled_from(["u16x2", "s16x2"]), op=st.sampled_from(["add", "sub", "min", "max"]),
       mod=st.sampled_from(["", "sat", "relu"]), a=u32, b=u32)
def test_packed16(t, op, mod, a, b):
    if (mod == "sat" and op in ("min", "max")) or (mod == "relu" and (op in ("add", "sub") or t == "u16x2")):
        return
    s = t == "s16x2"
    fn = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "min": min, "max": max}[op]
    r = [fn(x, y) for x, y in zip(elems(a, 2, s), elems(b, 2, s))]
    if mod == "relu":
        r = [max(v, 0) for v in r]
    if mod == "sat":
        lo, hi = (-(1 << 15), (1 << 15) - 1) if s else (0, 0xFFFF)
        r = [min(max(v, lo), hi) for v in r]
    assert one(f"{op}{'.' + mod if mod else ''}.{t}", a, b) == pack(r, 2)


def test_video_decodes():
    for opcode in ("vabsdiff4.u32.u32.u32", "vabsdiff4.u32.u32.u32.add", "vadd2.s32.s32.s32.sat",
                   "vset4.u32.u32.ne", "vset2.s32.u32.lt.add", "add.u16x2", "max.s16x2"):
        assert D(opcode, 4 if opcode[0] == "v" else 3).op == opcode.split(".")[0]


# ---- the CUDA intrinsics, end to end ---------------------------------------------------------------

def b4(x, signed=False):
    return elems(x, 4, signed)


def h2(x, signed=False):
    return elems(x, 2, signed)


def brev(x):
    return int(f"{x:032b}"[::-1], 2)


def ffs(x):
    return (x & -x).bit_length()


def clz(x):
    return 32 - x.bit_length()


def byte_perm(x, y, s):
    src = x | (y << 32)
    return sum(((src >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i) for i in range(4))


def funnel_l(lo, hi, sh):
    return ((((hi << 32) | lo) << (sh & 31)) >> 32) & 0xFFFFFFFF


def funnel_rc(lo, hi, sh):
    return (((hi << 32) | lo) >> min(sh, 32)) & 0xFFFFFFFF


INTRINSICS = [
    lambda x, y: pack([abs(p - q) for p, q in zip(b4(x), b4(y))], 4),                  # __vabsdiffu4
    lambda x, y: sum(abs(p - q) for p, q in zip(b4(x), b4(y))),                         # __vsadu4
    lambda x, y: pack([p + q for p, q in zip(b4(x), b4(y))], 4),                        # __vadd4
    lambda x, y: pack([p - q for p, q in zip(b4(x), b4(y))], 4),                        # __vsub4
    lambda x, y: pack([0xFF if p > q else 0 for p, q in zip(b4(x), b4(y))], 4),          # __vcmpgtu4
    lambda x, y: pack([(p + q + 1) >> 1 for p, q in zip(b4(x), b4(y))], 4),             # __vavgu4
    lambda x, y: pack([max(p, q) for p, q in zip(b4(x), b4(y))], 4),                    # __vmaxu4
    lambda x, y: pack([min(p, q) for p, q in zip(b4(x, True), b4(y, True))], 4),        # __vmins4
    lambda x, y: pack([abs(p - q) for p, q in zip(b4(x, True), b4(y, True))], 4),       # __vabsdiffs4
    lambda x, y: pack([abs(p - q) for p, q in zip(h2(x), h2(y))], 2),                   # __vabsdiffu2
    lambda x, y: pack([p + q for p, q in zip(h2(x), h2(y))], 2),                        # __vadd2
    lambda x, y: pack([max(p, q) for p, q in zip(h2(x), h2(y))], 2),                    # __vmaxu2
    lambda x, y: byte_perm(x, y, 0x5410),                                               # __byte_perm
    lambda x, y: byte_perm(x, y, y & 0xFFFF),
    lambda x, y: funnel_l(x, y, y),                                                     # __funnelshift_l
    lambda x, y: funnel_rc(x, y, x),                                                    # __funnelshift_rc
    lambda x, y: brev(x),                                                               # __brev
    lambda x, y: bin(y).count("1"),                                                     # __popc
    lambda x, y: ffs(x),                                                                # __ffs
    lambda x, y: clz(y),                                                                # __clz
    lambda x, y: (abs(x - y) + 7) & 0xFFFFFFFF,                                         # __usad
    lambda x, y: sum(abs(p - q) for p, q in zip(b4(x, True), b4(y, True))),             # __vsads4
    lambda x, y: pack([max(p, q) for p, q in zip(h2(x, True), h2(y, True))], 2),        # __vmaxs2
    lambda x, y: pack([0xFF if p == q else 0 for p, q in zip(b4(x), b4(y & 0xFF00FF00 | x & 0x00FF00FF))], 4),
]


def _inputs(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    # edge values: zeros, all ones, equal bytes, sign boundaries
    edge = np.array([0, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x00FF00FF, 0x12345678, 1, 0x80000000], np.uint32)
    a[:8], b[:8] = edge, edge[::-1]
    b[8:12] = a[8:12]
    return a, b


@pytest.mark.parametrize("arch", ["sm80", "sm90"])
def test_intrinsics_bit_exact(arch):
    import volta

    n, k = 64, len(INTRINSICS)
    a, b = _inputs(n, 7)
    out = volta.Buffer("out", "u32", n * k, "out")
    A, B = volta.Buffer("a", "u32", n, "in"), volta.Buffer("b", "u32", n, "in")
    r = volta.run(str(DATA / f"intrinsics.{arch}.ptx"), volta.Launch(grid=1, block=n, args=[out, A, B, n]),
                  inputs={"a": a, "b": b})
    got = np.asarray(r.outputs["out"]).reshape(n, k)
    bad = []
    for i in range(n):
        for j, fn in enumerate(INTRINSICS):
            want = fn(int(a[i]), int(b[i])) & 0xFFFFFFFF
            if int(got[i, j]) != want:
                bad.append((j, hex(int(a[i])), hex(int(b[i])), hex(int(got[i, j])), hex(want)))
    assert not bad, bad[:10]


# ---- fns, dp2a, three-input and .relu integer min/max (sm_90 DPX intrinsics lower to these) -------------

def fns_model(m, base, off):   # the PTX ISA pseudocode
    if off == 0:
        return base if (m >> base) & 1 else 0xFFFFFFFF
    pos, count, inc = base, abs(off) - 1, 1 if off > 0 else -1
    while 0 <= pos < 32:
        if (m >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return 0xFFFFFFFF


@settings(max_examples=300, deadline=None)
@given(m=u32, base=st.integers(0, 31), off=st.integers(-40, 40))
def test_fns(m, base, off):
    assert one("fns.b32", m, base, off & 0xFFFFFFFF) == fns_model(m, base, off)


def test_fns_examples_from_the_isa():
    assert [one("fns.b32", 0xAAAAAAAA, b, o & 0xFFFFFFFF) for b, o in ((3, 1), (3, -1), (2, 1), (2, -1))] == [3, 3, 3, 1]


@settings(max_examples=200, deadline=None)
@given(hi=st.booleans(), ta=st.sampled_from(["u32", "s32"]), tb=st.sampled_from(["u32", "s32"]), a=u32, b=u32, c=u32)
def test_dp2a(hi, ta, tb, a, b, c):
    xs = elems(a, 2, ta == "s32")
    ys = elems(b, 4, tb == "s32")[2:] if hi else elems(b, 4, tb == "s32")[:2]
    want = (c + xs[0] * ys[0] + xs[1] * ys[1]) & 0xFFFFFFFF
    assert one(f"dp2a.{'hi' if hi else 'lo'}.{ta}.{tb}", a, b, c) == want


@settings(max_examples=200, deadline=None)
@given(op=st.sampled_from(["min", "max"]), t=st.sampled_from(["s32", "u32"]), relu=st.booleans(), three=st.booleans(),
       a=u32, b=u32, c=u32)
def test_integer_min_max_three_inputs_and_relu(op, t, relu, three, a, b, c):
    if relu and t == "u32":
        return
    s = t == "s32"
    vals = [elems(v, 1, s)[0] for v in ((a, b, c) if three else (a, b))]
    r = (min if op == "min" else max)(vals)
    if relu:
        r = max(r, 0)
    got = one(f"{op}{'.relu' if relu else ''}.{t}", *((a, b, c) if three else (a, b)))
    assert got == r & 0xFFFFFFFF
