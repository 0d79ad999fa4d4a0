"""ldmatrix, mma.sync and wmma against numpy: synthetic PTX kernels and the tensor-core examples."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from volta.exec.handlers import tensor as T
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.launch.spec import from_options, load_manifest
from volta.ptx.parser import parse_file, parse_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def run(ptx, block, args, buffers, inputs, fp="ieee", grid="1"):
    spec = from_options("test.ptx", None, grid, block, ",".join(args), buffers)
    launch = spec.launches["kernel"]
    prog = lower(parse_text(ptx), None)
    return Machine(prog, launch, spec.buffers, spec.symbols, inputs=inputs, fp=fp).run()


def out(m, name, dtype):
    return m.buffer_regions[name].data[0].view(dtype)


# ---- layouts -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", sorted(T.MMA_SHAPES))
def test_mma_layouts_are_bijections(key):
    (M, N, K), la, lb, lc, _ = T.MMA_SHAPES[key]
    for fn, rows, cols in ((la, M, K), (lb, K, N), (lc, M, N)):
        r, c = T.layout_table(fn, rows * cols // 32)
        cells = set(zip(r.reshape(-1).tolist(), c.reshape(-1).tolist()))
        assert len(cells) == rows * cols and all(0 <= a < rows and 0 <= b < cols for a, b in cells)


def test_ldmatrix_layout_is_a_bijection():
    for trans in (False, True):
        cells = {T.ldmatrix_layout(lane, j, trans) for lane in range(32) for j in range(2)}
        assert cells == {(r, c) for r in range(8) for c in range(8)}


def test_wmma_layout_covers_each_element_equally():
    r, c = T.wmma_layout(16, 16, 16)  # f16 A fragment: 8 registers x 2 halves, every element twice
    counts = np.zeros((16, 16), int)
    np.add.at(counts, (r.reshape(-1), c.reshape(-1)), 1)
    assert (counts == 2).all()


# ---- ldmatrix ------------------------------------------------------------------------------------------

def _ldmatrix_kernel(nm, trans):
    regs = ", ".join(f"%r{10 + i}" for i in range(nm))
    stores = "\n".join(f"    st.global.u32 [%rd3+{4 * i}], %r{10 + i};" for i in range(nm))
    return HEAD + f"""
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
    .reg .b32 %r<20>;
    .reg .b16 %h<2>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 S[512];
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    // copy 8 halves per thread (thread i fills row i of the 32 stacked rows)
    mul.wide.u32 %rd4, %r1, 16;
    add.s64 %rd5, %rd1, %rd4;
    ld.global.v4.u32 {{%r2, %r3, %r4, %r5}}, [%rd5];
    mov.u32 %r6, S;
    shl.b32 %r7, %r1, 4;
    add.s32 %r8, %r6, %r7;
    st.shared.v4.u32 [%r8], {{%r2, %r3, %r4, %r5}};
    bar.sync 0;
    ldmatrix.sync.aligned.m8n8.x{nm}{'.trans' if trans else ''}.shared.b16 {{{regs}}}, [%r8];
    mul.wide.u32 %rd6, %r1, {4 * nm};
    add.s64 %rd3, %rd2, %rd6;
{stores}
    ret;
}}
"""


@pytest.mark.parametrize("nm,trans", [(1, False), (2, False), (4, False), (1, True), (4, True)])
def test_ldmatrix(nm, trans):
    rows = np.arange(32 * 8, dtype=np.uint16).reshape(32, 8) + 1000  # row i supplied by lane i
    m = run(_ldmatrix_kernel(nm, trans), "32", ["IN", "OUT"], ["IN=u16[256]:in", f"OUT=u32[{32 * nm}]:out"],
            {"IN": rows})
    assert not m.findings
    got = out(m, "OUT", np.uint32)[: 32 * nm].reshape(32, nm)
    mats = rows.reshape(4, 8, 8)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(nm):
            mat = mats[i].T if trans else mats[i]
            want = int(mat[g, 2 * t]) | (int(mat[g, 2 * t + 1]) << 16)
            assert int(got[lane, i]) == want, (lane, i)


# ---- mma.sync ------------------------------------------------------------------------------------------

def _mma_kernel(opcode, na, nb, nc, wide=False):
    """Lane l loads its fragment registers from per-lane slices of A/B/C and stores D the same way."""
    t = "b64" if wide else "b32"
    es = 8 if wide else 4
    lines = []
    for name, base, n, first in (("a", "%rd1", na, 10), ("b", "%rd2", nb, 20), ("c", "%rd3", nc, 30)):
        lines.append(f"    mul.wide.u32 %rd9, %r1, {n * es};\n    add.s64 %rd10, {base}, %rd9;")
        for i in range(n):
            lines.append(f"    ld.global.{t} %x{first + i}, [%rd10+{i * es}];")
    regs = lambda first, n: ", ".join(f"%x{first + i}" for i in range(n))  # noqa: E731
    lines.append(f"    {opcode} {{{regs(40, nc)}}}, {{{regs(10, na)}}}, {{{regs(20, nb)}}}, {{{regs(30, nc)}}};")
    lines.append(f"    mul.wide.u32 %rd9, %r1, {nc * es};\n    add.s64 %rd10, %rd4, %rd9;")
    for i in range(nc):
        lines.append(f"    st.global.{t} [%rd10+{i * es}], %x{40 + i};")
    body = "\n".join(lines)
    return HEAD + f"""
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
    .reg .b32 %r<4>;
    .reg .{t} %x<50>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    ld.param.u64 %rd4, [pd];
    mov.u32 %r1, %tid.x;
{body}
    ret;
}}
"""


def _pack16(tile, cells):
    """Per-lane .b32 registers of pairs of 16-bit words: cells[lane] = [(r, c), …] low half first."""
    words = np.zeros((32, len(cells[0]) // 2), np.uint32)
    for lane in range(32):
        for k, (r, c) in enumerate(cells[lane]):
            words[lane, k // 2] |= np.uint32(int(tile[r, c]) << (16 * (k % 2)))
    return words


def test_mma_m16n8k16_f16_matches_numpy_exactly():
    """Fragments per the ISA text (ptx.md): A a0..a3 = (g, 2t..), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..);
    B b0, b1 = rows 2t.., 2t+8.. of column g; C = (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)."""
    rng = np.random.default_rng(1)
    A = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    B = rng.integers(-4, 5, (16, 8)).astype(np.float16)
    C = rng.integers(-8, 9, (16, 8)).astype(np.float32)
    a_cells, b_cells, c_cells = [], [], []
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        a_cells.append([(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1),
                        (g, 2 * t + 8), (g, 2 * t + 9), (g + 8, 2 * t + 8), (g + 8, 2 * t + 9)])
        b_cells.append([(2 * t, g), (2 * t + 1, g), (2 * t + 8, g), (2 * t + 9, g)])
        c_cells.append([(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)])
    Aw = _pack16(A.view(np.uint16), a_cells)
    Bw = _pack16(B.view(np.uint16), b_cells)
    Cw = np.array([[C[r, c] for r, c in cells] for cells in c_cells], np.float32)
    ptx = _mma_kernel("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 4)
    for fp in ("ieee", "ampere", "hopper"):
        m = run(ptx, "32", ["A", "B", "C", "D"], ["A=u32[128]:in", "B=u32[64]:in", "C=f32[128]:in", "D=f32[128]:out"],
                {"A": Aw, "B": Bw, "C": Cw}, fp=fp)
        assert not m.findings
        D = out(m, "D", np.float32)[:128].reshape(32, 4)
        want = C.astype(np.float64) + A.astype(np.float64) @ B.astype(np.float64)
        for lane in range(32):
            for k, (r, c) in enumerate(c_cells[lane]):
                assert D[lane, k] == want[r, c], (fp, lane, k)


def _frag_words(tile, fn, slots, per_reg, ew):
    r, c = T.layout_table(fn, slots)
    words = np.zeros((32, slots // per_reg), np.uint64)
    for s in range(slots):
        words[:, s // per_reg] |= tile[r[:, s], c[:, s]].astype(np.uint64) << np.uint64(ew * (s % per_reg))
    return words


def _unfrag(words, fn, slots, per_reg, ew, shape):
    r, c = T.layout_table(fn, slots)
    tile = np.zeros(shape, np.uint64)
    for s in range(slots):
        tile[r[:, s], c[:, s]] = (words[:, s // per_reg] >> np.uint64(ew * (s % per_reg))) & np.uint64((1 << ew) - 1)
    return tile


@pytest.mark.parametrize("case", ["m16n8k8.f16", "m16n8k8.tf32", "m16n8k32.s8", "m16n8k32.e4m3", "m8n8k4.f64",
                                  "m16n8k16.bf16.f16acc", "m16n8k32.s8@hopper"])
def test_mma_shapes_against_numpy(case):
    """Small integers: every model is exact. `@hopper`: integer mma under an architecture --fp has no
    tensor-core row and stays exact."""
    case, _, arch = case.partition("@")
    rng = np.random.default_rng(2)
    if case == "m16n8k8.f16":
        opcode, key, ab, acc = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", (".m16n8k8", "16"), "f16", "f32"
    elif case == "m16n8k8.tf32":
        opcode, key, ab, acc = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", (".m16n8k8", "tf32"), "tf32", "f32"
    elif case == "m16n8k32.s8":
        opcode, key, ab, acc = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", (".m16n8k32", "8"), "s8", "s32"
    elif case == "m16n8k32.e4m3":
        opcode, key, ab, acc = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", (".m16n8k32", "8"), "e4m3", "f32"
    elif case == "m8n8k4.f64":
        opcode, key, ab, acc = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", (".m8n8k4", "f64"), "f64", "f64"
    else:
        opcode, key, ab, acc = "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16", (".m16n8k16", "16"), "bf16", "f16"
    (M, N, K), la, lb, lc, per = T.MMA_SHAPES[key]
    a = rng.integers(-3, 4, (M, K)).astype(np.float64)
    b = rng.integers(-3, 4, (K, N)).astype(np.float64)
    c = rng.integers(-5, 6, (M, N)).astype(np.float64)
    enc = {
        "f16": lambda x: x.astype(np.float16).view(np.uint16).astype(np.uint64),
        "bf16": lambda x: (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64),
        "tf32": lambda x: x.astype(np.float32).view(np.uint32).astype(np.uint64),
        "f32": lambda x: x.astype(np.float32).view(np.uint32).astype(np.uint64),
        "f64": lambda x: x.astype(np.float64).view(np.uint64),
        "s8": lambda x: (x.astype(np.int64) & 0xFF).astype(np.uint64),
        "s32": lambda x: (x.astype(np.int64) & 0xFFFFFFFF).astype(np.uint64),
        "e4m3": lambda x: np.array([_e4m3(v) for v in x.reshape(-1)], np.uint64).reshape(x.shape),
    }
    ew = T._WIDTH[ab]
    aper = 1 if ab == "f64" else per
    cper = 2 if acc == "f16" else 1
    cw = T._WIDTH[acc]
    Aw = _frag_words(enc[ab](a), la, M * K // 32, aper, ew)
    Bw = _frag_words(enc[ab](b), lb, K * N // 32, aper, ew)
    Cw = _frag_words(enc[acc](c), lc, M * N // 32, cper, cw)
    wide = ab == "f64"
    dt = np.uint64 if wide else np.uint32
    bt = "u64" if wide else "u32"
    m = run(_mma_kernel(opcode, Aw.shape[1], Bw.shape[1], Cw.shape[1], wide), "32", ["A", "B", "C", "D"],
            [f"A={bt}[{Aw.size}]:in", f"B={bt}[{Bw.size}]:in", f"C={bt}[{Cw.size}]:in", f"D={bt}[{Cw.size}]:out"],
            {"A": Aw.astype(dt), "B": Bw.astype(dt), "C": Cw.astype(dt)},
            fp=arch or ("ada" if ab == "e4m3" else "ieee"))
    assert not m.findings and (m.tensor_rows == {}) == (ab == "s8" or m.fp == "ieee")
    Dw = out(m, "D", dt)[: Cw.size].reshape(Cw.shape).astype(np.uint64)
    D = _unfrag(Dw, lc, M * N // 32, cper, cw, (M, N))
    want = c + a @ b
    assert (D == enc[acc](want)).all()


def _e4m3(v):
    from volta.numerics.formats import encode

    return encode(v, "e4m3")


# ---- examples end to end -------------------------------------------------------------------------------

def _run_example(name, inputs, fp="ieee"):
    spec = load_manifest(EXAMPLES / name / "manifest.toml")
    launch = spec.launches["kernel"]
    prog = lower(parse_file(str(launch.ptx)), launch.kernel)
    return Machine(prog, launch, spec.buffers, spec.symbols, inputs=inputs, fp=fp).run(), launch


@pytest.mark.parametrize("name", ["gemm_mma_sync", "gemm_wmma"])
@pytest.mark.parametrize("fp", ["ieee", "ampere"])
def test_gemm_examples_match_numpy(name, fp):
    rng = np.random.default_rng(3)
    spec = load_manifest(EXAMPLES / name / "manifest.toml")
    M, N, K = (int(x.value) for x in spec.launches["kernel"].args[3:6])
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    m, _ = _run_example(name, {"A": A.reshape(-1), "B": B.reshape(-1)}, fp)
    assert not m.findings
    C = out(m, "C", np.float32)[: M * N].reshape(M, N)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(C, ref, rtol=1e-5, atol=1e-5)


def test_attention_wmma_matches_numpy():
    rng = np.random.default_rng(4)
    Q, K, V = (rng.standard_normal((32, 16)).astype(np.float16) for _ in range(3))
    m, _ = _run_example("attention_wmma", {"Q": Q.reshape(-1), "K": K.reshape(-1), "V": V.reshape(-1)})
    assert not m.findings
    O = out(m, "O", np.float32)[:512].reshape(32, 16)
    S = Q.astype(np.float64) @ K.astype(np.float64).T * 0.25
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    ref = P.astype(np.float16).astype(np.float64) @ V.astype(np.float64)
    np.testing.assert_allclose(O, ref, rtol=2e-2, atol=2e-2)
