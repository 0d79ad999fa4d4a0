"""Asynchronous copies: `cp.async` (non-bulk) with commit/wait groups, and what is modelled of the rest.

`cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}`:
- At issue (per thread): the destination and source are bounds-checked; the global source is read now
  (`src-size` bytes; the rest of `cp-size` is zero-filled; `ignore-src` true reads nothing and fills
  zeros) and race-tracked as a read; the copy joins the thread's open group.
- The shared destination is written *some time between issue and the issuing thread's wait*. Race
  semantics follow from that window:
  1. at issue the destination is checked and recorded as a write by the issuing thread (a read of the
     region by another thread in the same barrier interval — e.g. a stale double buffer still being read —
     races with it);
  2. at the issuing thread's `cp.async.wait_group`/`wait_all` that completes the copy, the bytes land in
     shared memory and are recorded again as a write (so a reader must pass a barrier that follows the
     wait); before that, any access by another thread made after the issue, even across barriers, is
     reported (the copy may have landed at any point of that window).
- `cp.async.commit_group` closes the thread's open group; `cp.async.wait_group N` completes every copy of
  that thread except those of its N most recent committed groups; `cp.async.wait_all` is commit + wait 0.

Per-thread state lives on the machine object, created lazily here: `m.async_state` (see `_state`).
On a symbolic machine (`volta check`) each batch also carries the expressions read at issue; they land
with the bytes (volta/exec/copy_real.py).
`cp.async.bulk*` and `cp.async.mbarrier.arrive` are reported as Unsupported with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from volta.errors import Unsupported
from volta.exec import access as A
from volta.exec import copy_real
from volta.exec import findings as F
from volta.exec.table import _advance, handles
from volta.ir.program import RegRef
from volta.ptx import ast


@dataclass
class _Batch:
    """The copies of one `cp.async` execution: one entry per issuing lane."""

    op: object
    region: object
    lanes: np.ndarray  # issuing threads
    offs: np.ndarray  # destination offsets in `region`
    data: np.ndarray  # (n, cp_size) uint8, zero-filled past src-size
    src_size: np.ndarray  # bytes that came from global memory
    group: np.ndarray  # the issuing thread's group number
    gen: np.ndarray  # barrier generation of the issuing thread's CTA at issue
    done: np.ndarray  # landed already
    sym: list | None = None  # symbolic machines: the copied elements' expressions (copy_real.SymPart)


@dataclass
class AsyncState:
    committed: np.ndarray  # per thread: groups committed so far (the open group has this number)
    batches: list = field(default_factory=list)


def _state(m) -> AsyncState:
    st = m.__dict__.get("async_state")
    if st is None:
        st = m.__dict__.setdefault("async_state", AsyncState(np.zeros(m.L, np.int64)))
    return st


def _imm(m, op, operand, lanes, what):
    v, f = m.read(operand, lanes, ".u32")
    m.require_concrete(op, f, lanes, what)
    return v.astype(np.int64)


@handles("cp")
def _cp(m, op, lanes):
    d = op.d
    if d.has(".bulk", ".tensor"):
        raise Unsupported(f"`{d.inst.opcode}`: bulk/tensor asynchronous copies (TMA) are not modelled yet", op.span)
    if d.has(".mbarrier", ".arrive", ".mbarrier::complete_tx::bytes"):
        raise Unsupported(f"`{d.inst.opcode}`: cp.async completion through an mbarrier is not modelled", op.span)
    if not d.has(".async"):
        raise Unsupported(f"`{d.inst.opcode}` is not modelled", op.span)
    if d.has(".commit_group"):
        st = _state(m)
        st.committed[lanes] += 1
        _advance(m, lanes)
    elif d.has(".wait_group"):
        n = int(_imm(m, op, op.operands[0], lanes[:1], "group count")[0])
        _complete(m, op, lanes, n)
        _advance(m, lanes)
    elif d.has(".wait_all"):
        _state(m).committed[lanes] += 1
        _complete(m, op, lanes, 0)
        _advance(m, lanes)
    else:
        _issue(m, op, lanes)
        _advance(m, lanes)


def _issue(m, op, lanes):
    st = _state(m)
    ops = list(op.operands)
    dst, src, size_op = ops[0], ops[1], ops[2]
    extra = ops[3:]
    if op.d.has(".L2::cache_hint") and extra:
        extra = extra[:-1]  # the trailing cache-policy operand
    cp_size = _imm(m, op, size_op, lanes, "copy size")
    if np.unique(cp_size).size != 1 or int(cp_size[0]) not in (4, 8, 16):
        raise Unsupported(f"`{op.d.inst.opcode}`: cp-size must be 4, 8 or 16", op.span)
    cp = int(cp_size[0])
    if op.d.has(".cg") and cp != 16:
        m.report(F.MISALIGNED, "cp.async.cg requires cp-size 16", op, [lanes[0]])
    src_size = np.full(lanes.size, cp, np.int64)
    if extra:
        e = extra[0]
        if isinstance(e, (RegRef, ast.NotReg)) and (getattr(e, "type", None) == ".pred" or isinstance(e, ast.NotReg)):
            v, f = m.read(e, lanes, ".pred")
            m.require_concrete(op, f, lanes, "ignore-src predicate")
            src_size = np.where(v != 0, 0, cp)
        else:
            src_size = _imm(m, op, e, lanes, "source size")
            bad = src_size > cp
            if bad.any():
                k = int(np.nonzero(bad)[0][0])
                m.report(F.OUT_OF_BOUNDS, f"cp.async src-size {int(src_size[k])} exceeds cp-size {cp}", op, [lanes[k]])
                src_size = np.minimum(src_size, cp)
    dst_space = op.d.space or ".shared"
    dst_addr = A.addresses(m, op, dst, lanes)
    src_addr = A.addresses(m, op, src, lanes)
    data = np.zeros((lanes.size, cp), np.uint8)
    ok = np.zeros(lanes.size, bool)
    sym = [] if m.symbolic else None  # expressions read with the bytes, landing with them (copy_real.py)
    # 1. the global source, read now (only src-size bytes)
    for size in np.unique(src_size):
        size = int(size)
        sel = src_size == size
        if size == 0:
            ok[sel] = True
            continue
        # power-of-two pieces (12 = 8 + 4), so each piece has its natural alignment
        got = np.zeros(lanes.size, np.int64)
        at = 0
        for piece in (16, 8, 4, 2, 1):
            if not size & piece:
                continue
            for region, lz, offs in A.resolve(m, op, ".global", src_addr[sel] + np.uint64(at), lanes[sel], piece,
                                              False):
                pos = np.searchsorted(lanes, lz)
                if region == "kernel-param":
                    raise Unsupported("cp.async from kernel parameters", op.span)
                A.track(m, op, region, lz, offs, piece, write=False)
                rows = A.row_index(region, lz, m)
                flat = region.data.reshape(-1)
                start = rows * region.data.shape[1] + offs
                data[pos[:, None], at + np.arange(piece)[None, :]] = flat[start[:, None] + np.arange(piece)]
                if sym is not None:
                    sym += copy_real.read_piece(m, op, region, lz, offs, at, piece)
                got[pos] += piece
            at += piece
        ok[got == size] = True
    # 2. the shared destination: bounds now, a write by the issuing thread from now until its wait
    for region, lz, offs in A.resolve(m, op, dst_space, dst_addr, lanes, cp, True):
        if region == "kernel-param" or region.space != ".shared":
            raise Unsupported(f"`{op.d.inst.opcode}`: the destination must be shared memory", op.span)
        pos = np.searchsorted(lanes, lz)
        keep = ok[pos]
        lz, offs, pos = lz[keep], offs[keep], pos[keep]
        if not lz.size:
            continue
        A.track(m, op, region, lz, offs, cp, write=True)
        st.batches.append(_Batch(op, region, lz, offs, data[pos], src_size[pos], st.committed[lz].copy(),
                                 m.gen[m.cta[lz]].copy(), np.zeros(lz.size, bool), sym))


def _complete(m, op, lanes, keep_groups):
    """Land every pending copy of `lanes` except those of their `keep_groups` most recent groups."""
    st = _state(m)
    limit = np.full(m.L, -1, np.int64)
    limit[lanes] = st.committed[lanes] - keep_groups  # groups numbered below this complete
    alive = []
    for b in st.batches:
        sel = ~b.done & (b.group < limit[b.lanes])
        if sel.any():
            _land(m, b, sel)
            b.done |= sel
        if not b.done.all():
            alive.append(b)
    st.batches = alive


def _land(m, b, sel):
    region, lz, offs = b.region, b.lanes[sel], b.offs[sel]
    cp = b.data.shape[1]
    if m.check_races and region.shadow is not None:
        _window_check(m, b, sel)
        A.track(m, b.op, region, lz, offs, cp, write=True)
    for k in range(cp):  # byte by byte: data, flags (DATA for bytes from global), written
        byte = b.data[sel, k].astype(np.uint64)
        A.store(m, region, lz, offs + k, 1, byte)
        from_src = (b.src_size[sel] > k).astype(np.uint8)
        m.set_memory_flags(region, lz, offs + k, 1, from_src)
    if b.sym is not None:
        copy_real.land(m, region, lz, offs, cp, b.sym)


def _window_check(m, b, sel):
    """Accesses by other threads of the same CTA to the destination after the issue, in any barrier
    interval up to now: the copy may have landed while they happened."""
    sh = b.region.shadow
    lz, offs, gen0 = b.lanes[sel], b.offs[sel], b.gen[sel]
    cp = b.data.shape[1]
    g = sh.g
    rows = A.row_index(b.region, lz, m)
    stride = b.region.data.shape[1]
    per = max(1, cp // g)
    gidx = ((rows * stride + offs) // g)[:, None] + np.arange(per)
    tid = np.repeat(lz, per)
    cta = np.repeat(m.cta[lz], per)
    gen = np.repeat(gen0, per)
    gidx = gidx.reshape(-1)
    r_tid = sh.r_tid[gidx]
    r_hit = (r_tid >= 0) & (sh.r_cta[gidx] == cta) & (sh.r_gen[gidx] >= gen) & ((r_tid != tid) | sh.r_mthread[gidx])
    w_tid = sh.w_tid[gidx]
    w_hit = (w_tid >= 0) & (w_tid != tid) & (sh.w_cta[gidx] == cta) & (sh.w_gen[gidx] >= gen)
    for hit, tids, pcs, what in ((r_hit, r_tid, sh.r_pc, "read"), (w_hit, w_tid, sh.w_pc, "write")):
        if hit.any():
            k = int(np.argmax(hit))
            reader, pc = int(tids[k]), int(pcs[gidx[k]])
            if reader == int(tid[k]) and int(sh.r2_tid[gidx[k]]) >= 0:  # the issuer read it too: name the other
                reader, pc = int(sh.r2_tid[gidx[k]]), int(sh.r2_pc[gidx[k]])
            other = m.prog.ops[pc]
            m.report(F.RACE, f"{what} of `{b.region.name}` by another thread while a cp.async into it is in flight "
                     f"(issued, not yet waited for and followed by a barrier)", b.op,
                     [int(tid[k]), reader], second=other, buffer=b.region.name,
                     offset=int((gidx[k] * g) % stride), bounds=b.region.size)
