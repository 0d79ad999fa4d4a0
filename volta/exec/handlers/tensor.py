"""Warp-level matrix instructions: `ldmatrix`, `mma.sync` and `wmma.*`, as warp collectives.

Every handler waits until all 32 lanes of a warp arrive (`Machine.collective_ready`), then works on
all ready warps at once: fragments are gathered from the lanes' registers into per-warp tiles
(numpy arrays shaped (warps, rows, cols)), the tile operation runs once, and the result is scattered
back. Layout functions map (lane, fragment slot) to (row, col) and are pure; each cites the PTX ISA
section it follows (PTX ISA 9.x, §9.7.14 "Warp Level Matrix Multiply-Accumulate Instructions").

Numerics of `mma`/`wmma` (see /work/shared/specs/numerics.md):
- `fp` an architecture name (ampere, ada, hopper, …): the bit-exact tensor-core model of
  `volta.numerics.mma_vec` (`mma_batch`, one dot product per output element, chained over K). The row is
  picked by (input, accumulator) type and the machine's `tensor` setting (the ptxas version, on which Hopper fp8
  `mma.sync` depends: volta.numerics.mma_select), and recorded in `Machine.tensor_rows`: fp8 m16n8k32
  `.f16.e4m3.e4m3.f16` / `.f32.e4m3.e4m3.f32` (and e5m2) get the fp8 rows (Ada native; Hopper and Blackwell as
  two f16 HMMAs plus an add of C, per instruction: each mma.sync here is one instruction of K = 32).
- `fp` 'ieee' or 'real': the documented default here is *exact products, summed in float64 in increasing
  k starting from C, rounded once to nearest-even into the accumulator format* (f32 or f16). Products of
  f16/bf16/tf32/fp8 inputs are exact in f64; the f64 sum is exact whenever the terms of one output span
  fewer than 53 bits (always for small integers, typically for f16 data). f64 `mma` is an IEEE fma chain
  under every setting; integer `mma` is exact (wrapping to 32 bits, or clamped with `.satfinite`).

Race tracking: `ldmatrix` reads are attributed to the lane that supplies the row address (that is the
lane whose address the hardware uses); `wmma.load/store` element accesses to the lane that holds the
element in the register layout chosen below.

`wmma` fragment layouts are unspecified by the ISA ("the mapping of matrix elements into fragment
registers is unspecified"), so `wmma` is modelled as whole-tile operations over one fixed, documented
register layout (`wmma_layout`): the tile's elements in row-major logical order, T/32 consecutive elements
per lane, the remaining register slots holding repeated copies (A/B fragments of m16n16k16 f16 hold every
element twice, as hardware fragments do). Programs that only load, fill, scale elementwise, mma and store
fragments — all the ISA defines — behave the same under every layout; a program that depends on which lane
holds which element relies on unspecified behaviour.
"""
from __future__ import annotations

import functools

import numpy as np

from volta.config import FULL_WARP_MASK, WARP_SIZE
from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.handlers.table import _advance, _data_flag, handles
from volta.exec.state import access as A
from volta.exec.state.services import WARP
from volta.numerics.formats import FORMATS
from volta.numerics.mma_select import select_row
from volta.numerics.mma_vec import decode_operand, mma_batch
from volta.ptx import ast
from volta.semantics.bits import U64

# ---- layout functions (pure: lane, slot -> row, col) -------------------------------------------------
#
# g = lane >> 2 (groupID), t = lane & 3 (threadID_in_group). A "slot" numbers the fragment's elements low to
# high as the ISA does (a0, a1, …): slot // per_reg is the register, slot % per_reg the element inside it.


def _gt(lane):
    return lane >> 2, lane & 3


def m16n8k16_a(lane, i):
    """§9.7.14.5.8 (m16n8k16, .f16/.bf16), A 16x16: a0..a7 in four .f16x2 registers."""
    g, t = _gt(lane)
    row = g + 8 * ((i >> 1) & 1)
    col = 2 * t + (i & 1) + 8 * (i >> 2)
    return row, col


def m16n8k16_b(lane, i):
    """§9.7.14.5.8, B 16x8: b0..b3 in two .f16x2 registers."""
    g, t = _gt(lane)
    return 2 * t + (i & 1) + 8 * (i >> 1), g


def m16n8_c(lane, i):
    """C/D 16x8 of m16n8k8/m16n8k16/m16n8k32 (§9.7.14.5.7, .8, .10): c0..c3."""
    g, t = _gt(lane)
    return g + 8 * (i >> 1), 2 * t + (i & 1)


def m16n8k8_a(lane, i):
    """§9.7.14.5.7 (m16n8k8, .f16/.bf16), A 16x8: a0..a3 in two .f16x2 registers."""
    g, t = _gt(lane)
    return g + 8 * (i >> 1), 2 * t + (i & 1)


def m16n8k8_b(lane, i):
    """§9.7.14.5.7 (.f16/.bf16), B 8x8: b0, b1 in one .f16x2 register."""
    g, t = _gt(lane)
    return 2 * t + i, g


def m16n8k8_tf32_a(lane, i):
    """§9.7.14.5.7 (m16n8k8, .tf32), A 16x8: a0..a3, one per .b32 register."""
    g, t = _gt(lane)
    return g + 8 * (i & 1), t + 4 * (i >> 1)


def m16n8k8_tf32_b(lane, i):
    """§9.7.14.5.7 (.tf32), B 8x8: b0, b1."""
    g, t = _gt(lane)
    return t + 4 * i, g


def m16n8k32_a(lane, i):
    """§9.7.14.5.10 (m16n8k32, .s8/.u8/.e4m3/.e5m2), A 16x32: four .b32 registers of four bytes each."""
    g, t = _gt(lane)
    r, j = i >> 2, i & 3
    return g + 8 * (r & 1), 4 * t + 16 * (r >> 1) + j


def m16n8k32_b(lane, i):
    """§9.7.14.5.10, B 32x8: two .b32 registers of four bytes each."""
    g, t = _gt(lane)
    r, j = i >> 2, i & 3
    return 4 * t + 16 * r + j, g


def m8n8k4_f64_a(lane, i):
    """§9.7.14.5.2 (m8n8k4, .f64), A 8x4: a0."""
    return lane >> 2, lane & 3


def m8n8k4_f64_b(lane, i):
    """§9.7.14.5.2, B 4x8: b0."""
    return lane & 3, lane >> 2


def m8n8k4_f64_c(lane, i):
    """§9.7.14.5.2, C/D 8x8: c0, c1."""
    g, t = _gt(lane)
    return g, 2 * t + i


def ldmatrix_layout(lane, j, trans):
    """§9.7.14.5.15 (ldmatrix): of each 8x8 b16 matrix, lane l receives element j (0, 1) of its register
    from row l>>2, column 2*(l&3)+j; with .trans the row and column swap. Rows come from the addresses
    supplied by lanes 8*i..8*i+7 for matrix i."""
    g, t = _gt(lane)
    r, c = g, 2 * t + j
    return (c, r) if trans else (r, c)


# (shape, input class) -> ((M, N, K), A layout, B layout, C layout, elements per 32-bit A/B register)
MMA_SHAPES = {
    (".m16n8k16", "16"): ((16, 8, 16), m16n8k16_a, m16n8k16_b, m16n8_c, 2),
    (".m16n8k8", "16"): ((16, 8, 8), m16n8k8_a, m16n8k8_b, m16n8_c, 2),
    (".m16n8k8", "tf32"): ((16, 8, 8), m16n8k8_tf32_a, m16n8k8_tf32_b, m16n8_c, 1),
    (".m16n8k32", "8"): ((16, 8, 32), m16n8k32_a, m16n8k32_b, m16n8_c, 4),
    (".m8n8k4", "f64"): ((8, 8, 4), m8n8k4_f64_a, m8n8k4_f64_b, m8n8k4_f64_c, 1),
}


@functools.cache
def layout_table(fn, slots):
    """(rows, cols) int arrays of shape (32, slots) for a layout function (made once per table, read-only)."""
    lanes = np.arange(WARP_SIZE)[:, None]
    i = np.arange(slots)[None, :]
    r, c = fn(lanes, i)
    shape = (WARP_SIZE, slots)
    return _frozen(np.broadcast_to(r, shape).astype(np.int64)), _frozen(np.broadcast_to(c, shape).astype(np.int64))


@functools.cache
def wmma_layout(rows, cols, slots):
    """Register layout chosen for wmma fragments (the ISA leaves it unspecified): tile element
    e = lane*(T/32) + slot % (T/32), row-major over the logical rows x cols tile; slots beyond T/32 repeat.
    Made once per shape (every wmma instruction asks), read-only."""
    per = rows * cols // WARP_SIZE
    lanes = np.arange(WARP_SIZE)[:, None]
    s = np.arange(slots)[None, :]
    e = lanes * per + s % per
    return _frozen(e // cols), _frozen(e % cols)


def _frozen(a):
    a.flags.writeable = False
    return a


# ---- helpers ---------------------------------------------------------------------------------------

_IN_FMT = {".f16": "f16", ".bf16": "bf16", ".tf32": "tf32", ".e4m3": "e4m3", ".e5m2": "e5m2", ".f64": "f64",
           ".s8": "s8", ".u8": "u8", ".f32": "f32", ".s32": "s32"}
_WIDTH = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "f64": 64, "s8": 8, "u8": 8, "f32": 32,
          "s32": 32}


def _regs(operand):
    return list(operand.elems) if isinstance(operand, ast.Vector) else [operand]


def _full_warps(m, op, lanes):
    """Wait for whole warps; returns the ready lanes ordered (warp, laneid) as a (W, 32) array, or None."""
    n_in_warp = np.minimum(WARP_SIZE, m.per_cta - m.warp_in_cta[lanes] * WARP_SIZE)
    if (n_in_warp < WARP_SIZE).any():
        raise Unsupported(f"`{op.d.inst.opcode}` needs whole warps of {WARP_SIZE} threads (the block size "
                          f"{m.per_cta} is not a multiple of {WARP_SIZE})", op.span)
    ready = m.collective_ready(op, lanes, np.full(lanes.size, FULL_WARP_MASK, np.uint64))
    if ready is None:
        return None
    lz, _ = ready
    warps = m.gwarp[lz]
    counts = np.bincount(np.unique(warps, return_inverse=True)[1])
    if (counts != WARP_SIZE).any():  # a warp whose guard let only some lanes in: they never all arrive
        full = np.isin(warps, np.unique(warps)[counts == WARP_SIZE])
        m.status[lz[~full]] = WARP
        lz = lz[full]
        if lz.size == 0:
            return None
    order = np.lexsort((m.laneid[lz], m.gwarp[lz]))
    return lz[order].reshape(-1, WARP_SIZE)


def _read_regs(m, regs, grid, t):
    """Bits (W, 32, nregs) and OR of flags per warp (W,) of a register list for lanes `grid` (W, 32)."""
    flat = grid.reshape(-1)
    bits = np.zeros((flat.size, len(regs)), np.uint64)
    flags = np.zeros(flat.size, np.uint8)
    for k, r in enumerate(regs):
        v, f = m.read(r, flat, t)
        bits[:, k] = v
        if f is not None:
            flags |= f
    W = grid.shape[0]
    return bits.reshape(W, WARP_SIZE, len(regs)), np.bitwise_or.reduce(flags.reshape(W, WARP_SIZE), axis=1)


def tile_from_slots(values, table, shape, dtype=np.uint64):
    """Per-slot lane values (one (W, 32) array per slot of a layout table) → tiles (W, rows, cols).
    Shared by the bit-exact replay (words) and the real-number model (expressions, dtype object)."""
    rows, cols = table
    W = values[0].shape[0]
    tile = np.zeros((W,) + shape, dtype) if dtype is not object else np.full((W,) + shape, None, dtype=object)
    pos = (rows * shape[1] + cols).T.reshape(-1)   # slot-major, as slot after slot would write them
    last = pos.size - 1 - np.unique(pos[::-1], return_index=True)[1]   # where a slot repeats an element, the
    flat = tile.reshape(W, -1)                                          # later slot's value is the one kept
    flat[:, pos[last]] = np.stack(values, axis=1).reshape(W, -1)[:, last]
    return tile


def slots_from_tile(tile, table):
    """Tiles (W, rows, cols) → per-slot lane values, one (W, 32) array per slot of a layout table."""
    rows, cols = table
    every = tile[np.arange(tile.shape[0])[:, None, None], rows[None], cols[None]]   # (W, 32, slots): one gather
    return [every[:, :, s] for s in range(rows.shape[1])]


def _gather(bits, per_reg, ew, table, shape):
    """Registers (W, 32, nregs) → tiles (W, rows, cols) of element words, through a layout table."""
    emask = U64((1 << ew) - 1) if ew < 64 else U64(0xFFFFFFFFFFFFFFFF)
    slots = table[0].shape[1]
    return tile_from_slots([(bits[:, :, s // per_reg] >> U64((s % per_reg) * ew)) & emask for s in range(slots)],
                           table, shape)


def _scatter(tile, per_reg, ew, table, nregs):
    """Tiles (W, rows, cols) → registers (W, 32, nregs)."""
    out = np.zeros((tile.shape[0], WARP_SIZE, nregs), np.uint64)
    for s, vals in enumerate(slots_from_tile(tile, table)):
        reg, sub = divmod(s, per_reg)
        out[:, :, reg] |= vals << U64(sub * ew)
    return out


def _write_regs(m, regs, grid, bits, flags):
    flat = grid.reshape(-1)
    f = np.repeat(flags, WARP_SIZE)
    for k, r in enumerate(regs):
        m.write(r, flat, bits[:, :, k].reshape(-1), f)


# ---- the matrix product itself ------------------------------------------------------------------------

def _to_f64(words, fmt):
    return decode_operand(words.astype(np.int64) if fmt != "f64" else words, FORMATS[fmt]).full


def tensor_row(m, in_fmt: str, acc_fmt: str):
    """The tensor-core row of the machine's `--fp` architecture and setting (instruction, ptxas) for these types,
    recorded on the machine so that the run can say which rows it used; None under --fp ieee/real, where only
    f64 (an fma chain) and integer mma are defined. Integer mma is exact everywhere and has no row."""
    if m.fp in ("ieee", "real") or in_fmt in ("s8", "u8"):
        return None
    row = select_row(m.fp, in_fmt, acc_fmt, m.tensor)
    m.tensor_rows.setdefault(row.name, row)
    return row.params


def matmul(Aw, Bw, Cw, in_fmt, acc_fmt, params=None, satfinite=False):
    """D = C + A·B per warp: Aw (W, M, K), Bw (W, K, N), Cw (W, M, N) words → D words (W, M, N) uint64.
    `params` is the tensor-core row (`tensor_row`); None: the documented IEEE-f64 default below."""
    W, M, K = Aw.shape
    N = Bw.shape[2]
    if in_fmt in ("s8", "u8"):
        a = Aw.astype(np.int64)
        b = Bw.astype(np.int64)
        if in_fmt == "s8":
            a = np.where(a >= 128, a - 256, a)
            b = np.where(b >= 128, b - 256, b)
        c = Cw.astype(np.int64)
        c = np.where(c >= 2 ** 31, c - 2 ** 32, c)
        d = c + np.einsum("wmk,wkn->wmn", a, b)
        if satfinite:
            d = np.clip(d, -2 ** 31, 2 ** 31 - 1)
        return (d & 0xFFFFFFFF).astype(np.uint64)
    if in_fmt == "f64" or params is not None:
        arch = "ampere"  # f64 is an IEEE fma chain on every architecture; otherwise `params` is the row
        a_rows = np.broadcast_to(Aw[:, :, None, :], (W, M, N, K)).reshape(-1, K)
        b_cols = np.broadcast_to(np.swapaxes(Bw, 1, 2)[:, None, :, :], (W, M, N, K)).reshape(-1, K)
        if in_fmt != "f64":
            a_rows = a_rows.astype(np.int64)
            b_cols = b_cols.astype(np.int64)
            c = Cw.reshape(-1).astype(np.int64)
        else:
            c = Cw.reshape(-1)
        d = mma_batch(a_rows, b_cols, c, arch, in_fmt, acc_fmt, params=params)
        return np.asarray(d).astype(np.uint64).reshape(W, M, N)
    a = _to_f64(Aw, in_fmt)
    b = _to_f64(Bw, in_fmt)
    c = _to_f64(Cw, acc_fmt)
    with np.errstate(all="ignore"):
        d = c.copy()
        for k in range(K):  # increasing k, products exact in f64
            d += a[:, :, k:k + 1] * b[:, k:k + 1, :]
        if acc_fmt == "f32":
            return d.astype(np.float32).view(np.uint32).astype(np.uint64)
        return d.astype(np.float16).view(np.uint16).astype(np.uint64)


# ---- mma.sync ---------------------------------------------------------------------------------------

def _mma_kind(op):
    types = op.d.types
    if len(types) != 4:
        raise Unsupported(f"`{op.d.inst.opcode}`: expected .dtype.atype.btype.ctype", op.span)
    dt, at, bt, ct = (_IN_FMT.get(x) for x in types)
    if None in (dt, at, bt, ct) or dt != ct or (at != bt and {at, bt} != {"s8", "u8"}):
        raise Unsupported(f"`{op.d.inst.opcode}`: this type combination is not modelled", op.span)
    cls = {"f16": "16", "bf16": "16", "tf32": "tf32", "s8": "8", "u8": "8", "e4m3": "8", "e5m2": "8",
           "f64": "f64"}[at]
    key = (op.d.shape, cls)
    if key not in MMA_SHAPES or op.d.has(".sp", ".sp::ordered_metadata", ".block_scale"):
        raise Unsupported(f"`{op.d.inst.opcode}`: shape {op.d.shape} with {types[1]} inputs is not modelled",
                          op.span)
    if not (op.d.has(".row") and op.d.has(".col")):
        raise Unsupported(f"`{op.d.inst.opcode}`: only the .row.col form is modelled", op.span)
    return key, dt, at, bt, ct


@handles("mma")
def _mma(m, op, lanes):
    key, dt, at, bt, ct = _mma_kind(op)
    (M, N, K), la, lb, lc, per_reg = MMA_SHAPES[key]
    grid = _full_warps(m, op, lanes)
    if grid is None:
        return
    d_op, a_op, b_op, c_op = op.operands[:4]
    ra, rb, rc, rd = _regs(a_op), _regs(b_op), _regs(c_op), _regs(d_op)
    ew = _WIDTH[at]
    a_per = per_reg if at != "f64" else 1
    c_per = 2 if ct == "f16" else 1
    cw = _WIDTH[ct]
    if len(ra) * a_per != M * K // WARP_SIZE or len(rc) * c_per != M * N // WARP_SIZE or len(rd) != len(rc):
        raise Unsupported(f"`{op.d.inst.opcode}`: wrong number of fragment registers", op.span)
    abits, fa = _read_regs(m, ra, grid, None)
    bbits, fb = _read_regs(m, rb, grid, None)
    cbits, fc = _read_regs(m, rc, grid, None)
    Aw = _gather(abits, a_per, ew, layout_table(la, M * K // WARP_SIZE), (M, K))
    Bw = _gather(bbits, a_per, _WIDTH[bt], layout_table(lb, K * N // WARP_SIZE), (K, N))
    Cw = _gather(cbits, c_per, cw, layout_table(lc, M * N // WARP_SIZE), (M, N))
    if at != bt:  # mixed s8/u8: sign-extend each side on its own
        Dw = _mixed_int(Aw, Bw, Cw, at, bt, op.d.has(".satfinite"))
    else:
        Dw = matmul(Aw, Bw, Cw, at, ct, tensor_row(m, at, ct), op.d.has(".satfinite"))
    out = _scatter(Dw, c_per, cw, layout_table(lc, M * N // WARP_SIZE), len(rd))
    _write_regs(m, rd, grid, out, fa | fb | fc)
    _advance(m, grid.reshape(-1))


def _mixed_int(Aw, Bw, Cw, at, bt, sat):
    a = Aw.astype(np.int64)
    b = Bw.astype(np.int64)
    if at == "s8":
        a = np.where(a >= 128, a - 256, a)
    if bt == "s8":
        b = np.where(b >= 128, b - 256, b)
    c = Cw.astype(np.int64)
    c = np.where(c >= 2 ** 31, c - 2 ** 32, c)
    d = c + np.einsum("wmk,wkn->wmn", a, b)
    if sat:
        d = np.clip(d, -2 ** 31, 2 ** 31 - 1)
    return (d & 0xFFFFFFFF).astype(np.uint64)


# ---- ldmatrix -------------------------------------------------------------------------------------

@handles("ldmatrix")
def _ldmatrix(m, op, lanes):
    if op.d.shape != ".m8n8" or (op.d.types and op.d.types[-1] != ".b16"):
        raise Unsupported(f"`{op.d.inst.opcode}`: only .m8n8 .b16 is modelled", op.span)
    nm = 4 if op.d.has(".x4") else 2 if op.d.has(".x2") else 1
    trans = op.d.has(".trans")
    grid = _full_warps(m, op, lanes)
    if grid is None:
        return
    dst, src = op.operands
    regs = _regs(dst)
    if len(regs) != nm:
        raise Unsupported(f"`{op.d.inst.opcode}` needs {nm} destination registers", op.span)
    W = grid.shape[0]
    providers = grid[:, : 8 * nm].reshape(-1)  # lanes 8i..8i+7 give the rows of matrix i
    addr = A.addresses(m, op, src, providers)
    rows = np.zeros((providers.size, 8), np.uint64)  # 8 b16 elements of each supplied row
    undef = np.zeros(providers.size, np.uint8)
    space = op.d.space or None
    pos_of = np.full(m.L, -1, np.int64)
    pos_of[providers] = np.arange(providers.size)
    for region, lz, offs in A.resolve(m, op, space, addr, providers, 16, False):
        if region == "kernel-param":
            raise Unsupported("ldmatrix from kernel parameters", op.span)
        if region.space in (".global", ".shared"):
            A.track(m, op, region, lz, offs, 16, write=False)
        pos = pos_of[lz]
        for half in range(2):
            bits, u = A.load(m, region, lz, offs + 8 * half, 8)
            for e in range(4):
                rows[pos, 4 * half + e] = (bits >> U64(16 * e)) & U64(0xFFFF)
            if u is not None:
                undef[pos] |= u
        f = _data_flag(m, region, lz, offs, 16)
        if f is not None:
            undef[pos] |= f
    mats = rows.reshape(W, nm, 8, 8)  # (warp, matrix, row, col)
    wflags = np.bitwise_or.reduce(undef.reshape(W, -1), axis=1)
    lane = np.arange(WARP_SIZE)
    out = np.zeros((W, WARP_SIZE, nm), np.uint64)
    for j in range(2):
        r, c = ldmatrix_layout(lane, j, trans)
        out |= mats[:, :, r, c].transpose(0, 2, 1) << U64(16 * j)
    _write_regs(m, regs, grid, out, wflags)
    _advance(m, grid.reshape(-1))


# ---- wmma -------------------------------------------------------------------------------------------

_WMMA_SHAPES = {".m16n16k16": (16, 16, 16), ".m32n8k16": (32, 8, 16), ".m8n32k16": (8, 32, 16),
                ".m16n16k8": (16, 16, 8)}


def _wmma_dims(op, which):
    if op.d.shape not in _WMMA_SHAPES:
        raise Unsupported(f"`{op.d.inst.opcode}`: wmma shape {op.d.shape} is not modelled", op.span)
    M, N, K = _WMMA_SHAPES[op.d.shape]
    return {"a": (M, K), "b": (K, N), "c": (M, N), "d": (M, N)}[which]


def _elem_fmt(t):
    f = _IN_FMT.get(t)
    if f is None:
        raise Unsupported(f"wmma element type {t} is not modelled")
    return f


@handles("wmma")
def _wmma(m, op, lanes, exprs=None, grid=None):
    """`exprs`: the real-number handler follows (tensor_real.py); `grid`: the warps it found ready
    (`_full_warps`), not asked again."""
    if op.d.has(".load"):
        return _wmma_load(m, op, lanes, exprs, grid)
    elif op.d.has(".store"):
        _wmma_store(m, op, lanes, grid)
    elif op.d.has(".mma"):
        return _wmma_mma(m, op, lanes, exprs, grid)
    else:
        raise Unsupported(f"`{op.d.inst.opcode}` is not modelled", op.span)


def _wmma_which(op):
    for w in ("a", "b", "c", "d"):
        if op.d.has("." + w):
            return w
    raise Unsupported(f"`{op.d.inst.opcode}`: which matrix (.a/.b/.c/.d)?", op.span)


def wmma_addresses(m, op, grid, ptr_op, stride_op, rows, cols, slots_used, es):
    """Per fragment slot s < slots_used, for the lanes of `grid` in (warp, laneid) order: the row, column and byte
    address of the tile element the lane holds there (`wmma_layout`); `.col` tiles are column-major in memory."""
    col_major = op.d.has(".col")
    flat = grid.reshape(-1)
    base = A.addresses(m, op, ptr_op, flat)
    if stride_op is not None:
        sv, sf = m.read(stride_op, flat, ".u32")
        m.require_concrete(op, sf, flat, "stride")
        stride = sv.astype(np.int64)
    else:
        stride = np.full(flat.size, rows if col_major else cols, np.int64)
    r_tab, c_tab = wmma_layout(rows, cols, slots_used)
    lane_in = np.tile(np.arange(WARP_SIZE), grid.shape[0])
    out = []
    for s in range(slots_used):
        r = r_tab[lane_in, s]
        c = c_tab[lane_in, s]
        lin = (c * stride + r) if col_major else (r * stride + c)
        out.append((r, c, base + (lin * es).astype(np.uint64)))
    return out


def _wmma_access(m, op, grid, ptr_op, stride_op, rows, cols, fmt, slots_used, write, tile=None, tflags=None,
                 exprs=None):
    """Element addresses of a wmma tile for every ready warp; loads (returns tile, flags) or stores. A load given
    `exprs` (an object tile) also fills it with the elements' expressions (`access.load_sym`: None where
    concrete), so the real-number handler reads each element once, here, instead of resolving it again."""
    W = grid.shape[0]
    es = _WIDTH[fmt] // 8
    flat = grid.reshape(-1)
    out = np.zeros((W, rows, cols), np.uint64)
    flags = np.zeros(flat.size, np.uint8)
    w_idx = np.repeat(np.arange(W), WARP_SIZE)
    space = op.d.space or None
    slots = wmma_addresses(m, op, grid, ptr_op, stride_op, rows, cols, slots_used, es)
    if not write and _read_at_once(m, op, space, grid, slots, es, out, flags, exprs):
        return out, np.bitwise_or.reduce(flags.reshape(W, WARP_SIZE), axis=1)
    pos_of = np.full(m.L, -1, np.int64)
    pos_of[flat] = np.arange(flat.size)
    for r, c, addr in slots:
        for region, lz, offs in A.resolve(m, op, space, addr, flat, es, write):
            if region == "kernel-param":
                raise Unsupported("wmma on kernel parameters", op.span)
            pos = pos_of[lz]
            if region.space in (".global", ".shared"):
                A.track(m, op, region, lz, offs, es, write=write)
            if write:
                A.store(m, region, lz, offs, es, tile[w_idx[pos], r[pos], c[pos]])
                m.set_memory_flags(region, lz, offs, es, None if tflags is None else tflags[w_idx[pos]])
            else:
                bits, u = A.load(m, region, lz, offs, es)
                out[w_idx[pos], r[pos], c[pos]] = bits
                if exprs is not None:
                    exprs[w_idx[pos], r[pos], c[pos]] = A.load_sym(m, op, region, lz, offs, es, f".b{8 * es}", bits)
                if u is not None:
                    flags[pos] |= u
                f = _data_flag(m, region, lz, offs, es)
                if f is not None:
                    flags[pos] |= f
    return out, np.bitwise_or.reduce(flags.reshape(W, WARP_SIZE), axis=1)


def _read_at_once(m, op, space, grid, slots, es, out, flags, exprs) -> bool:
    """wmma.load's reads of every slot as one access batch (each lane once per slot), when they all fall in bounds
    and aligned in one shared or global region: `access.resolve` then answers that one group and reports
    nothing, as it does slot by slot, and loads, expressions and flags are element by element, with no effect
    on memory (a batch names each thread once per slot). The race shadow is still told slot by slot (it
    reports a racing pair of instructions once per call: one call would report fewer of the stores a racy load
    meets). Fills `out`, `flags` (and `exprs`) as the slot loop does; False: nothing done (another region,
    generic addressing, a bound or alignment to report)."""
    if space not in (".shared", ".global"):
        return False
    addr = np.stack([a for _r, _c, a in slots])                      # (slots, lanes)
    rids, offs = m.memory.locate(space, addr.reshape(-1))
    rid = int(rids[0])
    if not 0 < rid < len(m.memory.regions) or (rids != rid).any():
        return False
    region = m.memory.regions[rid]
    if region.space.split("::")[0] != space or int(offs.min()) < 0 or int(offs.max()) + es > region.size or \
            (offs % min(es, 16)).any():
        return False
    n = grid.size
    lanes = np.tile(grid.reshape(-1), len(slots))
    found = A.resolve(m, op, space, addr.reshape(-1), lanes, es, False)
    assert len(found) == 1 and found[0][1] is lanes, "resolve split an access it was shown to be clean"
    offs = found[0][2]
    if region.space in (".global", ".shared"):   # slot by slot, as the loop does: the race shadow reports a
        for s in range(len(slots)):                 # racing pair once per call, so one call would name fewer
            A.track(m, op, region, grid.reshape(-1), offs[s * n:(s + 1) * n], es, write=False)
    bits, u = A.load(m, region, lanes, offs, es)
    w = np.tile(np.repeat(np.arange(grid.shape[0]), WARP_SIZE), len(slots))
    r = np.concatenate([r for r, _c, _a in slots])
    c = np.concatenate([c for _r, c, _a in slots])
    out[w, r, c] = bits
    if exprs is not None:
        exprs[w, r, c] = A.load_sym(m, op, region, lanes, offs, es, f".b{8 * es}", bits)
    for f in (u, _data_flag(m, region, lanes, offs, es)):
        if f is not None:
            flags |= np.bitwise_or.reduce(f.reshape(len(slots), n), axis=0)
    return True


def _wmma_load(m, op, lanes, exprs=False, grid=None):
    """With `exprs` (the real-number handler, through run_bits): also the elements' expressions, returned with
    the bits as tiles (words, expressions: None where concrete) of shape (warps, rows, cols), and the registers
    left to that handler to write, once, with their expressions: their bits (warps, 32, registers) and each
    warp's flags."""
    which = _wmma_which(op)
    rows, cols = _wmma_dims(op, which)
    fmt = _elem_fmt(op.d.types[-1])
    grid = _full_warps(m, op, lanes) if grid is None else grid
    if grid is None:
        return
    regs = _regs(op.operands[0])
    per_reg = max(1, 32 // _WIDTH[fmt]) if fmt != "f64" else 1
    slots = len(regs) * per_reg
    T = rows * cols
    if (slots * WARP_SIZE) % T:
        raise Unsupported(f"`{op.d.inst.opcode}`: {len(regs)} registers do not hold a {rows}x{cols} tile",
                          op.span)
    stride_op = op.operands[2] if len(op.operands) > 2 else None
    sym = np.full((grid.shape[0], rows, cols), None, dtype=object) if exprs else None
    tile, wflags = _wmma_access(m, op, grid, op.operands[1], stride_op, rows, cols, fmt, T // WARP_SIZE, False,
                                exprs=sym)
    table = wmma_layout(rows, cols, slots)
    out = _scatter(tile, per_reg, _WIDTH[fmt], table, len(regs))
    if not exprs:
        _write_regs(m, regs, grid, out, wflags)
    _advance(m, grid.reshape(-1))
    return (tile, sym, out, wflags) if exprs else None


def _wmma_store(m, op, lanes, grid=None):
    rows, cols = _wmma_dims(op, "d")
    fmt = _elem_fmt(op.d.types[-1])
    grid = _full_warps(m, op, lanes) if grid is None else grid
    if grid is None:
        return
    regs = _regs(op.operands[1])
    per_reg = 2 if fmt == "f16" else 1
    slots = len(regs) * per_reg
    bits, wflags = _read_regs(m, regs, grid, None)
    tile = _gather(bits, per_reg, _WIDTH[fmt], wmma_layout(rows, cols, slots), (rows, cols))
    if (wflags & 2).any() and (op.d.space or "").startswith(".global"):
        k = int(np.nonzero(wflags & 2)[0][0])
        m.report(F.UNINITIALIZED, "a value read from never-written shared/local memory is stored by wmma.store",
                 op, [grid[k, 0]])
    stride_op = op.operands[2] if len(op.operands) > 2 else None
    _wmma_access(m, op, grid, op.operands[0], stride_op, rows, cols, fmt, rows * cols // WARP_SIZE, True, tile, wflags)
    _advance(m, grid.reshape(-1))


def wmma_mma_kind(op):
    """((M, N, K), dtype, atype, btype, ctype) of a wmma.mma, or Unsupported."""
    M, N, K = _WMMA_SHAPES.get(op.d.shape, (None, None, None))
    if M is None:
        raise Unsupported(f"`{op.d.inst.opcode}`: wmma shape {op.d.shape} is not modelled", op.span)
    types = op.d.types
    if len(types) == 2:
        dt, ct = (_elem_fmt(t) for t in types)
        at = bt = "f16"
    elif len(types) == 4:
        dt, at, bt, ct = (_elem_fmt(t) for t in types)
    else:
        raise Unsupported(f"`{op.d.inst.opcode}`: unexpected types", op.span)
    if at != bt or dt not in ("f32", "f16", "s32") or ct not in ("f32", "f16", "s32"):
        raise Unsupported(f"`{op.d.inst.opcode}`: this type combination is not modelled", op.span)
    return (M, N, K), dt, at, bt, ct


def _wmma_mma(m, op, lanes, exprs=None, grid=None):
    """With `exprs` (the real-number handler, through run_bits), D's registers are not written: their bits
    (warps, 32, registers) and each warp's flags are returned for that handler to write with the expressions."""
    (M, N, K), dt, at, bt, ct = wmma_mma_kind(op)
    grid = _full_warps(m, op, lanes) if grid is None else grid
    if grid is None:
        return
    d_op, a_op, b_op, c_op = op.operands[:4]
    ra, rb, rc, rd = _regs(a_op), _regs(b_op), _regs(c_op), _regs(d_op)
    a_per = 1 if at in ("tf32",) else max(1, 32 // _WIDTH[at])
    c_per = 2 if ct == "f16" else 1
    d_per = 2 if dt == "f16" else 1
    abits, fa = _read_regs(m, ra, grid, None)
    bbits, fb = _read_regs(m, rb, grid, None)
    cbits, fc = _read_regs(m, rc, grid, None)
    Aw = _gather(abits, a_per, _WIDTH[at], wmma_layout(M, K, len(ra) * a_per), (M, K))
    Bw = _gather(bbits, a_per, _WIDTH[bt], wmma_layout(K, N, len(rb) * a_per), (K, N))
    Cw = _gather(cbits, c_per, _WIDTH[ct], wmma_layout(M, N, len(rc) * c_per), (M, N))
    if ct != dt:  # mixed accumulators: convert C to D's format first (exactly for f16 -> f32)
        Cw = _convert_acc(Cw, ct, dt)
    Dw = matmul(Aw, Bw, Cw, at, dt, tensor_row(m, at, dt), op.d.has(".satfinite"))
    out = _scatter(Dw, d_per, _WIDTH[dt], wmma_layout(M, N, len(rd) * d_per), len(rd))
    if exprs:   # the real-number handler writes D's registers, bits and expressions at once
        _advance(m, grid.reshape(-1))
        return out, fa | fb | fc
    _write_regs(m, rd, grid, out, fa | fb | fc)
    _advance(m, grid.reshape(-1))


def _convert_acc(words, src, dst):
    if src == "f16" and dst == "f32":
        return words.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32).astype(np.uint64)
    if src == "f32" and dst == "f16":
        return words.astype(np.uint32).view(np.float32).astype(np.float16).view(np.uint16).astype(np.uint64)
    return words


# ---- movmatrix ----------------------------------------------------------------------------------------

def movmatrix_sources(lane, j):
    """§9.7.14.5.16 movmatrix.m8n8.trans.b16: the source matrix is held as ldmatrix holds it (lane 4r + c//2,
    element c%2 holds (r, c)); element j of lane l's result is source element (2(l&3)+j, l>>2). Returns the
    source lane and the element inside its register."""
    r, c = ldmatrix_layout(lane, j, True)
    return 4 * r + c // 2, c % 2


def movmatrix_form(op):
    if op.d.shape != ".m8n8" or not op.d.has(".trans") or (op.d.types and op.d.types[-1] != ".b16"):
        raise Unsupported(f"`{op.d.inst.opcode}`: only movmatrix.sync.aligned.m8n8.trans.b16 is modelled", op.span)


@handles("movmatrix")
def _movmatrix(m, op, lanes):
    """The 8x8 b16 matrix transposed across the warp; every result depends on the whole warp's flags."""
    movmatrix_form(op)
    grid = _full_warps(m, op, lanes)
    if grid is None:
        return
    dst, src = op.operands
    bits, wflags = _read_regs(m, [src], grid, None)
    lane = np.arange(WARP_SIZE)
    out = np.zeros((grid.shape[0], WARP_SIZE, 1), np.uint64)
    for j in (0, 1):
        sl, sub = movmatrix_sources(lane, j)
        elem = (bits[:, sl, 0] >> (U64(16) * sub.astype(np.uint64))) & U64(0xFFFF)
        out[:, :, 0] |= elem << U64(16 * j)
    _write_regs(m, [dst], grid, out, wflags)
    _advance(m, grid.reshape(-1))
