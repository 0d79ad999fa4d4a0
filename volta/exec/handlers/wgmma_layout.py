"""Where the elements of a `wgmma.mma_async` are: its form, its register fragments, its shared-memory matrices.

Pure functions of the PTX ISA 9.x, §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
Instructions"; nothing here touches a machine (volta/exec/handlers/wgmma.py executes, volta/exec/handlers/wgmma_real.py
over the reals).

- `decode_form`: shape, types and operands of the instruction (§9.7.15.5.2), or Unsupported naming what is not
  modelled (`.sp` sparse forms, single-bit `.b1` forms).
- Register fragments (§9.7.15.5.1.1, Figures 148-153): a warpgroup is 4 warps, 128 threads; warp w holds rows
  16w..16w+15 of A (64 x K) and of the accumulator D (64 x N), in the layout one `mma.sync` m16n8kK warp uses
  for its 16 rows (the ISA draws the same cells; CUTLASS's `ALayout_64x8/64x16/64x32` and `CLayout_64xN` in
  cute/atom/mma_traits_sm90_gmma.hpp encode them as the same functions). Each is a pure function from the
  warpgroup thread (lane, 0..127) and the fragment slot i (a0, a1, ... / d0, d1, ...: slot // per_register is
  the register, slot % per_register the element inside it, low bits first) to (row, column).
- The 64-bit matrix descriptor (§9.7.15.5.1.2.2): start address, leading and stride dimension byte offsets
  (each `(x & 0x3FFFF) >> 4`), base offset, swizzle mode.
- Shared-memory matrix layouts (§9.7.15.5.1.2, Table 38 and "Canonical Layouts" §9.7.15.5.1.2.1.3): the byte
  address of each element (MN index, K index) of an operand from its descriptor, K-major (imm-trans 0) or
  MN-major (imm-trans 1), in units of T = 16 / element-size elements per 16 bytes:

  | major | swizzle   | canonical layout (elements)                | MN-step  | K-step   |
  |-------|-----------|--------------------------------------------|----------|----------|
  | K     | none      | ((8,m),(T,2k)):((1T,SBO),(1,LBO))          | 16 B, SBO per 8 rows | LBO per 16 B |
  | K     | 32/64/128 | ((8,m),(T,2k)):((W/16 T,SBO),(1,T))        | W B, SBO per 8 rows  | contiguous   |
  | MN    | none      | ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))       | SBO per 16 B         | 16 B, LBO per 8 |
  | MN    | 32/64/128 | ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO))| LBO per W B          | W B, SBO per 8  |

  then the swizzle `Swizzle<B,4,3>` (B = 1, 2, 3 for 32, 64, 128 bytes) of the byte address: bits [4, 4+B) XOR
  bits [7, 7+B), the 16-byte chunk within a W-byte row exchanged by the row's index within the pattern, which
  repeats every 8 rows (256, 512, 1024 bytes: the pattern boundaries of §9.7.15.5.1.2.2). The swizzle is of the
  shared-window address (the descriptor's start address plus the offsets), as TMA's swizzled copies write it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from volta.config import WARP_SIZE, WARPGROUP_SIZE
from volta.errors import Unsupported
from volta.ptx import ast

# ---- the form of the instruction (§9.7.15.5.2) -------------------------------------------------------------

FLOAT_N = frozenset(range(8, 257, 8))                                   # .m64nNk{8,16,32}, N = 8, 16, ..., 256
INT_N = frozenset((8, 16, 24, 32)) | frozenset(range(48, 257, 16))      # integer: N = 8i (i<=4), 16i (i=3..16)
K_OF = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}
WIDTH = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "f32": 32, "s32": 32}
_FMT = {".f16": "f16", ".bf16": "bf16", ".tf32": "tf32", ".e4m3": "e4m3", ".e5m2": "e5m2", ".s8": "s8", ".u8": "u8",
        ".f32": "f32", ".s32": "s32", ".b1": "b1"}
SIGN = {"f16": 0x8000, "bf16": 0x8000, "tf32": 0x80000000, "e4m3": 0x80, "e5m2": 0x80}


@dataclass(frozen=True)
class WgmmaForm:
    """One `wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype` and how its operands are given."""

    n: int
    k: int
    d: str   # accumulator format: f32, f16, s32
    a: str
    b: str
    a_in_registers: bool   # A from four registers (else a matrix descriptor)
    satfinite: bool = False

    @property
    def integer(self) -> bool:
        return self.d == "s32"

    @property
    def transposable(self) -> bool:
        """imm-trans-a/b exist only for .f16/.bf16 (§9.7.15.5.2)."""
        return self.a in ("f16", "bf16")

    @property
    def d_per_register(self) -> int:
        return 2 if self.d == "f16" else 1

    @property
    def d_registers(self) -> int:
        """N/2 .f32/.s32 registers, or N/4 .f16x2 registers (§9.7.15.5.1.1)."""
        return self.n // 2 // self.d_per_register

    @property
    def a_per_register(self) -> int:
        return 32 // WIDTH[self.a]

    @property
    def operand_count(self) -> int:
        if self.integer:
            return 4   # d, a, b-desc, scale-d
        if self.transposable:
            return 7 if self.a_in_registers else 8   # ..., imm-scale-a, imm-scale-b, [imm-trans-a,] imm-trans-b
        return 6


def decode_form(op) -> WgmmaForm:
    """The form of a `wgmma.mma_async`, or Unsupported naming what it is and why it is not modelled."""
    d = op.d
    what = f"`{d.inst.opcode}`"
    if d.has(".sp"):
        raise Unsupported(f"{what}: sparse wgmma (`wgmma.mma_async.sp`, §9.7.15.6) is not modelled", op.span)
    shape = d.shape or ""
    if not shape.startswith(".m64n") or "k" not in shape:
        raise Unsupported(f"{what}: expected a .m64nNkK shape", op.span)
    n, k = (int(x) for x in shape[len(".m64n"):].split("k"))
    types = [_FMT.get(t) for t in d.types]
    if len(types) != 3 or None in types:
        raise Unsupported(f"{what}: expected .dtype.atype.btype", op.span)
    dt, at, bt = types
    if "b1" in (at, bt):
        raise Unsupported(f"{what}: single-bit wgmma (.b1 .and.popc) is not modelled", op.span)
    fp8 = {"e4m3", "e5m2"}
    ok = ((at == bt and at in ("f16",) and dt in ("f16", "f32")) or (at == bt == "bf16" and dt == "f32") or
          (at == bt == "tf32" and dt == "f32") or (at in fp8 and bt in fp8 and dt in ("f16", "f32")) or
          (at in ("s8", "u8") and bt in ("s8", "u8") and dt == "s32"))
    if not ok or K_OF[at] != k or n not in (INT_N if dt == "s32" else FLOAT_N):
        raise Unsupported(f"{what}: no such wgmma in the PTX ISA (§9.7.15.5.2: shape {shape} with "
                          f"{'.'.join(d.types)})", op.span)
    form = WgmmaForm(n, k, dt, at, bt, isinstance(op.operands[1], ast.Vector), d.has(".satfinite"))
    if d.has(".satfinite") and not form.integer:
        raise Unsupported(f"{what}: .satfinite belongs to the integer forms", op.span)
    if len(op.operands) != form.operand_count:
        raise Unsupported(f"{what}: expected {form.operand_count} operands for this form, got {len(op.operands)}",
                          op.span)
    return form


# ---- register fragments (§9.7.15.5.1.1) ------------------------------------------------------------------------


def _thread(lane):
    """(first row of the lane's warp, groupID = (lane % WARP_SIZE) >> 2, threadID_in_group = lane % 4)."""
    return 16 * (lane // WARP_SIZE), (lane % WARP_SIZE) >> 2, lane & 3


def accumulator(lane, i):
    """D (64 x N), Figures 149, 151, 153 (every K): d_i at row 16w + g + 8·bit1(i), column 8·(i >> 2) + 2t + bit0(i)."""
    w, g, t = _thread(lane)
    return w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1)


def a_k16(lane, i):
    """A (64 x 16) of .f16/.bf16, Figure 148: a0..a7 in four .f16x2 registers, per warp mma.m16n8k16's A."""
    w, g, t = _thread(lane)
    return w + g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)


def a_k8(lane, i):
    """A (64 x 8) of .tf32, Figure 150: a0..a3 in four .b32 registers, per warp mma.m16n8k8's .tf32 A."""
    w, g, t = _thread(lane)
    return w + g + 8 * (i & 1), t + 4 * (i >> 1)


def a_k32(lane, i):
    """A (64 x 32) of 8-bit types, Figure 152: four .b32 registers of four elements, per warp mma.m16n8k32's A."""
    w, g, t = _thread(lane)
    r, j = i >> 2, i & 3
    return w + g + 8 * (r & 1), 4 * t + 16 * (r >> 1) + j


A_LAYOUT = {16: a_k16, 8: a_k8, 32: a_k32}


def table(fn, slots: int):
    """(rows, cols) int arrays of shape (128, slots): where each warpgroup thread's fragment slots are."""
    lanes = np.arange(WARPGROUP_SIZE)[:, None]
    i = np.arange(slots)[None, :]
    r, c = fn(lanes, i)
    shape = (WARPGROUP_SIZE, slots)
    return np.broadcast_to(r, shape).astype(np.int64), np.broadcast_to(c, shape).astype(np.int64)


# ---- the matrix descriptor (§9.7.15.5.1.2.2) -----------------------------------------------------------------

SWIZZLE_BYTES = {0: 0, 1: 128, 2: 64, 3: 32}   # bits 63-62: none, 128-, 64-, 32-byte swizzle
PATTERN_BYTES = {0: 0, 32: 256, 64: 512, 128: 1024}   # where each pattern repeats (its start boundary)
_FIELDS = (0x3FFF | 0x3FFF << 16 | 0x3FFF << 32 | 0x7 << 49 | 0x3 << 62)


@dataclass(frozen=True)
class Descriptor:
    start: int         # byte address in the CTA's shared window (bits 13-0, times 16)
    lbo: int           # leading dimension byte offset (bits 29-16, times 16)
    sbo: int           # stride dimension byte offset (bits 45-32, times 16)
    base_offset: int   # bits 51-49
    swizzle: int       # bytes: 0 (none), 32, 64, 128
    word: int = 0

    @property
    def undocumented_bits(self) -> int:
        """Bits the ISA's table gives no meaning (reserved)."""
        return self.word & ~_FIELDS & 0xFFFFFFFFFFFFFFFF


def decode_descriptor(word: int) -> Descriptor:
    word = int(word) & 0xFFFFFFFFFFFFFFFF
    return Descriptor(start=(word & 0x3FFF) << 4, lbo=((word >> 16) & 0x3FFF) << 4, sbo=((word >> 32) & 0x3FFF) << 4,
                      base_offset=(word >> 49) & 0x7, swizzle=SWIZZLE_BYTES[word >> 62], word=word)


def encode_descriptor(start: int, lbo: int, sbo: int, swizzle: int = 0, base_offset: int = 0) -> int:
    """The descriptor word for these fields (matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4); for tests."""
    code = {v: k for k, v in SWIZZLE_BYTES.items()}[swizzle]
    enc = lambda x: (x & 0x3FFFF) >> 4  # noqa: E731
    return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | (base_offset & 7) << 49 | code << 62


# ---- shared-memory matrix layouts (§9.7.15.5.1.2) --------------------------------------------------------------


def swizzle(addr, width: int):
    """Swizzle<B,4,3> of byte addresses for a `width`-byte swizzle (none: unchanged)."""
    if not width:
        return addr
    bits = (width // 16) - 1   # 1, 3, 7
    return addr ^ (((addr >> 7) & bits) << 4)


def operand_addresses(desc: Descriptor, mn: int, k: int, esize: int, mn_major: bool) -> np.ndarray:
    """Shared-window byte address of element (i, j) of an operand, i < mn along M (for A) or N (for B), j < k
    along K, as an (mn, k) int64 array: the canonical layout of the module docstring, then the swizzle."""
    i = np.arange(mn, dtype=np.int64)[:, None]
    j = np.arange(k, dtype=np.int64)[None, :]
    w = desc.swizzle
    if not mn_major:   # K-major: 8 rows of 16 (or W) bytes per core matrix / swizzle atom
        t = 16 // esize
        row_pitch = w or 16
        k_group = desc.lbo if not w else 16
        off = (i % 8) * row_pitch + (i // 8) * desc.sbo + (j % t) * esize + (j // t) * k_group
    else:              # MN-major: 16 (or W) contiguous bytes of MN per K row, 8 K rows per atom
        per = (w or 16) // esize
        mn_group, k_group = (desc.lbo, desc.sbo) if w else (desc.sbo, desc.lbo)
        off = (i % per) * esize + (i // per) * mn_group + (j % 8) * (w or 16) + (j // 8) * k_group
    return swizzle(desc.start + off, w)
