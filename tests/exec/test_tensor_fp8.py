"""fp8 `mma.sync` m16n8k32 (.f16 and .f32 accumulators) through the machine with `--fp ARCH`: the rows of issue 13.

A warp loads its fragments (PTX ISA §9.7.14.5.10: A a0..a3 = rows g, g+8 × k 4t..4t+3, 4t+16..4t+19; B b0, b1 =
k 4t..4t+3, 4t+16..4t+19 of column g; C/D f32 c0..c3 = (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1), f16 two per
register), runs one mma.sync and stores D. The whole tile must equal the vectorized model, and element (0, 0),
loaded with a discriminating vector of tests/numerics/test_mma_rows.py, must give that vector's word.
"""
from __future__ import annotations

import shutil
import subprocess
import zlib

import numpy as np
import pytest

from volta.errors import UsageError
from volta.exec.handlers import tensor as T
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.launch.spec import from_options
from volta.numerics.mma_model import HOPPER_FP8_PTXAS_12_4, PARAMS
from volta.numerics.mma_select import MmaSetting
from volta.numerics.mma_vec import mma
from volta.ptx.parser import parse_text

HEAD = ".version 8.7\n.target sm_89\n.address_size 64\n"


def _kernel(opcode: str, nc: int) -> str:
    """Lane l: A words 4l..4l+3, B 2l..2l+1, C nc·l.., D nc·l.. (all .b32)."""
    ld = []
    for name, n, first, reg in (("a", 4, 10, "%rd1"), ("b", 2, 20, "%rd2"), ("c", nc, 30, "%rd3")):
        ld.append(f"    mul.wide.u32 %rd9, %r1, {4 * n};\n    add.s64 %rd10, {reg}, %rd9;")
        ld += [f"    ld.global.b32 %x{first + i}, [%rd10+{4 * i}];" for i in range(n)]
    regs = lambda first, n: ", ".join(f"%x{first + i}" for i in range(n))  # noqa: E731
    st = [f"    mul.wide.u32 %rd9, %r1, {4 * nc};\n    add.s64 %rd10, %rd4, %rd9;"]
    st += [f"    st.global.b32 [%rd10+{4 * i}], %x{40 + i};" for i in range(nc)]
    body = "\n".join(ld + [f"    {opcode} {{{regs(40, nc)}}}, {{{regs(10, 4)}}}, {{{regs(20, 2)}}}, "
                           f"{{{regs(30, nc)}}};"] + st)
    return HEAD + f"""
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
    .reg .b32 %r<4>;
    .reg .b32 %x<50>;
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


def _frag(tile, fn, slots, per_reg, ew):
    r, c = T.layout_table(fn, slots)
    words = np.zeros((32, slots // per_reg), np.uint64)
    for s in range(slots):
        words[:, s // per_reg] |= tile[r[:, s], c[:, s]].astype(np.uint64) << np.uint64(ew * (s % per_reg))
    return words.astype(np.uint32)


def _unfrag(words, fn, slots, per_reg, ew, shape):
    r, c = T.layout_table(fn, slots)
    words = words.astype(np.uint64)
    tile = np.zeros(shape, np.uint64)
    for s in range(slots):
        tile[r[:, s], c[:, s]] = (words[:, s // per_reg] >> np.uint64(ew * (s % per_reg))) & np.uint64((1 << ew) - 1)
    return tile


def run_mma(ptx: str, A, B, C, acc: str, fp: str, tensor: MmaSetting | None = None, rows: dict | None = None):
    """Run the kernel on one warp with tiles A (16x32), B (32x8) of fp8 words and C (16x8) accumulator words;
    `rows`, when given, receives the machine's tensor-core rows."""
    _, la, lb, lc, _ = T.MMA_SHAPES[(".m16n8k32", "8")]
    cper, cw = (2, 16) if acc == "f16" else (1, 32)
    Aw, Bw = _frag(A, la, 16, 4, 8), _frag(B, lb, 8, 4, 8)
    Cw = _frag(C, lc, 4, cper, cw)
    spec = from_options("test.ptx", None, "1", "32", "A,B,C,D",
                        [f"A=u32[{Aw.size}]:in", f"B=u32[{Bw.size}]:in", f"C=u32[{Cw.size}]:in",
                         f"D=u32[{Cw.size}]:out"])
    m = Machine(lower(parse_text(ptx), None), spec.launches["kernel"], spec.buffers, spec.symbols,
                inputs={"A": Aw.reshape(-1), "B": Bw.reshape(-1), "C": Cw.reshape(-1)}, fp=fp, tensor=tensor).run()
    assert not m.findings
    if rows is not None:
        rows.update(m.tensor_rows)
    Dw = m.buffer_regions["D"].data[0].view(np.uint32)[: Cw.size].reshape(Cw.shape)
    return _unfrag(Dw, lc, 4, cper, cw, (16, 8))


def _rand_fp8(rng, shape):
    """Finite fp8 words of both formats' common finite range (no e4m3 NaN 7f/ff, no e5m2 inf/NaN exponent)."""
    w = rng.integers(0, 256, shape)
    return np.where((w & 0x7C) == 0x7C, w & 0xB3, w).astype(np.uint64)


ROWS = [(arch, i, acc) for arch in ("ada", "hopper", "blackwell") for i in ("e4m3", "e5m2") for acc in ("f16", "f32")]


@pytest.mark.parametrize("arch,in_fmt,acc", ROWS)
def test_fp8_mma_sync_tile_is_the_model(arch, in_fmt, acc):
    rng = np.random.default_rng(zlib.crc32(f"{arch}{in_fmt}{acc}".encode()))
    A, B = _rand_fp8(rng, (16, 32)), _rand_fp8(rng, (32, 8))
    if acc == "f16":
        C = rng.standard_normal((16, 8)).astype(np.float16).view(np.uint16).astype(np.uint64)
    else:
        C = rng.standard_normal((16, 8)).astype(np.float32).view(np.uint32).astype(np.uint64)
    opcode = f"mma.sync.aligned.m16n8k32.row.col.{acc}.{in_fmt}.{in_fmt}.{acc}"
    D = run_mma(_kernel(opcode, 2 if acc == "f16" else 4), A, B, C, acc, arch)
    want = mma(A.astype(np.int64), B.astype(np.int64), C.astype(np.int64), arch, in_fmt, acc)
    assert (D == want.astype(np.uint64)).all()


# (arch, in, acc, c, [(k, a, b)], word): vectors H1, H3, A3, B1, B4a of tests/numerics/test_mma_rows.py (derived
# there), on element (0, 0): a[k] at A[0][k], b[k] at B[k][0].
ELEMENT_CASES = [
    ("hopper", "e4m3", "f16", 0x0000, [(0, 0x70, 0x70), (1, 0x70, 0xF0), (2, 0x08, 0x08)], 0x0C00),  # H1 k%4 split
    ("blackwell", "e4m3", "f16", 0x0000, [(0, 0x70, 0x70), (1, 0x70, 0xF0), (16, 0x08, 0x08)], 0x0000),  # H2
    ("hopper", "e5m2", "f16", 0x4C00, [(0, 0x24, 0x38), (1, 0x18, 0x18)], 0x4C00),  # H3 (e5m2 words), c after
    ("ada", "e4m3", "f16", 0x6400, [(0, 0x30, 0x38), (1, 0x18, 0x38)], 0x6400),  # A3 c joins group 1
    ("ada", "e4m3", "f16", 0x0000, [(0, 0x3C, 0x40), (1, 0x38, 0x38), (2, 0x20, 0x08), (3, 0x08, 0x08)], 0x4401),
    ("blackwell", "e4m3", "f32", 0x43000000, [(0, 0x03, 0x01)], 0x43000001),  # B1 RNE c after
    ("blackwell", "e5m2", "f32", 0, [(0, 0x5C, 0x5C), (1, 0x5C, 0xDC), (2, 0x18, 0x18)], 0x36800000),  # B4a'
]


@pytest.mark.parametrize("arch,in_fmt,acc,c,pairs,want", ELEMENT_CASES)
def test_fp8_mma_sync_discriminating_element(arch, in_fmt, acc, c, pairs, want):
    A, B = np.zeros((16, 32), np.uint64), np.zeros((32, 8), np.uint64)
    C = np.zeros((16, 8), np.uint64)
    for k, x, y in pairs:
        A[0, k], B[k, 0] = x, y
    C[0, 0] = c
    opcode = f"mma.sync.aligned.m16n8k32.row.col.{acc}.{in_fmt}.{in_fmt}.{acc}"
    D = run_mma(_kernel(opcode, 2 if acc == "f16" else 4), A, B, C, acc, arch)
    assert int(D[0, 0]) == want
    assert (in_fmt, acc) in PARAMS[arch]


@pytest.mark.parametrize("in_fmt", ["e4m3", "e5m2"])
def test_the_machine_takes_the_ptxas_version(in_fmt):
    """Hopper fp8 mma.sync -> f32 as ptxas 12.4-12.6 compile it: the whole tile is that row, element (0, 0)
    carries vector P1 of tests/numerics/test_mma_select.py (45800001 there, 45800000 under ptxas 12.8+), and the
    machine records the row it used."""
    rng = np.random.default_rng(zlib.crc32(in_fmt.encode()))
    A, B = _rand_fp8(rng, (16, 32)), _rand_fp8(rng, (32, 8))
    C = rng.standard_normal((16, 8)).astype(np.float32).view(np.uint32).astype(np.uint64)
    A[0, :], B[:, 0], C[0, 0] = 0, 0, 0
    p1 = {"e4m3": ([0x68, 0, 0x0C], [0x68, 0, 0x08]), "e5m2": ([0x54, 0, 0x26], [0x54, 0, 0x24])}[in_fmt]
    A[0, :3], B[:3, 0] = p1
    ptx = _kernel(f"mma.sync.aligned.m16n8k32.row.col.f32.{in_fmt}.{in_fmt}.f32", 4)
    rows = {}
    D = run_mma(ptx, A, B, C, "f32", "hopper", MmaSetting("mma", (12, 6)), rows)
    want = mma(A.astype(np.int64), B.astype(np.int64), C.astype(np.int64), "hopper", in_fmt, "f32",
               params=HOPPER_FP8_PTXAS_12_4)
    assert (D == want.astype(np.uint64)).all() and int(D[0, 0]) == 0x45800001
    assert list(rows) == [f"hopper mma.sync {in_fmt}->f32, ptxas 12.4-12.6"]
    assert int(run_mma(ptx, A, B, C, "f32", "hopper", MmaSetting("mma", (13, 0)))[0, 0]) == 0x45800000


def test_a_toolkit_that_rejects_the_mma_is_a_usage_error():
    ptx = _kernel("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", 2)
    A, B, C = np.zeros((16, 32), np.uint64), np.zeros((32, 8), np.uint64), np.zeros((16, 8), np.uint64)
    with pytest.raises(UsageError, match="rejects fp8 mma.sync with an f16 accumulator"):
        run_mma(ptx, A, B, C, "f16", "hopper", MmaSetting("mma", (12, 5)))


CUDA = r"""
#include <cstdint>
extern "C" __global__ void k(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
    int l = threadIdx.x;
    uint32_t a0 = a[4*l], a1 = a[4*l+1], a2 = a[4*l+2], a3 = a[4*l+3], b0 = b[2*l], b1 = b[2*l+1];
    uint32_t c0 = c[2*l], c1 = c[2*l+1];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
                 : "+r"(c0), "+r"(c1) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    d[2*l] = c0; d[2*l+1] = c1;
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("sm", ["sm_89", "sm_90"])
def test_nvcc_compiled_fp8_mma_sync(tmp_path, sm):
    """The same mma through PTX that nvcc writes from inline asm (its own register names and loads)."""
    src = tmp_path / "k.cu"
    src.write_text(CUDA)
    out = tmp_path / "k.ptx"
    res = subprocess.run(["nvcc", "-ptx", f"-arch={sm}", str(src), "-o", str(out)], capture_output=True, text=True,
                         timeout=120)
    if res.returncode:
        pytest.skip(f"nvcc failed: {res.stderr.strip()[:200]}")
    rng = np.random.default_rng(7)
    A, B = _rand_fp8(rng, (16, 32)), _rand_fp8(rng, (32, 8))
    C = rng.standard_normal((16, 8)).astype(np.float16).view(np.uint16).astype(np.uint64)
    A[0, :3], B[:3, 0], C[0, 0] = [0x70, 0x70, 0x08], [0x70, 0xF0, 0x08], 0  # H1 on row 0 / column 0
    A[0, 3:], B[3:, 0] = 0, 0
    arch = "ada" if sm == "sm_89" else "hopper"
    D = run_mma(out.read_text(), A, B, C, "f16", arch)
    want = mma(A.astype(np.int64), B.astype(np.int64), C.astype(np.int64), arch, "e4m3", "f16")
    assert (D == want.astype(np.uint64)).all()
    assert int(D[0, 0]) == (0x0000 if arch == "ada" else 0x0C00)  # Ada: one group, F = 13 drops 2^-12
