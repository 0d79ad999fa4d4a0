"""Hopper asynchronous transactions: `mbarrier` objects and `cp.async.bulk` global→shared copies
(PTX ISA §9.7.13.15 mbarrier, §9.7.9.25 cp.async.bulk).

An mbarrier lives in shared memory; here its state is kept beside memory, keyed by (region, copy,
offset): the expected arrival count, the arrivals still pending, the transaction bytes still pending,
and the current phase. A phase completes when no arrival and no transaction byte is pending; then the
phase flips and the pending count is reset. `try_wait.parity P` / `test_wait` answer whether the phase
of parity P has completed; a waiting loop spins in the kernel itself (the scheduler runs the lowest pc
first, so a producer earlier in the program gets to arrive).

A bulk copy is performed when issued, byte for byte, and counts its bytes as completed transactions on
its mbarrier; over the reals its expressions move element by element (`_move_exprs`). Limitation: the copy's
shared-memory write is not entered in the race shadow (the order it gets from the mbarrier wait is not
modelled as a synchronization edge); its global read is.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from volta.errors import Unsupported
from volta.exec import access as A
from volta.exec import asynccopy  # noqa: F401  (registers the `cp` that _CP_ASYNC below reads)
from volta.exec.table import DISPATCH, _advance, handles
from volta.ir.program import SpecialRef
from volta.ptx.parser import parse_file


@dataclass
class MBarrier:
    count: int
    pending: int
    tx: int = 0
    phase: int = 0  # number of completed phases

    def settle(self):
        if self.pending <= 0 and self.tx <= 0:
            self.phase += 1
            self.pending, self.tx = self.count, 0


def _barriers(m) -> dict:
    return m.__dict__.setdefault("mbarriers", {})


def _locate(m, op, operand, lanes):
    """Per lane: the mbarrier key (region id, copy, offset), in lane order ([] for lanes that faulted)."""
    addr = A.addresses(m, op, operand, lanes)
    keys = {}
    for region, lz, offs in A.resolve(m, op, ".shared", addr, lanes, 8, False):
        rows = A.row_index(region, lz, m)
        for lane, row, off in zip(lz, rows, offs):
            keys[int(lane)] = (region.rid, int(row), int(off))
    return keys


def _value(m, op, operand, lanes, what):
    v, f = m.read(operand, lanes, ".u32")
    m.require_concrete(op, f, lanes, what)
    return v.astype(np.int64)


def _get(m, op, key):
    bar = _barriers(m).get(key)
    if bar is None:
        raise Unsupported(f"`{op.d.inst.opcode}` on an mbarrier that was never initialized", op.span)
    return bar


@handles("mbarrier")
def _mbarrier(m, op, lanes):
    d = op.d
    ops = op.operands
    if d.has(".init"):
        keys = _locate(m, op, ops[0], lanes)
        counts = _value(m, op, ops[1], lanes, "arrival count")
        for j, lane in enumerate(lanes):
            if int(lane) in keys:
                _barriers(m)[keys[int(lane)]] = MBarrier(int(counts[j]), int(counts[j]))
    elif d.has(".inval"):
        for key in _locate(m, op, ops[0], lanes).values():
            _barriers(m).pop(key, None)
    elif d.has(".arrive", ".arrive_drop", ".expect_tx", ".complete_tx"):
        keys = _locate(m, op, ops[1], lanes)
        extra = _value(m, op, ops[2], lanes, "count") if len(ops) > 2 else None
        state = np.zeros(lanes.size, np.uint64)
        for j, lane in enumerate(lanes):
            key = keys.get(int(lane))
            if key is None:
                continue
            bar = _get(m, op, key)
            state[j] = bar.phase
            if d.has(".expect_tx"):
                bar.tx += int(extra[j])
                arrivals = 1 if d.has(".arrive") else 0
            elif d.has(".complete_tx"):
                bar.tx -= int(extra[j])
                arrivals = 0
            else:
                arrivals = int(extra[j]) if extra is not None else 1
            if d.has(".arrive_drop"):
                bar.count -= arrivals
            bar.pending -= arrivals
            bar.settle()
        m.write(ops[0], lanes, state)
    elif d.has(".try_wait", ".test_wait"):
        keys = _locate(m, op, ops[1], lanes)
        want = _value(m, op, ops[2], lanes, "phase parity" if d.has(".parity") else "state")
        done = np.zeros(lanes.size, np.uint64)
        for j, lane in enumerate(lanes):
            key = keys.get(int(lane))
            if key is None:
                continue
            bar = _get(m, op, key)
            if d.has(".parity"):
                done[j] = (bar.phase & 1) != (int(want[j]) & 1)
            else:
                done[j] = bar.phase > int(want[j])
        m.write(ops[0], lanes, done)
    else:
        raise Unsupported(f"`{d.inst.opcode}` is not modelled", op.span)
    _advance(m, lanes)


_CP_ASYNC = DISPATCH["cp"]


@handles("cp")
def _cp(m, op, lanes):
    d = op.d
    if not d.has(".bulk") or d.has(".tensor"):
        return _CP_ASYNC(m, op, lanes)
    if d.has(".commit_group", ".wait_group", ".wait_group.read"):
        _advance(m, lanes)  # bulk copies are performed when issued
        return
    if d.has(".bulk_group") and d.inst.opcode.startswith("cp.async.bulk.global.shared"):
        return _bulk_store(m, op, lanes)
    if not (d.has(".mbarrier::complete_tx::bytes") and op.d.space and op.d.space.startswith(".shared")):
        raise Unsupported(f"`{d.inst.opcode}`: only global→shared bulk copies completed through an mbarrier "
                          f"are modelled", op.span)
    dst, src, size_op, bar_op = op.operands[:4]
    size = _value(m, op, size_op, lanes, "copy size")
    dst_addr = A.addresses(m, op, dst, lanes)
    src_addr = A.addresses(m, op, src, lanes)
    keys = _locate(m, op, bar_op, lanes)
    for j, lane in enumerate(lanes):
        n = int(size[j])
        one = lanes[j:j + 1]
        if n % 16:
            raise Unsupported(f"`{d.inst.opcode}`: the size must be a multiple of 16", op.span)
        got = A.resolve(m, op, ".global", src_addr[j:j + 1], one, n, False)
        put = A.resolve(m, op, ".shared", dst_addr[j:j + 1], one, n, True)
        if got and put:
            (sreg, _, soff), (dreg, _, doff) = got[0], put[0]
            A.track(m, op, sreg, one, soff, n, write=False)
            for k in range(0, n, 4):
                bits, _ = A.load(m, sreg, one, soff + k, 4)
                A.store(m, dreg, one, doff + k, 4, bits)
                m.set_memory_flags(dreg, one, doff + k, 4, np.ones(1, np.uint8))
            if m.symbolic:
                _move_exprs(m, op, sreg, dreg, one, soff, doff, n, A.region_itemsize(sreg))
        key = keys.get(int(lane))
        if key is not None:
            bar = _get(m, op, key)
            bar.tx -= n
            bar.settle()
    _advance(m, lanes)



def _bulk_store(m, op, lanes):
    """`cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size`: a shared→global bulk copy, performed
    when issued (its shared read is tracked in the race shadow, so a write of the source by another thread
    without a barrier in between is a race; a write of the source by the issuing thread between the copy
    and its `cp.async.bulk.wait_group.read` is not detected — the copy has already read it)."""
    d = op.d
    dst, src, size_op = op.operands[:3]
    size = _value(m, op, size_op, lanes, "copy size")
    dst_addr = A.addresses(m, op, dst, lanes)
    src_addr = A.addresses(m, op, src, lanes)
    for j in range(lanes.size):
        n = int(size[j])
        one = lanes[j:j + 1]
        if n % 16:
            raise Unsupported(f"`{d.inst.opcode}`: the size must be a multiple of 16", op.span)
        got = A.resolve(m, op, ".shared", src_addr[j:j + 1], one, n, False)
        put = A.resolve(m, op, ".global", dst_addr[j:j + 1], one, n, True)
        if got and put:
            (sreg, _, soff), (dreg, _, doff) = got[0], put[0]
            A.track(m, op, sreg, one, soff, n, write=False)
            A.track(m, op, dreg, one, doff, n, write=True)
            for k in range(0, n, 4):
                bits, undef = A.load(m, sreg, one, soff + k, 4)
                if undef is not None and undef.any():
                    m.uninitialized(f"`{d.inst.opcode}` copies never-written shared memory to global buffer "
                                    f"`{dreg.name}`", op, int(one[0]), buffer=dreg.name)
                A.store(m, dreg, one, doff + k, 4, bits)
            if m.symbolic:
                _move_exprs(m, op, sreg, dreg, one, soff, doff, n, A.region_itemsize(dreg))
    _advance(m, lanes)


def _move_exprs(m, op, src, dst, one, soff, doff, n, es):
    """Over the reals (volta check): the expressions of a bulk copy of `n` bytes, element by element at the width
    `es` of its typed side (the global buffer), so that buffer holds whole elements of its own width, which is how
    check.outputs reads it. A value stored in the source with another width, or inside an element, is refused
    (A.load_sym): moving it 4 bytes at a time put 4-byte values into f16 and f64
    buffers, read back as single elements."""
    for k in range(0, n, es):
        bits, _ = A.load(m, src, one, soff + k, es)
        A.store_sym(m, dst, one, doff + k, es, A.load_sym(m, op, src, one, soff + k, es, f".b{8 * es}", bits))


def cluster_ctas(prog) -> int:
    """CTAs per cluster the kernel requires (`.reqnctapercluster X, Y, Z`; 1 without it)."""
    try:
        module = parse_file(prog.file)
    except Exception:  # noqa: BLE001 (PTX given another way: no directive to read)
        return 1
    for fn in module.items:
        if getattr(fn, "name", None) == prog.name and hasattr(fn, "perf"):
            for p in fn.perf:
                if p.startswith(".reqnctapercluster"):
                    dims = [int(x) for x in p.split(None, 1)[1].replace(",", " ").split()]
                    n = 1
                    for x in dims:
                        n *= x
                    return n
    return 1


@handles("mapa")
def _mapa(m, op, lanes):
    """`mapa{.shared::cluster}.{u32,u64} d, a, rank`: the address of `a` in the shared memory of CTA `rank` of
    the cluster. Launches have clusters of one CTA, so rank 0 is the CTA itself (d = a); a kernel that
    requires larger clusters (`.reqnctapercluster`) is outside the model."""
    n = m.__dict__.get("_cluster_ctas")
    if n is None:
        n = m.__dict__["_cluster_ctas"] = cluster_ctas(m.prog)
    if n != 1:
        raise Unsupported(f"`{op.d.inst.opcode}`: the kernel requires clusters of {n} CTAs "
                          f"(.reqnctapercluster); distributed shared memory across CTAs is not modelled", op.span)
    t = op.d.types[-1] if op.d.types else ".u64"
    a, fa = m.read(op.operands[1], lanes, t)
    rank, fr = m.read(op.operands[2], lanes, ".u32")
    m.require_concrete(op, fa, lanes, "address")
    m.require_concrete(op, fr, lanes, "CTA rank")
    if (rank != 0).any():
        k = int(np.nonzero(rank != 0)[0][0])
        raise Unsupported(f"`{op.d.inst.opcode}` maps to CTA rank {int(rank[k])} of a cluster of one CTA", op.span)
    m.write(op.operands[0], lanes, a, fa)
    _advance(m, lanes)


def refuse_larger_clusters(prog) -> None:
    """Launches have clusters of one CTA. A kernel that requires larger ones (`.reqnctapercluster`, from
    `__cluster_dims__`) and reads its cluster (a `%cluster_*` register, `barrier.cluster`, `mapa`) would see
    other values and other synchronization than on the GPU: UNSUPPORTED at the first such instruction.
    One that never looks at its cluster runs as written (cluster placement changes nothing else)."""
    n = cluster_ctas(prog)
    if n == 1:
        return
    for op in prog.ops:
        uses = op.op == "mapa" or (op.op == "barrier" and op.d.has(".cluster")) or any(
            isinstance(x, SpecialRef) and (x.name.startswith(("%cluster", "%ncluster", "%is_explicit_cluster")))
            for x in op.operands)
        if uses:
            raise Unsupported(f"`{op.d.inst.opcode}`: the kernel requires clusters of {n} CTAs (.reqnctapercluster), "
                              f"and launches here have clusters of one CTA (cluster ranks, cluster barriers and "
                              f"distributed shared memory across CTAs are not modelled)", op.span)
