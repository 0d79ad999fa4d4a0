"""Asynchronous copies (`cp.async`, `cp.async.bulk`) and `mbarrier` over the reals (`volta check`): data movement
(PTX ISA §9.7.9.25 cp.async, §9.7.9.25.4 cp.async.bulk, §9.7.13.15 mbarrier).

The bit handlers (volta/exec/asynccopy.py, volta/exec/hopper.py) decide when bytes move; here the copied
elements' expressions move with them, so a symbolic machine sees in shared memory exactly what the bit-exact
machine would, at the same moment:
- `cp.async` reads its global source when issued (asynccopy.py reads the bits then, and so do we: the
  expressions are captured per element as `SymPart`s beside the batch's bytes) and writes shared memory when
  the issuing thread's `cp.async.wait_group`/`wait_all` completes it: `land` stores them there, replacing
  whatever the stage held (a zero-filled tail, `src-size` < `cp-size` or `ignore-src`, lands as concrete 0).
  A double buffer refilled while another thread still reads it is a RACE found by asynccopy.py's window check.
  Not reported: the issuing thread itself reading its own destination before its wait (the PTX leaves that
  unordered; both models read the old contents there).
- `ldmatrix` of 32-bit words (f32 tiles, Triton's FMA dot) moves whole elements (`_ldmatrix` below; the
  tensor-core module may take it over for 16-bit data).
- `cp.async.bulk` (global→shared, completed through an mbarrier) copies when issued, expressions included
  (hopper.py); `mbarrier` operations move no tensor data (their state and phase answers are concrete).
  Limitation inherited from hopper.py: the bulk copy's shared write is not entered in the race shadow, so a
  read of the destination before the mbarrier wait is not reported.
- Copies keep the representation of what they read: lane-structured values (`LaneSym`, input leaves) stay
  lane-structured in the destination (`store_lsym`), per-lane expressions stay expressions.

Elements are the source buffer's dtype; a copy that splits an element (a `src-size` that is not a multiple
of it) is UNSUPPORTED, never guessed. `cp.async` writes shared memory only (asynccopy.py), which has no element
type: what lands there is read back through loads that compare the stored width. `cp.async.bulk` moves element by
element at the width of the typed side (hopper.py `_move_exprs`), so an output buffer gets whole elements.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from volta.errors import Unsupported
from volta.exec import access as A
from volta.exec import lanesym
from volta.exec.lanesym import LaneSym
from volta.exec.table import DISPATCH, handles_real


@dataclass(frozen=True)
class SymPart:
    """Expressions of one element position of a copy, for some of its issuing lanes."""

    at: int  # byte offset of the element within the copy
    size: int  # element bytes
    lanes: np.ndarray  # sorted issuing lanes
    value: object  # LaneSym over (a subset of) `lanes`, or an object array aligned with `lanes` (None: concrete)


@handles_real("cp", "mbarrier")
def _copy(m, op, lanes):
    """The bit handler; it moves expressions too when the machine is symbolic (`read_piece`/`land`)."""
    DISPATCH[op.op](m, op, lanes)


def read_piece(m, op, region, lanes, offs, at, size) -> list:
    """Expressions of the `size` source bytes at `offs` (landing at byte `at` of each lane's copy), read
    when the copy is issued."""
    if region.sym is None and region.lsref is None and not (
            region.space == ".global" and region.role in ("in", "inout")):
        return []  # nothing symbolic can be there: concrete bytes only
    es = A.region_itemsize(region)
    if region.sym is not None or region.lsref is not None:
        es = _stored_width(m, region, lanes, offs, es)
    if size % es or at % es:
        raise Unsupported(f"`{op.d.inst.opcode}` copies {size} bytes of {es}-byte elements of `{region.name}` "
                          f"(a piece of an element is not modelled over the reals)", op.span)
    parts = []
    for k in range(0, size, es):
        fast = A.load_lsym(m, op, region, lanes, offs + k, es) if m.lane_structured else None
        if fast is not None:
            parts.append(SymPart(at + k, es, fast.lanes, fast))
            continue
        bits, _ = A.load(m, region, lanes, offs + k, es)
        sym = A.load_sym(m, op, region, lanes, offs + k, es, f".b{8 * es}", bits)
        if (sym != None).any():  # noqa: E711
            parts.append(SymPart(at + k, es, lanes.copy(), sym))
    return parts


def _stored_width(m, region, lanes, offs, default):
    """The width of the values the kernel stored at the first stored source element, else `default`."""
    if region.symsize is None:
        return default
    widths = region.symsize[A.row_index(region, lanes, m), offs]
    nz = widths[widths > 0]
    return int(nz[0]) if nz.size else default


def land(m, region, lanes, offs, cp, parts):
    """The copies of `lanes` land at `offs` of `region`: their `cp` bytes' expressions replace what was there."""
    A.store_sym(m, region, lanes, offs, cp, None)  # every byte of the copy is new: no stale stage survives
    if not parts:
        return
    order = np.argsort(lanes, kind="stable")
    sorted_lanes = lanes[order]
    for p in parts:
        pos = np.searchsorted(sorted_lanes, p.lanes)
        posc = np.minimum(pos, sorted_lanes.size - 1)
        hit = sorted_lanes[posc] == p.lanes  # the part's lanes that land now
        if not hit.any():
            continue
        where = order[posc[hit]]
        lz, o = lanes[where], offs[where] + p.at
        if isinstance(p.value, LaneSym):
            A.store_lsym(m, region, lz, o, p.size, p.value)
        else:
            A.store_sym(m, region, lz, o, p.size, p.value[hit])


@handles_real("ldmatrix")
def _ldmatrix(m, op, lanes):
    """`ldmatrix.m8n8{.x1,.x2,.x4}.shared.b16` of 32-bit elements (f32 data, as Triton's FMA dot loads its
    shared tiles): lane l's register i is the whole word at column 2(l&3) of row l>>2 of matrix i (§9.7.14.5.15),
    so over the reals it moves that element's expression. Packed pairs of 16-bit elements (f16/bf16 data, or
    `.trans`, which puts two rows' halves in one register) have no meaning as one real: UNSUPPORTED."""
    src = op.operands[1]
    addr = A.addresses(m, op, src, lanes)  # before the bit handler: a destination may be the address register
    m.symbolic = False  # the bit handler writes bits and DATA flags; the expressions follow in _move_words
    try:
        DISPATCH["ldmatrix"](m, op, lanes)
    finally:
        m.symbolic = True
    done = m.pc[lanes] == op.index + 1
    if not done.any():
        return  # the warp is still gathering
    lz, addr = lanes[done], addr[done]
    order = np.lexsort((m.laneid[lz], m.gwarp[lz]))
    grid, addr = lz[order].reshape(-1, 32), addr[order].reshape(-1, 32)
    regs = list(op.operands[0].elems) if hasattr(op.operands[0], "elems") else [op.operands[0]]
    lane = np.arange(32)
    for i, reg in enumerate(regs):
        words = addr[:, 8 * i + (lane >> 2)] + (4 * (lane & 3)).astype(np.uint64)
        _move_words(m, op, reg, grid.reshape(-1), words.reshape(-1), op.d.has(".trans"))


def _move_words(m, op, reg, lanes, words, trans):
    """Give `reg` of `lanes` the expressions of the 4-byte elements at `words` (its bits are already there)."""
    space = op.d.space or ".shared"
    if space.split("::")[0] != ".shared":
        raise Unsupported(f"`{op.d.inst.opcode}` over the reals: only ldmatrix from .shared is modelled", op.span)
    rids, offs = m.memory.locate(".shared", words)
    bits, flags = m.read(reg, lanes)
    undef = (flags & np.uint8(2)) if flags is not None else np.zeros(lanes.size, np.uint8)
    parts, objs = [], np.full(lanes.size, None, dtype=object)
    for rid in np.unique(rids):
        region = m.memory.regions[int(rid)] if 0 < rid < len(m.memory.regions) else None
        if region is None or region.space.split("::")[0] != ".shared":
            continue  # out of bounds: reported by the bit handler
        sel = np.flatnonzero(rids == rid)
        lz, o = lanes[sel], offs[sel]
        ok = (o >= 0) & (o + 4 <= region.size)
        sel, lz, o = sel[ok], lz[ok], o[ok]
        if region.symsize is not None:
            widths = region.symsize[A.row_index(region, lz, m), o]
            if (widths == 2).any() or (widths == 1).any():
                raise Unsupported(f"`{op.d.inst.opcode}` of 16-bit elements over the reals: a register holds a "
                                  f"packed pair, which is not one real value (use --fp ieee|ARCH)", op.span)
        fast = A.load_lsym(m, op, region, lz, o, 4) if m.lane_structured else None
        if fast is not None:
            parts.append(fast)
            continue
        objs[sel] = A.load_sym(m, op, region, lz, o, 4, ".b32", bits[sel])
    has = objs != None  # noqa: E711
    if parts:
        fast = lanesym.merge(parts)
        if has.any():  # mixed: per-lane expressions for all
            found, pos = fast.positions(lanes)
            objs[found] = fast.exprs()[pos]
            has = objs != None  # noqa: E711
        else:
            if trans:
                raise Unsupported(f"`{op.d.inst.opcode}`: .trans moves 16-bit halves, not real values", op.span)
            data = fast.positions(lanes)[0].astype(np.uint8)
            m.write(reg, lanes, bits, undef | data, fast)
            return
    if trans and has.any():
        raise Unsupported(f"`{op.d.inst.opcode}`: .trans moves 16-bit halves, not real values", op.span)
    m.write(reg, lanes, bits, undef | has.astype(np.uint8), objs if has.any() else None)
