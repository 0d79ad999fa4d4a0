"""wgmma.mma_async and its protocol on the machine (volta/exec/handlers/wgmma.py, wgmma_real.py), one synthetic kernel
per mechanism (PTX ISA 9.x §9.7.15).

Each kernel copies byte images of A and B from global into shared memory, builds the matrix descriptors from
the variables' shared addresses, runs one wgmma and stores every thread's accumulator registers in order. The
images and the expected registers are laid out here from independent transcriptions of the ISA: the canonical
layouts of §9.7.15.5.1.2.1.3 as CuTe layouts with the byte Swizzle<B,4,3>, and CUTLASS's thread-value layouts of
the fragment figures (tests/exec/test_wgmma_layout.py checks wgmma_layout.py against the same)."""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from test_wgmma_layout import TV, cute   # tests/exec: the CuTe evaluator and CUTLASS's layouts
from volta.cli import run as cli_run
from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.handlers.wgmma_layout import K_OF, encode_descriptor
from volta.exec.machine import Machine
from volta.exec.state import access as A
from volta.ir.program import lower
from volta.launch.spec import from_options
from volta.ptx.parser import parse_text
from volta.symbolic import expr as E
from volta.symbolic.evaluate import evaluate

NP = {"f16": np.float16, "f32": np.float32}
SIZE = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}
BUF = {"f16": "f16", "bf16": "bf16", "tf32": "f32", "e4m3": "u8", "s8": "s8"}


# ---- layouts, transcribed from the ISA for the images ---------------------------------------------------------

def canonical(mn, k, esize, swz, lbo, sbo, mn_major):
    """Byte offset of element (i, j) per the canonical layout table of §9.7.15.5.1.2.1.3, then Swizzle<B,4,3>."""
    t = 16 // esize
    w = swz or 16
    out = np.zeros((mn, k), np.int64)
    for i in range(mn):
        for j in range(k):
            if not mn_major and not swz:      # ((8,m),(T,2k)):((1T,SBO),(1,LBO))
                e = cute((8, mn // 8), (t, sbo // esize), i) + cute((t, 2), (1, lbo // esize), j)
            elif not mn_major:                # ((8,m),(T,2k)):((W/16 T,SBO),(1,T))
                e = cute((8, mn // 8), (w // 16 * t, sbo // esize), i) + cute((t, k // t), (1, t), j)
            elif not swz:                     # ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
                e = cute((t, 1, mn // t), (1, t, sbo // esize), i) + cute((8, k // 8), (t, lbo // esize), j)
            else:                             # ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO))
                per = w // esize
                e = cute((t, w // 16, -(-mn // per)), (1, t, lbo // esize), i) + cute((8, k // 8), (w // 16 * t, sbo // esize), j)
            out[i, j] = e * esize
    if swz:
        bits = swz // 16 - 1
        out ^= ((out >> 7) & bits) << 4
    return out


def image(values_words, offs, esize, nbytes):
    img = np.zeros(nbytes, np.uint8)
    for (i, j), w in np.ndenumerate(values_words):
        img[offs[i, j]:offs[i, j] + esize] = np.frombuffer(int(w).to_bytes(esize, "little"), np.uint8)
    return img


def thread_value(which, cols, slots):
    (ts, vs), (td, vd) = TV[which](cols)
    idx = np.array([[cute(ts, td, t) + cute(vs, vd, v) for v in range(slots)] for t in range(128)])
    return idx % 64, idx // 64


# ---- the kernel ------------------------------------------------------------------------------------------------

def kernel(*, shape, types, n_acc, acc_type=".f32", a_regs=False, a_words=0, b_words=0, desc_a=0, desc_b=0,
           scale_d="1", imms="1, 1, 0, 0", after_issue="", wait="wgmma.wait_group.sync.aligned 0;",
           commit="wgmma.commit_group.sync.aligned;", second=""):
    acc = ", ".join(f"%d{i}" for i in range(n_acc))
    a_op = "{%a0, %a1, %a2, %a3}" if a_regs else "%rd11"
    loads = "\n".join(f"    ld.global.u32 %d{i}, [%rd9+{4 * i}];" if acc_type == ".b32" else
                      f"    ld.global.f32 %d{i}, [%rd9+{4 * i}];" for i in range(n_acc))
    stores = "\n".join(f"    st.global.{'u32' if acc_type == '.b32' else 'f32'} [%rd8+{4 * i}], %d{i};"
                       for i in range(n_acc))
    areg = "\n".join(f"    ld.global.u32 %a{j}, [%rd7+{4 * j}];" for j in range(4)) if a_regs else ""

    def copy(param_reg, var, words, label):
        return f"""    mov.u32 %r2, %r1;
{label}:
    setp.ge.u32 %p1, %r2, {words};
    @%p1 bra {label}_end;
    mul.wide.u32 %rd4, %r2, 4;
    add.s64 %rd5, {param_reg}, %rd4;
    ld.global.u32 %r3, [%rd5];
    shl.b32 %r4, %r2, 2;
    mov.u32 %r5, {var};
    add.s32 %r6, %r5, %r4;
    st.shared.u32 [%r6], %r3;
    add.u32 %r2, %r2, 128;
    bra {label};
{label}_end:"""

    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    .reg .b32 %a<4>;
    .reg .b64 %rd<16>;
    .reg {acc_type} %d<{n_acc}>;
    .shared .align 1024 .b8 SA[{max(4 * a_words, 16)}];
    .shared .align 1024 .b8 SB[{4 * b_words}];
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    ld.param.u64 %rd12, [pd];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd6, %r1, {4 * n_acc};
    add.s64 %rd8, %rd12, %rd6;
    add.s64 %rd9, %rd3, %rd6;
    mul.wide.u32 %rd6, %r1, 16;
    add.s64 %rd7, %rd1, %rd6;
{copy("%rd1", "SA", a_words, "$LA") if not a_regs else ""}
{copy("%rd2", "SB", b_words, "$LB")}
    fence.proxy.async.shared::cta;
    bar.sync 0;
    mov.u32 %r10, SA;
    and.b32 %r11, %r10, 262143;
    shr.u32 %r12, %r11, 4;
    cvt.u64.u32 %rd10, %r12;
    or.b64 %rd11, %rd10, {desc_a};
    mov.u32 %r13, SB;
    and.b32 %r14, %r13, 262143;
    shr.u32 %r15, %r14, 4;
    cvt.u64.u32 %rd10, %r15;
    or.b64 %rd13, %rd10, {desc_b};
{loads}
{areg}
    setp.ne.u32 %p2, {scale_d}, 0;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.{shape}.{types} {{{acc}}}, {a_op}, %rd13, %p2, {imms};
{second}
    {commit}
{after_issue}
    {wait}
{stores}
    ret;
}}
"""


def run(ptx, buffers, inputs, fp="ieee", symbolic=False, check_races=True):
    spec = from_options("test.ptx", None, "1", "128", "A,B,C,D", buffers)
    m = Machine(lower(parse_text(ptx), None), spec.launches["kernel"], spec.buffers, spec.symbols, inputs=inputs,
                fp=fp, symbolic=symbolic, check_races=check_races)
    return m.run()


def words_of(x, fmt):
    if fmt == "f16":
        return np.asarray(x, np.float16).view(np.uint16).astype(np.uint64)
    if fmt == "bf16":
        return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint64)
    if fmt == "tf32":
        return np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    if fmt == "e5m2":   # the high byte of the f16 word (small integers have at most 2 fraction bits)
        return np.asarray(x, np.float16).view(np.uint16).astype(np.uint64) >> np.uint64(8)
    if fmt == "e4m3":   # small integers: exponent bias 7, 3 mantissa bits
        out = np.zeros(np.shape(x), np.uint64)
        for idx, v in np.ndenumerate(np.asarray(x)):
            v = int(v)
            if v:
                e = abs(v).bit_length() - 1
                mant = (abs(v) << 3 >> e) & 7
                out[idx] = (0x80 if v < 0 else 0) | (e + 7) << 3 | mant
        return out
    return np.asarray(x, np.int64).astype(np.uint64) & 0xFF


def setup(fmt, n, k, *, swz_a=0, swz_b=0, mn_a=False, mn_b=False, a_regs=False, seed=0, c=None, d_fmt="f32",
          b_fmt=None):
    """Inputs, buffers and kernel keywords for D = A·B + C with A 64 x k, B k x n of small integers (B in b_fmt
    when given)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (64, k))
    b = rng.integers(-3, 4, (k, n))
    es = SIZE[fmt]
    inputs, kw = {}, {}

    def place(x_mn_k, mn, swz, mn_major, name, fmt=fmt):
        w = swz or 16
        if mn_major:   # swizzled: LBO per MN atom (after its k/8 groups of 8 K rows), SBO per 8 K rows
            lbo, sbo = (8 * w * (k // 8), 8 * w) if swz else (128 * (mn * es // 16), 128)
        else:
            lbo, sbo = (128 * (mn // 8), 128) if not swz else (16, 8 * w)
        offs = canonical(mn, k, es, swz, lbo, sbo, mn_major)
        nbytes = int(offs.max()) + es
        nbytes = -(-nbytes // 1024) * 1024
        img = image(words_of(x_mn_k, fmt), offs, es, nbytes)
        inputs[name] = img.view(np.uint32)
        return nbytes // 4, encode_descriptor(0, lbo, sbo, swz) & ~0x3FFF

    if a_regs:
        rows, cols = thread_value(k, k, 64 * k // 128)
        w = words_of(a, fmt)[rows, cols]                # (128, slots)
        per = 4 // es
        regs = np.zeros((128, 4), np.uint64)
        for s in range(w.shape[1]):
            regs[:, s // per] |= w[:, s] << np.uint64(8 * es * (s % per))
        inputs["A"] = regs.astype(np.uint32).reshape(-1)
        kw.update(a_regs=True)
    else:
        kw["a_words"], kw["desc_a"] = place(a, 64, swz_a, mn_a, "A")
    kw["b_words"], kw["desc_b"] = place(b.T, n, swz_b, mn_b, "B", b_fmt or fmt)
    rows, cols = thread_value("C", n, n // 2)
    cval = np.zeros((64, n)) if c is None else c
    if d_fmt == "f32":
        inputs["C"] = cval[rows, cols].astype(np.float32).reshape(-1)
    else:
        h = cval[rows, cols].astype(np.float16).view(np.uint16).astype(np.uint32)
        inputs["C"] = (h[:, 0::2] | h[:, 1::2] << 16).reshape(-1)
    buffers = [f"A=u32[{max(inputs['A'].size, 4)}]:in", f"B=u32[{inputs['B'].size}]:in",
               f"C=u32[{inputs['C'].size}]:in", f"D=u32[{inputs['C'].size}]:out"]
    return a, b, inputs, buffers, kw


def result(m, n, d_fmt="f32"):
    raw = m.buffer_regions["D"].data[0, : 64 * n * 4 // (2 if d_fmt == "f16" else 1)]
    rows, cols = thread_value("C", n, n // 2)
    out = np.zeros((64, n))
    vals = raw.view(np.float32).reshape(128, n // 2) if d_fmt == "f32" else raw.view(np.float16).reshape(128, n // 2)
    out[rows, cols] = vals
    return out


CASES = [  # fmt, n, swizzle of A, of B, A MN-major, B MN-major, A in registers
    ("f16", 8, 0, 0, False, False, False), ("f16", 16, 32, 32, False, False, False),
    ("f16", 32, 64, 64, False, False, False), ("f16", 64, 128, 128, False, False, False),
    ("f16", 64, 128, 128, True, True, False), ("f16", 32, 32, 64, True, True, False),
    ("f16", 24, 0, 0, True, True, False), ("bf16", 16, 0, 128, False, True, False),
    ("f16", 16, 0, 64, False, False, True), ("tf32", 16, 32, 0, False, False, False),
    ("tf32", 8, 0, 128, False, False, True), ("e4m3", 16, 32, 32, False, False, False),
    ("e4m3", 8, 0, 128, False, False, True), ("s8", 16, 32, 0, False, False, False),
]


@pytest.mark.parametrize("fmt,n,swz_a,swz_b,mn_a,mn_b,a_regs", CASES)
def test_wgmma_product_through_every_layout(fmt, n, swz_a, swz_b, mn_a, mn_b, a_regs):
    """D = A·B + C for each fragment layout (§9.7.15.5.1.1), descriptor layout and swizzle (§9.7.15.5.1.2)."""
    k = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "s8": 32}[fmt]
    c = np.arange(64 * n).reshape(64, n) % 7 - 3.0
    a, b, inputs, buffers, kw = setup(fmt, n, k, swz_a=swz_a, swz_b=swz_b, mn_a=mn_a, mn_b=mn_b, a_regs=a_regs, c=c)
    types = {"f16": "f32.f16.f16", "bf16": "f32.bf16.bf16", "tf32": "f32.tf32.tf32", "e4m3": "f32.e4m3.e4m3",
             "s8": "s32.s8.s8"}[fmt]
    trans = f", {int(mn_a)}, {int(mn_b)}" if not a_regs else f", {int(mn_b)}"
    imms = ("1, 1" + (trans if fmt in ("f16", "bf16") else "")) if fmt != "s8" else ""
    if fmt == "s8":
        inputs["C"] = c[thread_value("C", n, n // 2)].astype(np.int32).reshape(-1).view(np.uint32)
        ptx = kernel(shape=f"m64n{n}k{k}", types=types, n_acc=n // 2, acc_type=".b32", **kw, imms="")
        ptx = ptx.replace("%p2, ;", "%p2;")
    else:
        ptx = kernel(shape=f"m64n{n}k{k}", types=types, n_acc=n // 2, **kw, imms=imms)
    m = run(ptx, buffers, inputs)
    assert not m.findings, m.findings
    got = result(m, n) if fmt != "s8" else _ints(m, n)
    assert (got == a @ b + c).all()


@pytest.mark.parametrize("a_fmt,b_fmt,a_regs", [("e4m3", "e5m2", False), ("e5m2", "e4m3", True),
                                               ("e5m2", "e5m2", False)])
def test_fp8_inputs_of_either_format(a_fmt, b_fmt, a_regs):
    """.e4m3 and .e5m2 in any combination (§9.7.15.5.2); under --fp ieee exact products summed in f64. A mixed
    pair has no measured tensor-core row: --fp hopper refuses it, naming the instruction."""
    c = np.arange(64 * 8).reshape(64, 8) % 5 - 2.0
    a, b, inputs, buffers, kw = setup(a_fmt, 8, 32, swz_a=64, swz_b=32, a_regs=a_regs, c=c, b_fmt=b_fmt)
    ptx = kernel(shape="m64n8k32", types=f"f32.{a_fmt}.{b_fmt}", n_acc=4, **kw, imms="1, 1")
    m = run(ptx, buffers, inputs)
    assert not m.findings and (result(m, 8) == a @ b + c).all()
    if a_fmt != b_fmt:
        with pytest.raises(Unsupported, match=f"wgmma with .{a_fmt} x .{b_fmt} inputs under --fp hopper"):
            run(ptx, buffers, inputs, fp="hopper")
    else:
        assert (result(run(ptx, buffers, inputs, fp="hopper"), 8) == a @ b + c).all()   # small sums: exact


@pytest.mark.parametrize("a_fmt,b_fmt", [("s8", "u8"), ("u8", "s8"), ("u8", "u8")])
def test_integer_inputs_signed_and_unsigned(a_fmt, b_fmt):
    """.s8/.u8 in any combination, each side extended by its own signedness, into .s32 (§9.7.15.5.2)."""
    c = np.arange(64 * 16).reshape(64, 16) % 7 - 3
    a, b, inputs, buffers, kw = setup(a_fmt, 16, 32, swz_a=128, swz_b=0, c=c, b_fmt=b_fmt)
    inputs["C"] = c[thread_value("C", 16, 8)].astype(np.int32).reshape(-1).view(np.uint32)
    ptx = kernel(shape="m64n16k32", types=f"s32.{a_fmt}.{b_fmt}", n_acc=8, acc_type=".b32", **kw, imms="")
    m = run(ptx.replace("%p2, ;", "%p2;"), buffers, inputs)
    value = {"s8": lambda x: x, "u8": lambda x: x % 256}
    assert not m.findings and (_ints(m, 16) == value[a_fmt](a) @ value[b_fmt](b) + c).all()


def _ints(m, n):
    raw = m.buffer_regions["D"].data[0, : 64 * n * 4].view(np.int32).reshape(128, n // 2)
    rows, cols = thread_value("C", n, n // 2)
    out = np.zeros((64, n))
    out[rows, cols] = raw
    return out


def _f16_case(n=16, swz=64, **kw):
    a, b, inputs, buffers, kwk = setup("f16", n, 16, swz_a=swz, swz_b=swz, c=np.full((64, n), 2.0))
    return a, b, inputs, buffers, dict(shape=f"m64n{n}k16", types="f32.f16.f16", n_acc=n // 2, **kwk, **kw)


def test_scale_d_false_ignores_the_accumulator():
    """§9.7.15.5.2: 'D = A*B is issued when the input predicate argument scale-d is false'."""
    a, b, inputs, buffers, kw = _f16_case(scale_d="0")
    m = run(kernel(**kw), buffers, inputs)
    assert (result(m, 16) == a @ b).all()


@pytest.mark.parametrize("imms,sign_a,sign_b", [("-1, 1, 0, 0", -1, 1), ("1, -1, 0, 0", 1, -1), ("-1, -1, 0, 0", -1, -1)])
def test_imm_scale_negates_each_operand(imms, sign_a, sign_b):
    """§9.7.15.5.2: 'each element of the input matrices A and B can be negated by specifying the value -1'."""
    a, b, inputs, buffers, kw = _f16_case(imms=imms)
    m = run(kernel(**kw), buffers, inputs)
    assert (result(m, 16) == (sign_a * a) @ (sign_b * b) + 2).all()


def test_f16_accumulator_registers_hold_pairs():
    """.f16 D: N/4 .f16x2 registers, d(2j) low and d(2j+1) high (§9.7.15.5.1.1.1)."""
    a, b, inputs, buffers, kw = setup("f16", 16, 16, swz_a=32, swz_b=32, c=np.ones((64, 16)), d_fmt="f16")
    kw.update(shape="m64n16k16", types="f16.f16.f16", n_acc=4, acc_type=".b32")
    m = run(kernel(**kw), buffers, inputs)
    raw = m.buffer_regions["D"].data[0, : 64 * 16 * 2].view(np.float16).reshape(128, 8)
    rows, cols = thread_value("C", 16, 8)
    got = np.zeros((64, 16))
    got[rows, cols] = raw
    assert (got == a @ b + 1).all()


def test_hopper_rows_are_the_wgmma_rows():
    """--fp hopper: the row select_row gives for inst = wgmma, named in Machine.tensor_rows; fp8 -> f32 is
    numerics.md's wgmma row (group 32, 13 extra bits, 14-bit cut), which drops 2^-18 beside 256·256."""
    a, b, inputs, buffers, kw = _f16_case()
    m = run(kernel(**kw), buffers, inputs, fp="hopper")
    assert list(m.tensor_rows) == ["hopper wgmma f16->f32, every ptxas"] and (result(m, 16) == a @ b + 2).all()
    a, b, inputs, buffers, kw = setup("e4m3", 8, 32, swz_a=32, swz_b=32)
    words_a = np.zeros((64, 32), np.uint64)
    words_b = np.zeros((8, 32), np.uint64)      # B as N x K
    words_a[0, :3] = 0x58, 0x58, 0x01           # 16, 16, 2^-9 (e4m3)
    words_b[0, :3] = 0x58, 0xD8, 0x01           # 16, -16, 2^-9: 256 - 256 + 2^-18
    inputs["A"] = image(words_a, canonical(64, 32, 1, 32, 16, 256, False), 1, 2048).view(np.uint32)
    inputs["B"] = image(words_b, canonical(8, 32, 1, 32, 16, 256, False), 1, 1024).view(np.uint32)
    ptx = kernel(shape="m64n8k32", types="f32.e4m3.e4m3", n_acc=4, **kw, imms="1, 1")
    bits = run(ptx, buffers, inputs, fp="hopper")
    assert list(bits.tensor_rows) == ["hopper wgmma e4m3->f32, every ptxas"] and result(bits, 8)[0, 0] == 0.0
    assert result(run(ptx, buffers, inputs), 8)[0, 0] == 2.0 ** -18   # --fp ieee: exact products, one rounding


SPEC = Path("/work/shared/specs/mma-vectors.json")
if not SPEC.exists():  # a copy may live beside the tests in other checkouts
    SPEC = Path(__file__).parents[1] / "numerics" / "mma-vectors.json"
VECTORS = [v for v in (json.loads(SPEC.read_text())["vectors"] if SPEC.exists() else [])
           if "hopper" in v["expect"] and len(v["a"]) <= K_OF.get(v["in"], 0)]


@pytest.mark.parametrize("vec", VECTORS, ids=[v["case"] for v in VECTORS])
def test_discriminating_vectors_bit_for_bit_through_one_wgmma(vec):
    """numerics.md's discriminating dot products as row 0 of A, column 0 of B and D[0][0] of one wgmma under
    --fp hopper: D[0][0] is the spec's Hopper word (the fp8 ones are its wgmma row) and every other element 0."""
    fmt, k = vec["in"], K_OF[vec["in"]]
    es = SIZE[fmt]
    _, _, inputs, buffers, kw = setup(fmt, 8, k, swz_a=32, swz_b=32)
    wa, wb = np.zeros((64, k), np.uint64), np.zeros((8, k), np.uint64)   # B as N x K
    wa[0, :len(vec["a"])] = [int(x, 16) for x in vec["a"]]
    wb[0, :len(vec["b"])] = [int(x, 16) for x in vec["b"]]
    inputs["A"] = image(wa, canonical(64, k, es, 32, 16, 256, False), es, 4 * inputs["A"].size).view(np.uint32)
    inputs["B"] = image(wb, canonical(8, k, es, 32, 16, 256, False), es, 4 * inputs["B"].size).view(np.uint32)
    inputs["C"] = np.zeros(inputs["C"].size, np.uint32)
    inputs["C"][0] = int(vec["c"], 16)
    imms = "1, 1, 0, 0" if es == 2 else "1, 1"
    m = run(kernel(shape=f"m64n8k{k}", types=f"f32.{fmt}.{fmt}", n_acc=4, **kw, imms=imms), buffers, inputs,
            fp="hopper")
    d = m.buffer_regions["D"].data[0, :64 * 8 * 4].view(np.uint32)
    assert f"{int(d[0]):08x}" == vec["expect"]["hopper"] and not d[1:].any()


def test_hopper_fp8_to_f16_wgmma_has_no_row():
    a, b, inputs, buffers, kw = setup("e4m3", 8, 32, swz_a=32, swz_b=32, d_fmt="f16")
    ptx = kernel(shape="m64n8k32", types="f16.e4m3.e4m3", n_acc=2, acc_type=".b32", **kw, imms="1, 1")
    with pytest.raises(Unsupported, match="no measured model for hopper wgmma e4m3 -> f16"):
        run(ptx, buffers, inputs, fp="hopper")


def test_volta_run_says_unsupported_with_the_instruction_and_its_line(tmp_path, capsys):
    """Through the CLI: `volta run --fp hopper` on an fp8 -> f16 wgmma is UNSUPPORTED (exit 3), one paragraph
    naming the instruction at file:line:col, no traceback; --fp ieee runs it."""
    a, b, inputs, buffers, kw = setup("e4m3", 8, 32, swz_a=32, swz_b=32, d_fmt="f16")
    ptx = tmp_path / "k.ptx"
    ptx.write_text(kernel(shape="m64n8k32", types="f16.e4m3.e4m3", n_acc=2, acc_type=".b32", **kw, imms="1, 1"))
    np.savez(tmp_path / "in.npz", **inputs)
    line = next(i for i, t in enumerate(ptx.read_text().splitlines(), 1) if "wgmma.mma_async" in t)
    argv = ["run", str(ptx), "--grid", "1", "--block", "128", "--args", "A,B,C,D", "--inputs", str(tmp_path / "in.npz")]
    argv += [x for buf in buffers for x in ("--buffer", buf)]
    code = cli_run(argv + ["--fp", "hopper"])
    out, err = capsys.readouterr()
    assert code == 3 and "Traceback" not in out + err
    assert f"k.ptx:{line}:" in out + err and "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3" in out + err
    assert cli_run(argv + ["--fp", "ieee"]) == 0


# ---- the asynchronous protocol (§9.7.15.7) ----------------------------------------------------------------------

def _races(m):
    return [f for f in m.findings if f.kind == F.RACE]


def test_accumulator_read_before_wait_group_is_a_race_naming_both_instructions():
    """§9.7.15.7.3: accessing the accumulator before a wait_group that waits on its group is undefined."""
    a, b, inputs, buffers, kw = _f16_case(wait="")
    m = run(kernel(**kw), buffers, inputs)
    races = _races(m)
    assert races and "still in flight" in races[0].message and "%d0" in races[0].message
    assert races[0].sites[0].text.startswith("st.global") and races[0].sites[1].text.startswith("wgmma.mma_async")
    assert not _races(run(kernel(**_f16_case()[4]), buffers, inputs))   # with the wait: clean


def test_wait_group_keeps_the_n_most_recent_groups_in_flight():
    """`wait_group 1` after two commits completes the first group only: its accumulators are readable, the
    second's are not."""
    a, b, inputs, buffers, kw = _f16_case()
    second = ("    wgmma.commit_group.sync.aligned;\n    wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
              "{%e0, %e1, %e2, %e3, %e4, %e5, %e6, %e7}, %rd11, %rd13, 0, 1, 1, 0, 0;")
    ptx = kernel(**kw, second=second, wait="wgmma.wait_group.sync.aligned 1;")
    ptx = ptx.replace(".reg .b32 %a<4>;", ".reg .b32 %a<4>;\n    .reg .f32 %e<8>;")
    m = run(ptx, buffers, inputs)
    assert not _races(m) and (result(m, 16) == a @ b + 2).all()
    late = ptx.replace("    ret;", "    st.global.f32 [%rd8], %e3;\n    ret;")
    races = _races(run(late, buffers, inputs))
    assert races and "%e3" in races[0].message


def test_same_shape_wgmmas_chain_on_one_accumulator_without_a_wait():
    """§9.7.15.7.1: accumulator accesses across wgmma.mma_async instructions of the same shape are ordered."""
    a, b, inputs, buffers, kw = _f16_case()
    second = ("    wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
              "{%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, %rd11, %rd13, 1, 1, 1, 0, 0;")
    m = run(kernel(**kw, second=second), buffers, inputs)
    assert not m.findings and (result(m, 16) == 2 * (a @ b) + 2).all()


def test_shared_operand_written_while_in_flight_is_a_race():
    """Shared memory a wgmma reads is read until its wait_group: a store in between races with the wgmma, as a
    cp.async destination's window does, even when a barrier orders it after the issue."""
    a, b, inputs, buffers, kw = _f16_case()
    store = "    mov.u32 %r20, SB;\n    setp.eq.u32 %p3, %r1, 0;\n    @%p3 st.shared.u32 [%r20], %r1;"
    for before in ("", "    bar.sync 0;\n"):   # the same interval (a plain read-write race) or after a barrier
        races = _races(run(kernel(**kw, after_issue=before + store), buffers, inputs))
        assert races and races[0].buffer == "SB" and races[0].offset == 0, before
        assert races[0].sites[0].text.startswith("wgmma.mma_async") and races[0].sites[1].text.startswith("st.shared")
    assert "while a wgmma.mma_async that reads it is in flight" in races[0].message


def test_shared_operand_written_after_the_wait_is_ordered_in_the_reading_warps():
    """After wait_group (.sync.aligned: a warp synchronization) the warp's own reads are ordered before its
    writes: a row of A (read by its warp only) may be overwritten at once, B (read by all four warps, which may
    still be multiplying) only after a barrier."""
    a, b, inputs, buffers, kw = _f16_case()

    def late(var, offset, barrier):
        store = (f"    mov.u32 %r20, {var};\n    setp.eq.u32 %p3, %r1, 0;\n"
                 f"    @%p3 st.shared.u32 [%r20+{offset}], %r1;")
        return kernel(**kw).replace("    ret;", barrier + store + "\n    ret;")

    assert not _races(run(late("SA", 0, ""), buffers, inputs))   # row 0 of A: warp 0's
    races = _races(run(late("SB", 0, ""), buffers, inputs))
    assert races and races[0].buffer == "SB"
    assert races[0].sites[0].text.startswith("wgmma.mma_async") and races[0].sites[1].text.startswith("st.shared")
    assert not _races(run(late("SB", 0, "    bar.sync 0;\n"), buffers, inputs))
    # a barrier between the issue and the waits orders the issue's reads, not the other warps' completion
    kw["after_issue"] = "    bar.sync 0;"
    races = _races(run(late("SB", 0, ""), buffers, inputs))
    assert races and races[0].buffer == "SB" and races[0].sites[0].text.startswith("wgmma.mma_async")
    assert not _races(run(late("SA", 0, ""), buffers, inputs))


def test_shared_operand_written_before_the_issue_without_a_barrier_races():
    a, b, inputs, buffers, kw = _f16_case()
    ptx = kernel(**kw).replace("    wgmma.fence.sync.aligned;",
                               "    mov.u32 %r20, SB;\n    st.shared.u32 [%r20+64], %r1;\n    wgmma.fence.sync.aligned;")
    races = _races(run(ptx, buffers, inputs))
    assert races and races[0].buffer == "SB"


@pytest.mark.parametrize("fence", ["", "fence.proxy.async.global;"])
def test_generic_writes_without_a_proxy_fence_race_with_the_wgmma(fence):
    """§9.7.15.4: wgmma reads shared memory through the async proxy; the st.shared that filled it (generic proxy)
    needs a fence.proxy.async of its thread before the barrier. A .global proxy fence does not order shared."""
    a, b, inputs, buffers, kw = _f16_case()
    ptx = kernel(**kw).replace("fence.proxy.async.shared::cta;", fence)
    races = _races(run(ptx, buffers, inputs))
    assert races and "fence.proxy.async" in races[0].message and "through the generic proxy" in races[0].message
    assert races[0].sites[0].text.startswith("wgmma.mma_async") and races[0].sites[1].text.startswith("st.shared")
    assert not _races(run(kernel(**kw).replace("fence.proxy.async.shared::cta;", "fence.proxy.async;"), buffers,
                          inputs))


# ---- what is refused or reported ----------------------------------------------------------------------------

@pytest.mark.parametrize("edit,match", [
    (lambda p: p.replace("mma_async.sync", "mma_async.sp.sync"), "sparse wgmma"),
    (lambda p: _with_base_offset(p), "base offset"),
    (lambda p: p.replace("m64n16k16", "m64n20k16"), "no such wgmma"),
    (lambda p: p.replace("{%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}", "{%d0, %d1, %d2, %d3}"), "accumulator takes 8"),
    (lambda p: p.replace("shr.u32 %r15, %r14, 4;", "shr.u32 %r15, %r14, 4;\n    add.u32 %r15, %r15, %r1;"),
     "differs between threads"),
])
def test_refused_forms_name_the_instruction(edit, match):
    a, b, inputs, buffers, kw = _f16_case()
    with pytest.raises(Unsupported, match=match):
        run(edit(kernel(**kw)), buffers, inputs)


def _with_base_offset(ptx):
    """B's descriptor with matrix base offset 1 (bits 51-49)."""
    desc = next(ln for ln in ptx.splitlines() if "or.b64 %rd13" in ln)
    value = int(desc.split(",")[-1].strip(" ;")) | 1 << 49
    return ptx.replace(desc, f"    or.b64 %rd13, %rd10, {value};")


def test_wgmma_needs_whole_warpgroups():
    a, b, inputs, buffers, kw = _f16_case()
    spec = from_options("test.ptx", None, "1", "64", "A,B,C,D", buffers)
    m = Machine(lower(parse_text(kernel(**kw)), None), spec.launches["kernel"], spec.buffers, spec.symbols,
                inputs=inputs)
    with pytest.raises(Unsupported, match="whole warpgroups of 128 threads"):
        m.run()


def test_swizzled_operand_in_an_under_aligned_variable_is_refused():
    a, b, inputs, buffers, kw = _f16_case(swz=128)
    ptx = kernel(**kw).replace(".shared .align 1024 .b8 SB", ".shared .align 128 .b8 SB")
    with pytest.raises(Unsupported, match="declared .align 128"):
        run(ptx, buffers, inputs)


def test_descriptor_past_the_variable_is_out_of_bounds():
    a, b, inputs, buffers, kw = _f16_case()
    desc = kw["desc_b"]
    kw["desc_b"] = desc + (256 << 28)   # SBO 4096 bytes larger: rows 8.. fall past SB
    m = run(kernel(**kw), buffers, inputs)
    oob = [f for f in m.findings if f.kind == F.OUT_OF_BOUNDS]
    assert oob and oob[0].buffer == "SB" and "matrix B" in oob[0].message


# ---- over the reals -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt,swz,a_regs", [("f16", 128, False), ("bf16", 32, False), ("f16", 0, True),
                                             ("tf32", 64, False)])
def test_real_model_gives_the_exact_sums(fmt, swz, a_regs):
    """volta check's model: every D element is C + Σ_k A·B of the input elements, exactly (evaluated at the
    inputs), through the same layouts."""
    k = 8 if fmt == "tf32" else 16
    a, b, inputs, buffers, kw = setup(fmt, 16, k, swz_a=swz, swz_b=swz, a_regs=a_regs, c=np.full((64, 16), 5.0))
    elem = {"f16": "f16", "bf16": "bf16", "tf32": "f32"}[fmt]
    buffers = [x.replace("A=u32", f"A={elem}").replace("B=u32", f"B={elem}").replace("C=u32", "C=f32")
               .replace("D=u32", "D=f32") for x in buffers]
    buffers = [_resize(x, elem) for x in buffers]
    types = {"f16": "f32.f16.f16", "bf16": "f32.bf16.bf16", "tf32": "f32.tf32.tf32"}[fmt]
    imms = "1, 1" + ("" if fmt == "tf32" else (", 0" if a_regs else ", 0, 0"))
    m = run(kernel(shape=f"m64n16k{k}", types=types, n_acc=8, **kw, imms=imms), buffers, {}, fp="real",
            symbolic=True)
    assert not m.findings
    env = {}
    for name in ("A", "B", "C"):
        vals = inputs[name]
        region = m.buffer_regions[name]
        raw = vals.view(np.uint8)
        words = {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32}[region.dtype or "f32"]
        w = raw.view(words)
        for i, x in enumerate(w):
            env[E.var(name, i)] = _value(int(x), region.dtype)
    region = m.buffer_regions["D"]
    lanes = np.zeros(1024, np.int64)   # D read as thread 0 (one copy: no per-thread region)
    offs = np.arange(1024) * 4
    bits, _ = A.load(m, region, lanes, offs, 4)
    sym = A.load_sym(m, m.prog.ops[0], region, lanes, offs, 4, ".f32", bits)
    rows, cols = thread_value("C", 16, 8)
    got = np.zeros((64, 16), object)
    got[rows, cols] = np.array([evaluate(e, env) for e in sym], object).reshape(128, 8)
    assert (got == a @ b + 5).all()


def _resize(text, elem):
    name, rest = text.split("=")
    count = int(rest.split("[")[1].split("]")[0])
    per = 2 if elem in ("f16", "bf16") and name in ("A", "B") else 1
    return f"{name}={rest.split('[')[0]}[{count * per}]:{rest.split(':', 1)[1]}"


def _value(word, dtype):
    if dtype == "f16":
        return Fraction(float(np.uint16(word).view(np.float16)))
    if dtype == "bf16":
        return Fraction(float(np.uint32(word << 16).view(np.float32)))
    return Fraction(float(np.uint32(word).view(np.float32)))
