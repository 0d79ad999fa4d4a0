"""`wgmma.mma_async` over the reals (volta check): D = C + Σ_k A[i][k]·B[k][j] exactly, registered into
dispatch.REAL (PTX ISA §9.7.15.5.2; the layouts are volta/exec/wgmma_layout.py).

The bit handler (volta/exec/wgmma.py) runs for registers' bits, flags, races, bounds, the warpgroup's arrival and
the asynchronous protocol; this module adds the expressions, as tensor_real.py does for `mma.sync`: the operands
are read first (through the same fragment tables and descriptor address maps), then the bit handler runs, then
the accumulator registers get their expressions. Elements are f16, bf16 (pairs in a register: `f16x2(lo, hi)`)
and tf32 (an f32 register or 4-byte shared element read as its real value: no rounding over the reals, as for
mma.sync); `imm-scale-a/b` = -1 negates, `scale-d` false starts from 0. 16-bit elements read from shared memory
go through tensor_real.refuse_unknown_format (moved values carry no f16/bf16 format). fp8 and integer wgmma are
refused here, as their mma.sync forms are: use `--fp ieee|hopper` to compare bits.
"""
from __future__ import annotations

import numpy as np

from volta.errors import Unsupported
from volta.exec import access as A
from volta.exec import tensor_real as TR
from volta.exec import wgmma as W
from volta.exec import wgmma_layout as L
from volta.exec.table import handles_real, run_bits
from volta.exec.tensor import slots_from_tile, tile_from_slots
from volta.symbolic import expr as E


@handles_real("wgmma")
def _wgmma(m, op, lanes):
    if not op.d.has(".mma_async"):
        return run_bits(m, op, lanes)   # fence, commit_group, wait_group: no values
    form = L.decode_form(op)
    for fmt in (form.a, form.b, form.d):
        if fmt not in TR.REAL_TYPES:
            raise Unsupported(f"`{op.d.inst.opcode}` on {fmt} data is not modelled over the reals (fp8 and integer "
                              f"wgmma; use --fp ieee|hopper to compare bits)", op.span)
    grid = W.warpgroups(m, op, lanes)
    if grid is None:
        return
    mods = W.modifiers(m, op, form, grid)
    flat = grid.reshape(-1)
    G = grid.shape[0]
    if form.a_in_registers:
        At = _fragment(m, op, W._regs(op.operands[1]), grid, form.a, form.a_per_register,
                       L.table(L.A_LAYOUT[form.k], 64 * form.k // 128), (64, form.k))
    else:
        words = W.descriptors(m, op, op.operands[1], grid, "A")
        At = _shared(m, op, grid, words, 64, form.k, form.a, mods.trans_a, "A")
    words = W.descriptors(m, op, op.operands[2], grid, "B")
    Bt = np.swapaxes(_shared(m, op, grid, words, form.n, form.k, form.b, mods.trans_b, "B"), 1, 2)
    rd = W._regs(op.operands[0])
    acc = L.table(L.accumulator, form.n // 2)
    Ct = np.full((G, 64, form.n), E.ZERO, dtype=object)
    if mods.scale_d.any():
        Ct[mods.scale_d] = _fragment(m, op, rd, grid[mods.scale_d], form.d, form.d_per_register, acc, (64, form.n))
    if mods.neg_a:
        At = _negated(At)
    if mods.neg_b:
        Bt = _negated(Bt)
    run_bits(m, op, lanes)
    D = TR.product(At, Bt, Ct)
    slots = [v.reshape(-1) for v in slots_from_tile(D, acc)]
    per = form.d_per_register
    for k, r in enumerate(rd):
        TR._write(m, r, flat, TR._pack(slots[k * per:(k + 1) * per], form.d))


def _fragment(m, op, regs, grid, fmt, per, tab, shape):
    """A register fragment's elements as tiles (G, rows, cols) of expressions, through a layout table."""
    G = grid.shape[0]
    elems = TR.register_elements(m, op, regs, grid.reshape(-1), fmt, per)
    values = [elems[s // per][s % per].reshape(G, 128) for s in range(tab[0].shape[1])]
    return tile_from_slots(values, tab, shape, object)


def _shared(m, op, grid, words, mn, k, fmt, mn_major, which):
    """Matrix `which` from shared memory as expressions (G, mn, k): stored ones, concrete bits as their value."""
    es = L.WIDTH[fmt] // 8
    out = np.full((grid.shape[0], mn, k), E.ZERO, dtype=object)
    for word in np.unique(words):
        gs = np.flatnonzero(words == word)
        _, region, offs, bad = W.locate(m, op, word, mn, k, es, mn_major, which)
        if region is None:
            continue   # the bit handler reports it
        good = np.flatnonzero(~bad)
        o = offs[good]
        for g in gs:
            lz = np.full(o.size, int(grid[g, 0]))
            bits, _ = A.load(m, region, lz, o, es)
            sym = A.load_sym(m, op, region, lz, o, es, f".b{8 * es}", bits)
            TR.refuse_unknown_format(m, op, [e for e in sym if e is not None], fmt)
            out[g].reshape(-1)[good] = TR._filled(op, sym, bits, TR.REAL_TYPES[fmt])
    return out


def _negated(tile):
    out = np.empty(tile.shape, dtype=object)
    out.reshape(-1)[:] = [E.neg(x) for x in tile.reshape(-1)]
    return out
