"""Warpgroup MMA (Hopper, sm_90a): `wgmma.mma_async` and its asynchronous protocol, bit for bit
(PTX ISA 9.x §9.7.15; the operand layouts are volta/exec/wgmma_layout.py, the real-number model wgmma_real.py).

A warpgroup is 4 consecutive warps of a CTA (128 threads); `wgmma.mma_async` waits until its 128 threads arrive
and then computes D = A·B + D (D = A·B when `scale-d` is false) for every ready warpgroup at once: A from four
registers per thread or from shared memory through a matrix descriptor, B from shared memory through one,
elements negated by `imm-scale-a/b` = -1, A and B K-major or (`imm-trans-a/b` = 1, f16/bf16 only) MN-major.
Numerics are tensor.matmul's: under `--fp ARCH` the row `mma_select.select_row` gives for inst = "wgmma"
(recorded in `Machine.tensor_rows`), under `--fp ieee` exact products summed in f64 and rounded once.

The protocol (§9.7.15.7): the operation runs asynchronously from its issue until a `wgmma.wait_group` of the
issuing threads completes the wgmma-group holding it (`wgmma.commit_group` closes each thread's open group;
`wait_group N` completes all but its N most recent groups). Here the result is computed at issue and written to
the accumulator registers then, and the instruction stays *in flight* until that wait. While it is in flight:
- any instruction that accesses one of its accumulator or A-fragment registers, other than a later
  `wgmma.mma_async` of the same shape using the same accumulators (ordered by the ISA, §9.7.15.7.1), is a RACE
  with the pair of instructions: "Accessing the accumulator register or the input register containing the
  fragments of matrix A ... without first performing a wgmma.wait_group ... is undefined behavior" (§9.7.15.7.3).
  The check is a watcher (dispatch.watches) that sees every instruction of a kernel that has wgmma;
- its shared-memory operands may be read at any moment. Their reads enter the race shadow at issue, on behalf
  of the warps that use them (A's rows 16w..16w+15 by warp w, B by all four), so a write that no barrier orders
  before the issue races with them; and again at each warp's completing wait (_read_at_completion), so a write
  after it is ordered only within that warp (`wait_group` is .sync.aligned, a warp synchronization) or by a
  barrier after the wait of every reading warp, whatever order the machine runs the warps in. When the wait
  completes it, a write to those bytes since the issue (the shadow's last writer or the bytes changed) is a
  RACE with the wgmma, as a cp.async destination's window is (volta/exec/asynccopy.py);
- an operand written through the generic proxy with no `fence.proxy.async` of its writer since is a RACE with the
  wgmma, which reads through the async proxy (volta/exec/wgmma_proxy.py).
Not checked: the `wgmma.fence` ordering of register accesses before a wgmma (§9.7.15.7.1; nvcc places moves of
inline-asm operands between the fence and the wgmma, and ptxas serializes such code rather than miscompiling
it).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from volta.errors import Unsupported, UsageError
from volta.exec import access as A
from volta.exec import findings as F
from volta.exec import wgmma_layout as L
from volta.exec.table import _advance, _data_flag, handles, watches
from volta.exec.services import WARP
from volta.exec.tensor import _mixed_int, _to_f64, matmul, slots_from_tile, tile_from_slots
from volta.exec.wgmma_proxy import ProxyFences
from volta.ir.program import RegRef
from volta.numerics.mma_select import select_row
from volta.ptx import ast
from volta.semantics.bits import U64


# ---- in-flight state ----------------------------------------------------------------------------------------

@dataclass
class SharedRead:
    """The shared-memory elements one warpgroup's wgmma read, with what they were at issue."""

    warpgroup: int        # row of Flight.lanes
    region: object
    lane: int             # a thread of the CTA (selects the region's copy)
    offs: np.ndarray      # element offsets
    esize: int
    writers: np.ndarray   # (3, n, esize): last writer's thread, pc, barrier generation of each byte at issue
    data: np.ndarray      # (n, esize) bytes at issue
    readers: list         # arrays (n,) of warpgroup threads on whose behalf each element is read (_readers)


@dataclass
class Flight:
    """One execution of a `wgmma.mma_async` by G warpgroups, until their wait_group completes it."""

    op: object
    lanes: np.ndarray     # (G, 128) the warpgroups' threads
    group: np.ndarray     # (G,) the wgmma-group it joined (the threads' commit count at issue)
    done: np.ndarray      # (G, 128) completed for that thread
    acc: frozenset        # accumulator register indices
    a_regs: frozenset     # A-fragment register indices (register-A form)
    reads: list = field(default_factory=list)   # SharedRead


@dataclass
class WgmmaState:
    committed: np.ndarray                           # per thread: wgmma-groups committed so far
    flights: list = field(default_factory=list)
    proxy: ProxyFences | None = None                # set by the watcher (race checking only)


def state(m) -> WgmmaState:
    st = m.__dict__.get("wgmma_state")
    if st is None:
        st = m.__dict__.setdefault("wgmma_state", WgmmaState(np.zeros(m.L, np.int64)))
    return st


# ---- the instructions ---------------------------------------------------------------------------------------

@handles("wgmma")
def _wgmma(m, op, lanes):
    d = op.d
    if d.has(".mma_async"):
        return _mma_async(m, op, lanes)
    st = state(m)
    if d.has(".commit_group"):
        st.committed[lanes] += 1
    elif d.has(".wait_group"):
        n = op.operands[0] if op.operands else None
        if not isinstance(n, ast.Imm) or n.value < 0:
            raise Unsupported(f"`{d.inst.opcode}`: N must be a non-negative integer constant", op.span)
        complete(m, op, lanes, n.value)
        m.wgen[np.unique(m.gwarp[lanes])] += 1   # .sync.aligned: orders the warp's accesses (as bar.warp.sync)
    elif not d.has(".fence"):
        raise Unsupported(f"`{d.inst.opcode}` is not modelled", op.span)
    _advance(m, lanes)


def warpgroups(m, op, lanes):
    """The lanes of every warpgroup whose 128 threads are all here, as a (G, 128) array ordered by thread, or None;
    the others wait (WARP) for the rest of their warpgroup."""
    local = lanes % m.per_cta
    if (local // 128 * 128 + 128 > m.per_cta).any():
        raise Unsupported(f"`{op.d.inst.opcode}` needs whole warpgroups of 128 threads (the block has "
                          f"{m.per_cta} threads)", op.span)
    wg = m.cta[lanes] * (m.per_cta // 128) + local // 128
    _, inv, counts = np.unique(wg, return_inverse=True, return_counts=True)
    full = counts[inv] == 128
    m.status[lanes[~full]] = WARP
    if not full.any():
        return None
    lz = lanes[full]
    order = np.lexsort((lz % m.per_cta, wg[full]))
    return lz[order].reshape(-1, 128)


def _regs(operand):
    return list(operand.elems) if isinstance(operand, ast.Vector) else [operand]


def read_registers(m, regs, grid):
    """Bits (G, 128, n) of registers for the warpgroups `grid`, and the OR of their flags per warpgroup (G,)."""
    flat = grid.reshape(-1)
    bits = np.zeros((flat.size, len(regs)), np.uint64)
    flags = np.zeros(flat.size, np.uint8)
    for k, r in enumerate(regs):
        v, f = m.read(r, flat)
        bits[:, k] = v
        if f is not None:
            flags |= f
    G = grid.shape[0]
    return bits.reshape(G, 128, len(regs)), np.bitwise_or.reduce(flags.reshape(G, 128), axis=1)


def gather(bits, per_reg, ew, tab, shape):
    """Registers (G, 128, n) → tiles (G, rows, cols) of element words, through a layout table."""
    emask = U64((1 << ew) - 1)
    slots = tab[0].shape[1]
    return tile_from_slots([(bits[:, :, s // per_reg] >> U64((s % per_reg) * ew)) & emask for s in range(slots)],
                           tab, shape)


def scatter(tile, per_reg, ew, tab, nregs):
    """Tiles (G, rows, cols) → registers (G, 128, nregs)."""
    out = np.zeros((tile.shape[0], 128, nregs), np.uint64)
    for s, vals in enumerate(slots_from_tile(tile, tab)):
        reg, sub = divmod(s, per_reg)
        out[:, :, reg] |= vals.astype(np.uint64) << U64(sub * ew)
    return out


def immediate(op, k, allowed, what):
    x = op.operands[k]
    if not isinstance(x, ast.Imm) or x.value not in allowed:
        raise Unsupported(f"`{op.d.inst.opcode}`: {what} must be an integer constant in {sorted(allowed)}", op.span)
    return x.value


@dataclass(frozen=True)
class Modifiers:
    """The operands after b-desc: scale-d per warpgroup, and the immediates (§9.7.15.5.2)."""

    scale_d: np.ndarray   # (G,) bool: D = A·B + D where true
    neg_a: bool
    neg_b: bool
    trans_a: bool
    trans_b: bool


def modifiers(m, op, form, grid) -> Modifiers:
    flat = grid.reshape(-1)
    v, f = m.read(op.operands[3], flat, ".pred")
    m.require_concrete(op, f, flat, "scale-d predicate")
    per = (v != 0).reshape(grid.shape)
    if (per != per[:, :1]).any():
        raise Unsupported(f"`{op.d.inst.opcode}`: scale-d differs between threads of one warpgroup", op.span)
    neg_a = neg_b = trans_a = trans_b = False
    if not form.integer:
        neg_a = immediate(op, 4, {1, -1}, "imm-scale-a") == -1
        neg_b = immediate(op, 5, {1, -1}, "imm-scale-b") == -1
    if form.transposable:
        trans_b = immediate(op, len(op.operands) - 1, {0, 1}, "imm-trans-b") == 1
        if not form.a_in_registers:
            trans_a = immediate(op, 6, {0, 1}, "imm-trans-a") == 1
    return Modifiers(per[:, 0], neg_a, neg_b, trans_a, trans_b)


def descriptors(m, op, operand, grid, which) -> np.ndarray:
    """The 64-bit descriptor of each warpgroup (G,): concrete and the same in all its threads (§9.7.15.5.2)."""
    flat = grid.reshape(-1)
    v, f = m.read(operand, flat, ".b64")
    m.require_concrete(op, f, flat, f"matrix descriptor of {which}")
    per = v.reshape(grid.shape)
    if (per != per[:, :1]).any():
        raise Unsupported(f"`{op.d.inst.opcode}`: the descriptor of matrix {which} differs between threads of one "
                          f"warpgroup (the ISA requires the same contents across its warps)", op.span)
    return per[:, 0]


def check_descriptor(m, op, desc, region, which):
    """What the model does not decide: undocumented bits, a base offset, a swizzle whose phase is unknown."""
    if desc.undocumented_bits:
        raise Unsupported(f"`{op.d.inst.opcode}`: the descriptor of matrix {which} ({desc.word:#018x}) sets bits the "
                          f"ISA's table gives no meaning ({desc.undocumented_bits:#x})", op.span)
    if desc.base_offset:
        raise Unsupported(f"`{op.d.inst.opcode}`: the descriptor of matrix {which} has matrix base offset "
                          f"{desc.base_offset}; addresses with a non-zero base offset are not modelled", op.span)
    pattern = L.PATTERN_BYTES[desc.swizzle]
    var = m.prog.variables.get(region.name)
    if pattern and var is not None and not var.dynamic and var.align < pattern:
        raise Unsupported(f"`{op.d.inst.opcode}`: matrix {which} uses a {desc.swizzle}-byte swizzle in "
                          f"`{region.name}`, declared .align {var.align}: where its {pattern}-byte pattern starts "
                          f"depends on where ptxas places the variable", op.span)


def _writers(region, row, offs, esize):
    """(3, n, esize): the last writer's thread, pc and barrier generation of each byte, from the race shadow."""
    sh = region.shadow
    flat = (row * region.data.shape[1] + offs)[:, None] + np.arange(esize)
    if sh is None:
        return np.full((3,) + flat.shape, -1, np.int64)
    gidx = flat // sh.g
    return np.stack([sh.w_tid[gidx], sh.w_pc[gidx], sh.w_gen[gidx]]).astype(np.int64)


def locate(m, op, word, mn, k, es, mn_major, which):
    """Where matrix `which` (mn x k elements of `es` bytes) is, for descriptor `word`: its shared region (None: the
    start address is in no shared variable), the elements' byte offsets in it (mn*k,), and which are out of it."""
    desc = L.decode_descriptor(int(word))
    region = m.memory.shared_at(desc.start)
    if region is None:
        return desc, None, None, None
    check_descriptor(m, op, desc, region, which)
    offs = (L.operand_addresses(desc, mn, k, es, mn_major) - region.low).reshape(-1)
    return desc, region, offs, (offs < 0) | (offs + es > region.size)


def _readers(elems, mn, k, which):
    """The warpgroup threads on whose behalf each element (flat index into mn x k) is read, as a list of arrays:
    warp w multiplies rows 16w..16w+15 of A by all of B (§9.7.15.5.1.1), so an element of A is read by two
    threads of its row's warp, one of B by a thread of each warp. A write ordered after the wgmma's completion
    in those warps (their wgmma.wait_group, then a barrier where other warps read it) does not race with it."""
    spread = elems % 32
    if which == "A":
        base = 32 * ((elems // k) // 16)
        return [base + spread, base + (spread + 16) % 32]
    return [32 * w + spread for w in range(4)]


def shared_operand(m, op, grid, words, mn, k, fmt, mn_major, which):
    """Matrix `which` of every warpgroup from shared memory through its descriptor: element words (G, mn, k), the
    OR of their flags per warpgroup, and the reads (SharedRead) for the in-flight window check."""
    es = L.WIDTH[fmt] // 8
    G = grid.shape[0]
    out = np.zeros((G, mn, k), np.uint64)
    flags = np.zeros(G, np.uint8)
    reads = []
    for word in np.unique(words):
        gs = np.flatnonzero(words == word)
        desc, region, offs, bad = locate(m, op, word, mn, k, es, mn_major, which)
        if region is None:
            m.report(F.OUT_OF_BOUNDS, f"wgmma reads matrix {which} through a descriptor whose start address "
                     f"{desc.start:#x} is in no shared variable", op, [grid[gs[0], 0]], address=desc.start)
            flags[gs] |= 2
            continue
        if bad.any():
            e = int(np.flatnonzero(bad)[0])
            m.report(F.OUT_OF_BOUNDS, f"wgmma reads matrix {which} ({mn}x{k} through its descriptor) past the end of "
                     f"`{region.name}`: element ({e // k}, {e % k})", op, [grid[gs[0], 0]], buffer=region.name,
                     offset=int(offs[e]), bounds=region.size)
            flags[gs] |= 2
        good = np.flatnonzero(~bad)
        o = offs[good]
        readers = _readers(good, mn, k, which)
        for g in gs:
            lane = int(grid[g, 0])
            lz = np.full(o.size, lane)
            bits, undef = A.load(m, region, lz, o, es)
            out[g].reshape(-1)[good] = bits
            for f in (undef, _data_flag(m, region, lz, o, es)):
                if f is not None and f.size:
                    flags[g] |= np.bitwise_or.reduce(f.astype(np.uint8))
            for local in readers:   # read on behalf of the warps that use each element
                A.track(m, op, region, grid[g, local], o, es, write=False)
            row = A.row_index(region, lz[:1], m)[0]
            byte = (row * region.data.shape[1] + o)[:, None] + np.arange(es)
            writers = _writers(region, row, o, es)
            _proxy_check(m, op, region, lane, o, writers)
            reads.append(SharedRead(int(g), region, lane, o, es, writers, region.data.reshape(-1)[byte].copy(),
                                    readers))
    return out, flags, reads


def as_f16(words, fmt):
    """fp8 words as the f16 words of the same values: every .e4m3 and .e5m2 value (NaN, inf) is an f16 value."""
    return _to_f64(words, fmt).astype(np.float16).view(np.uint16).astype(np.uint64)


def _proxy_check(m, op, region, lane, offs, writers):
    """An operand byte last written through the generic proxy with no fence.proxy.async of its writer since is a
    RACE between the write and this wgmma (volta/exec/wgmma_proxy.py)."""
    proxy = state(m).proxy
    if proxy is None:
        return
    bad = proxy.unfenced(writers[0], writers[1])
    if not bad.any():
        return
    e, b = (int(x[0]) for x in np.nonzero(bad))
    tid, pc = int(writers[0, e, b]), int(writers[1, e, b])
    store = m.prog.ops[pc]
    m.report(F.RACE, f"`{store.d.inst.opcode}` writes `{region.name}` through the generic proxy and its thread runs no "
             f"fence.proxy.async before the wgmma.mma_async that reads it through the async proxy (PTX ISA "
             f"§9.7.15.4: a cross-proxy fence is required)", op, [lane, tid], second=store, buffer=region.name,
             offset=int(offs[e]) + b, bounds=region.size)


def tensor_row(m, op, form):
    """The tensor-core row for this wgmma under the machine's --fp (None under ieee/real and for integers)."""
    if m.fp in ("ieee", "real") or form.integer:
        return None
    if form.a != form.b:
        raise Unsupported(f"`{op.d.inst.opcode}`: wgmma with .{form.a} x .{form.b} inputs under --fp {m.fp}: no "
                          f"measured tensor-core row for mixed fp8 inputs (numerics.md's rows are for one input "
                          f"format; --fp ieee computes exact products summed in f64)", op.span)
    try:
        row = select_row(m.fp, form.a, form.d, replace(m.tensor, inst="wgmma"))
    except UsageError as e:
        raise Unsupported(f"`{op.d.inst.opcode}` under --fp {m.fp}: {e}", op.span) from None
    m.tensor_rows.setdefault(row.name, row)
    return row.params


def operands(m, op, form, grid, mods):
    """Words of A (G, 64, K), B (G, K, N), C (G, 64, N), their flags OR'd per warpgroup, and the shared reads."""
    reads = []
    if form.a_in_registers:
        ra = _regs(op.operands[1])
        per = form.a_per_register
        if len(ra) != 4:
            raise Unsupported(f"`{op.d.inst.opcode}`: matrix A takes four registers", op.span)
        abits, fa = read_registers(m, ra, grid)
        Aw = gather(abits, per, L.WIDTH[form.a], L.table(L.A_LAYOUT[form.k], 4 * per), (64, form.k))
    else:
        words = descriptors(m, op, op.operands[1], grid, "A")
        Aw, fa, got = shared_operand(m, op, grid, words, 64, form.k, form.a, mods.trans_a, "A")
        reads += got
    words = descriptors(m, op, op.operands[2], grid, "B")
    Bt, fb, got = shared_operand(m, op, grid, words, form.n, form.k, form.b, mods.trans_b, "B")
    reads += got
    Bw = np.swapaxes(Bt, 1, 2)
    rd = _regs(op.operands[0])
    if len(rd) != form.d_registers:
        raise Unsupported(f"`{op.d.inst.opcode}`: the accumulator takes {form.d_registers} registers", op.span)
    cbits, fc = read_registers(m, rd, grid)
    Cw = gather(cbits, form.d_per_register, L.WIDTH[form.d], L.table(L.accumulator, form.n // 2), (64, form.n))
    Cw[~mods.scale_d] = 0
    fc = np.where(mods.scale_d, fc, 0).astype(np.uint8)
    if mods.neg_a:
        Aw ^= U64(L.SIGN[form.a])
    if mods.neg_b:
        Bw = Bw ^ U64(L.SIGN[form.b])
    return Aw, Bw, Cw, fa | fb | fc, reads


def _mma_async(m, op, lanes):
    form = L.decode_form(op)
    grid = warpgroups(m, op, lanes)
    if grid is None:
        return
    mods = modifiers(m, op, form, grid)
    Aw, Bw, Cw, flags, reads = operands(m, op, form, grid, mods)
    if form.integer and form.a != form.b:
        Dw = _mixed_int(Aw, Bw, Cw, form.a, form.b, form.satfinite)
    elif form.a != form.b:   # .e4m3 x .e5m2: refused under --fp ARCH, under ieee the values as f16 words
        tensor_row(m, op, form)
        Dw = matmul(as_f16(Aw, form.a), as_f16(Bw, form.b), Cw, "f16", form.d, None)
    else:
        Dw = matmul(Aw, Bw, Cw, form.a, form.d, tensor_row(m, op, form), form.satfinite)
    rd = _regs(op.operands[0])
    out = scatter(Dw, form.d_per_register, L.WIDTH[form.d], L.table(L.accumulator, form.n // 2), len(rd))
    flat = grid.reshape(-1)
    f = np.repeat(flags, 128)
    for k, r in enumerate(rd):
        m.write(r, flat, out[:, :, k].reshape(-1), f)
    st = state(m)
    a_regs = frozenset(r.index for r in _regs(op.operands[1]) if isinstance(r, RegRef)) if form.a_in_registers \
        else frozenset()
    st.flights.append(Flight(op, grid, st.committed[grid[:, 0]].copy(), np.zeros(grid.shape, bool),
                             frozenset(r.index for r in rd if isinstance(r, RegRef)), a_regs, reads))
    _advance(m, flat)


# ---- completion -------------------------------------------------------------------------------------------

def complete(m, op, lanes, keep):
    """`wgmma.wait_group keep` by `lanes`: every wgmma of theirs in a group older than their `keep` most recent
    committed groups is complete; the first thread of a warpgroup to complete one checks its shared reads."""
    st = state(m)
    limit = np.full(m.L, -1, np.int64)
    limit[lanes] = st.committed[lanes] - keep   # groups numbered below this complete
    alive = []
    for fl in st.flights:
        now = ~fl.done & (fl.group[:, None] < limit[fl.lanes])
        for g in np.flatnonzero(now.any(axis=1) & ~fl.done.any(axis=1)):
            _window_check(m, fl, int(g))
        for g in np.flatnonzero(now.any(axis=1)):
            _read_at_completion(m, fl, int(g), np.flatnonzero(now[g]))
        fl.done |= now
        if not fl.done.all():
            alive.append(fl)
    st.flights = alive


def _read_at_completion(m, fl, g, threads):
    """The completing warps' share of the shared reads enters the race shadow again, as made at their wait: in
    any schedule a warp's part of the wgmma may read until then, so a write that no barrier orders after the
    wait (in a warp that completed first) races with it, whichever order the machine ran the warps in."""
    warps = np.unique(threads // 32)
    for rd in (r for r in fl.reads if r.warpgroup == g):
        for who in rd.readers:
            sel = np.isin(who // 32, warps)
            if sel.any():
                A.track(m, fl.op, rd.region, fl.lanes[g, who[sel]], rd.offs[sel], rd.esize, write=False)


def _window_check(m, fl, g):
    """A write to shared memory a warpgroup's wgmma read, made between the issue and now, is a RACE with it."""
    for rd in (r for r in fl.reads if r.warpgroup == g):
        region = rd.region
        row = A.row_index(region, np.array([rd.lane]), m)[0]
        now = _writers(region, row, rd.offs, rd.esize)
        byte = (row * region.data.shape[1] + rd.offs)[:, None] + np.arange(rd.esize)
        moved = (now != rd.writers).any(axis=0)
        changed = moved | (region.data.reshape(-1)[byte] != rd.data)
        if not changed.any():
            continue
        e, b = (int(x[0]) for x in np.nonzero(changed))
        tid, pc = int(now[0, e, b]), int(now[1, e, b])
        where = dict(buffer=region.name, offset=int(rd.offs[e]) + b, bounds=region.size)
        if moved[e, b] and pc >= 0 and tid >= 0:
            m.report(F.RACE, f"write of `{region.name}` while a wgmma.mma_async that reads it is in flight (issued, "
                     f"not yet completed by wgmma.wait_group)", fl.op, [rd.lane, tid], second=m.prog.ops[pc], **where)
        else:
            m.report(F.RACE, f"`{region.name}` changed (by a copy the race shadow does not record) while a "
                     f"wgmma.mma_async that reads it was in flight", fl.op, [rd.lane], **where)


# ---- registers in flight: the watcher ------------------------------------------------------------------------

def _registers_of(operand, out):
    if isinstance(operand, RegRef):
        out.append(operand)
    elif isinstance(operand, ast.Vector):
        for e in operand.elems:
            _registers_of(e, out)
    elif isinstance(operand, ast.Address):
        _registers_of(operand.base, out)
    elif isinstance(operand, ast.NotReg):
        _registers_of(operand.reg, out)
    return out


def _all_registers(op):
    out = []
    for x in op.operands:
        _registers_of(x, out)
    return out


class InFlightRegisters:
    """Sees every instruction before it runs; one that touches a register of a wgmma in flight is a RACE."""

    def __init__(self, m):
        self.m = m
        watched = set()
        for o in m.prog.ops:
            if o.op == "wgmma" and o.d.has(".mma_async") and len(o.operands) > 2:
                watched.update(r.index for k in (0, 1) for r in _registers_of(o.operands[k], []))
        self.touches = {}   # pc -> the watched registers the instruction names
        for o in m.prog.ops:
            regs = tuple({r.index: r for r in _all_registers(o) if r.index in watched}.values())
            if regs:
                self.touches[o.index] = regs

    def __call__(self, op, lanes):
        regs = self.touches.get(op.index)
        if regs is None:
            return
        st = self.m.__dict__.get("wgmma_state")
        if st is None or not st.flights:
            return
        mma = op.op == "wgmma" and op.d.has(".mma_async")
        mine = {r.index for r in _registers_of(op.operands[0], [])} if mma else set()
        for fl in st.flights:
            for r in regs:
                if r.index not in fl.acc and r.index not in fl.a_regs:
                    continue
                if r.index in mine and r.index in fl.acc and op.d.shape == fl.op.d.shape:
                    continue   # accumulators across wgmmas of one shape: ordered (§9.7.15.7.1)
                hit = np.isin(lanes, fl.lanes[~fl.done])
                if hit.any():
                    lane = int(lanes[np.argmax(hit)])
                    role = "an accumulator" if r.index in fl.acc else "an A-fragment"
                    self.m.report(F.RACE, f"`{op.d.inst.opcode}` accesses {r.name}, {role} register of a "
                                  f"wgmma.mma_async still in flight (no wgmma.wait_group has completed its "
                                  f"wgmma-group: undefined behaviour, PTX ISA §9.7.15.7.3)", op, [lane, lane],
                                  second=fl.op, details={"register": r.name})
                    return


@watches("wgmma")
def _watch(m):
    registers = InFlightRegisters(m)
    proxy = state(m).proxy = ProxyFences(m) if m.check_races else None

    def watch(op, lanes):
        registers(op, lanes)
        if proxy is not None:
            proxy(op, lanes)
    return watch
