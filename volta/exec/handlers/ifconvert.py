"""If-conversion: branches and predicated instructions whose condition depends on tensor data.

`volta check` cannot follow such a branch (the data are symbols), so both sides are executed, each
under its path condition, and every register the sides disagree on is merged where they meet (the
branch's immediate post-dominator) into `select(condition, a, b)`, an exact value for every input.
The region between the branch and that join runs as one step of the lanes that reached the branch:
blocks in pc order (every edge inside runs forward, volta/ir/cfg.py checks it), each block starting
from the merge of the states its incoming edges carry (a phi: under the block's condition exactly
one incoming edge condition holds, so a select chain over them is exact).

Memory: a store under a condition that may fail stores `select(c, new, old)`; races and bounds treat
it as possibly happening (a finding only possible under the condition says so). When the old value
is unknown (a never-written element of an `out` buffer or of shared/local memory), the location
must be stored on every path through the region, which is checked on the CFG; otherwise the
verdict is UNSUPPORTED, never a guess. An atomic add/min/max under a data condition is a conditional
update (volta/exec/handlers/atomics_real.py). A loop, barrier, collective or call under a data condition is
UNSUPPORTED with its reason.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from volta.errors import Unsupported
from volta.exec.handlers.table import DISPATCH, NOT_REAL
from volta.exec.state import access as A
from volta.exec.state.operands import booleans, constants, select_real
from volta.exec.state.services import DATA, EXIT, RUN, UNDEF
from volta.ir import cfg as CFG
from volta.ir.program import RegRef, type_size
from volta.ptx import ast
from volta.semantics import compute as C
from volta.semantics import realops
from volta.semantics.bits import is_float
from volta.symbolic import expr as E

# the value a location had when a conditional store did not happen and nothing defines it
UNKNOWN_OLD = E.sym("%never-written")

_AND = np.frompyfunc(E.logical_and, 2, 1)
_OR = np.frompyfunc(E.logical_or, 2, 1)
_NOT = np.frompyfunc(E.logical_not, 1, 1)


@dataclass
class Val:
    """One register over the region's lanes: bits, flags, expressions (None where concrete)."""

    bits: np.ndarray
    flags: np.ndarray
    sym: np.ndarray | None


# atomics whose update becomes conditional (volta/exec/handlers/atomics_real.py); their bit handler runs on every lane
CONDITIONAL_ATOMICS = ("atom", "red")


def allowed(op) -> bool:
    """May op execute under a data-dependent condition (its effect merged or made conditional)? A `call` left
    in the program is of a function with no body (volta/exec/handlers/dispatch.py): over the reals a pure
    function of its arguments (`logf(x)` in one side of `x > 20 ? x : log1pf(expf(x))`, read as log), whose
    result reaches registers through the call's own .param space, so it merges as any register does."""
    if op.op in CFG.REGION_OPS or op.op in CONDITIONAL_ATOMICS or op.op == "call":
        return True
    return op.op in C.TABLE and op.op not in DISPATCH and op.op not in NOT_REAL


def allowed_concrete(op) -> bool:
    """`allowed` for the bit-exact machine (volta races/run): its atomics would update on every lane, and a
    call there is the run's own (printf, a runtime service), not a pure function."""
    return op.op not in CONDITIONAL_ATOMICS and op.op != "call" and allowed(op)


def _allowed(m):
    return allowed if m.symbolic else allowed_concrete


def data_condition(m, reg, lanes) -> bool:
    """Does the predicate register decide differently for different tensor data on some lane?"""
    f = m.flags[reg]
    return bool(m.structured and f is not None and (f[lanes] & DATA).any()
                and not getattr(m, "bit_terms", False))


def predicate(m, reg, negated, lanes) -> np.ndarray:
    """The guard as boolean expressions per lane: the comparison over the reals on data lanes (TRUE or
    FALSE when replaying a counterexample), the concrete truth value elsewhere."""
    bits = m.regs[reg][lanes] != 0 if m.regs[reg] is not None else np.zeros(lanes.size, bool)
    out = np.where(bits, E.TRUE, E.FALSE).astype(object)
    f = m.flags[reg]
    data = (f[lanes] & DATA) != 0 if f is not None else np.zeros(lanes.size, bool)
    if data.any():
        if m.symbolic:
            exprs = m._materialize(reg)[lanes] if m.sym[reg] is not None else np.full(lanes.size, None, object)
            for k in np.flatnonzero(data):
                e = exprs[k]
                if e is None or e.op not in E.BOOLEAN:
                    raise Unsupported(f"predicate {m.prog.regs[reg][0]} holds tensor data with no truth value "
                                      f"over the reals")
                out[k] = e
        else:  # `volta races`: no values, so the condition is an unknown (both sides may run)
            unknown = E.lt(E.sym(f"%condition.{reg}"), E.ZERO)
            out[data] = unknown
    return _NOT(out).astype(object) if negated else out


def _is_symbolic(c) -> bool:
    return c is not E.TRUE and c is not E.FALSE


_SYMBOLIC = np.frompyfunc(_is_symbolic, 1, 1)


# ---- register state --------------------------------------------------------------------------

def snapshot(m, regs, lanes) -> dict:
    out = {}
    for r in regs:
        if m.regs[r] is None:
            bits = np.zeros(lanes.size, np.uint64)
            flags = np.full(lanes.size, UNDEF, np.uint8)
        else:
            bits = m.regs[r][lanes].copy()
            flags = m.flags[r][lanes].copy() if m.flags[r] is not None else np.zeros(lanes.size, np.uint8)
        sym = m._materialize(r)[lanes].copy() if m.symbolic and m.sym[r] is not None else None
        out[r] = Val(bits, flags, sym)
    return out


def restore(m, state: dict, lanes):
    for r, v in state.items():
        if m.regs[r] is None:
            m.regs[r] = np.zeros(m.L, np.uint64)
        m.regs[r][lanes] = v.bits
        if v.flags.any():
            if m.flags[r] is None:
                m.flags[r] = np.zeros(m.L, np.uint8)
            m.flags[r][lanes] = v.flags
        elif m.flags[r] is not None:
            m.flags[r][lanes] = 0
        if m.symbolic:
            if v.sym is not None and m.input_values is None:   # (a replay's choices are all decided)
                lost = next((x for x in v.sym if type(x) is realops.NoValue), None)
                if lost is not None:   # only a select may drop one (realops.choose); it reached a join unchosen
                    raise Unsupported(f"a register holds a value with no real meaning past a branch on tensor "
                                      f"data: {lost.why}")
            m._write_sym(r, lanes, v.sym if v.sym is not None and (v.sym != None).any() else None)  # noqa: E711


def _expr_of(m, r, v: Val, k: int, why):
    """Register r's value on lane k as an expression (its constant when concrete)."""
    if v.sym is not None and v.sym[k] is not None:
        return v.sym[k]
    t = m.prog.regs[r][1]
    if t == ".pred":
        return booleans(v.bits[k:k + 1])[0]
    if t.startswith(".b"):
        raise Unsupported(f"the untyped register {m.prog.regs[r][0]} ({t}) holds different concrete values "
                          f"{why}; which real number its bits stand for depends on how it is read later")
    return constants(v.bits[k:k + 1], t, m.named)[0]


def merge(m, edges, regs, live, why) -> dict:
    """The state at a block entered through `edges` [(condition per lane, state)]: per live register,
    the value of the one edge taken, or a select chain over the edge conditions."""
    out = {}
    for r in regs:
        vals = [s[r] for _, s in edges]
        first = vals[0]
        if all(v is first for v in vals) or r not in live:
            out[r] = first
            continue
        n = first.bits.size
        bits, flags = first.bits.copy(), first.flags.copy()
        sym = np.full(n, None, dtype=object) if m.symbolic else None
        for k in range(n):
            cands = [(c[k], v) for (c, _), v in zip(edges, vals) if c[k] is not E.FALSE]
            if not cands:   # the lane does not reach this block: keep one edge's value whole (flags and all)
                if sym is not None and first.sym is not None:
                    sym[k] = first.sym[k]
                continue
            taken = [v for c, v in cands if c is E.TRUE]
            if taken or len(cands) == 1 or all(_same(v, cands[0][1], k) for _, v in cands):
                v = taken[0] if taken else cands[0][1]
                bits[k], flags[k] = v.bits[k], v.flags[k]
                if sym is not None and v.sym is not None:
                    sym[k] = v.sym[k]
                continue
            f = np.uint8(0)
            for _, v in cands:
                f |= v.flags[k]
            flags[k] = f | DATA
            bits[k] = cands[-1][1].bits[k]
            if sym is not None:
                acc = _expr_of(m, r, cands[-1][1], k, why)
                for c, v in reversed(cands[:-1]):
                    acc = _choice(c, _expr_of(m, r, v, k, why), acc, why)
                sym[k] = acc
        out[r] = Val(bits, flags, sym)
    return out


def _choice(c, a, b, why):
    v = realops.choose(c, a, b)
    if v is None:
        raise Unsupported(f"a register holds an infinite value (or one with no real value) {why}; a choice "
                          f"involving one is not modelled")
    return v


def _same(a: Val, b: Val, k: int) -> bool:
    sa = a.sym[k] if a.sym is not None else None
    sb = b.sym[k] if b.sym is not None else None
    if sa is not None or sb is not None:
        return sa is sb
    return a.bits[k] == b.bits[k] and a.flags[k] == b.flags[k]


# ---- the region step -------------------------------------------------------------------------

def run_region(m, op, lanes):
    """Execute the branch (or guarded exit) at op and everything up to where its sides meet, for
    `lanes`, under path conditions; leave the lanes at the join with merged registers."""
    prog = m.prog
    reg = CFG.region(prog, op.index, _allowed(m))
    if isinstance(reg, str):
        raise Unsupported(f"the branch condition of `{op.d.inst.opcode}` depends on tensor data and the branch "
                          f"cannot be if-converted: {reg}", op.span)
    live = CFG.live_in(prog)
    why = f"on the two sides of the branch on tensor data at line {op.span.line}"
    m.last_branch[lanes] = op.index
    p = predicate(m, op.guard[0], op.guard[1], lanes)
    state0 = snapshot(m, reg.writes, lanes)
    incoming: dict = {}
    stores = _Stores(reg)

    def edge(target, cond, state):
        incoming.setdefault(target, []).append((cond, state))

    nxt = op.index + 1
    if op.op == "bra":
        edge(op.operands[0][1], p, state0)
        entry = (op.operands[0][1], nxt)
    else:  # a guarded exit: the taken side leaves the kernel (a path that stores nothing)
        entry = (nxt, CFG.EXIT)
    edge(nxt, _NOT(p).astype(object), state0)
    previous = m.conditional
    try:
        for leader, last in reg.blocks:
            edges = incoming.pop(leader, None)
            if not edges:
                continue
            g = edges[0][0]
            for c, _ in edges[1:]:
                g = _OR(g, c).astype(object)
            if not (g != E.FALSE).any():
                continue
            if CFG.stores_on_every_path(reg, entry, frozenset({leader})):
                # every path through the region passes this block: its condition is the region's, TRUE
                # (p or not p, spelled out, would keep dead selects alive)
                g = np.full(lanes.size, E.TRUE, dtype=object)
            restore(m, merge(m, edges, reg.writes, live.get(leader, frozenset()), why), lanes)
            for i in range(leader, last + 1):
                inner = prog.ops[i]
                if i == last and inner.op in ("bra", "exit", "ret"):
                    break
                execute(m, inner, lanes, g, stores, leader)
            term = prog.ops[last]
            out = snapshot(m, reg.writes, lanes)
            if term.op in ("bra", "exit", "ret"):
                q = (predicate(m, term.guard[0], term.guard[1], lanes) if term.guard is not None
                     else np.full(lanes.size, E.TRUE, dtype=object))
                if term.op == "bra":
                    m.last_branch[lanes[(g != E.FALSE)]] = term.index
                    edge(term.operands[0][1], _AND(g, q).astype(object), out)
                if term.guard is not None:
                    edge(last + 1, _AND(g, _NOT(q)).astype(object), out)
            else:
                edge(last + 1, g, out)
    finally:
        m.conditional = previous
        m.path_condition = None
    stores.finish(m, entry)
    if reg.join < len(prog.ops):
        edges = incoming.get(reg.join, [])
        if edges:
            restore(m, merge(m, edges, reg.writes, live.get(reg.join, frozenset()), why), lanes)
        m.pc[lanes] = reg.join
        m.status[lanes] = RUN
    else:
        m.pc[lanes] = len(prog.ops)
        m.status[lanes] = EXIT
    if stores.unknown:
        _refuse_unknown(m, reg, lanes, stores, op)
    if stores.built_on_unknown:
        _refuse_leaked(m, reg.writes, lanes, stores, op)


def run_guarded(m, op, lanes):
    """One instruction predicated on tensor data outside any branch: executed under its guard."""
    if not _allowed(m)(op) or op.op in ("bra", "exit", "ret"):
        raise Unsupported(f"the guard predicate of `{op.d.inst.opcode}` depends on tensor data (barriers, warp "
                          f"collectives and calls are not executed under a data-dependent condition)",
                          op.span)
    stores = _Stores(None)
    previous = m.conditional
    try:
        execute(m, op, lanes, np.full(lanes.size, E.TRUE, dtype=object), stores, None)
    finally:
        m.conditional = previous
        m.path_condition = None
    stores.finish(m, ())
    m.pc[lanes] = op.index + 1
    m.status[lanes] = RUN
    if stores.unknown:
        _refuse_unknown(m, None, lanes, stores, op)


def execute(m, op, lanes, g, stores, block):
    """op on the lanes whose condition g (per lane) may hold; its own guard is folded in, and a
    destination it writes under a guard that may fail keeps its old value there (a select)."""
    if op.guard is not None:
        q = predicate(m, op.guard[0], op.guard[1], lanes)
        cond = _AND(g, q).astype(object)
    else:
        q, cond = None, g
    live = cond != E.FALSE
    if not live.any():
        return
    run = lanes[live]
    c_run = cond[live]
    maybe = np.asarray(_SYMBOLIC(c_run), bool)
    m.conditional = (set(run[maybe].tolist()), op) if maybe.any() else None
    if m.path_log is not None:   # volta/exec/drivers/feasible.py: the condition each lane's accesses run under
        m.path_condition = dict(zip(run.tolist(), c_run))
    if q is not None:
        q_run = q[live]
        q_maybe = np.asarray(_SYMBOLIC(q_run), bool)
    else:
        q_run, q_maybe = None, np.zeros(run.size, bool)
    dsts = CFG.uses(op)[1]
    # (an atomic's destination is never merged: atomics_real.py refuses one that any instruction reads)
    before = snapshot(m, dsts, run[q_maybe]) if q_maybe.any() and op.op not in CONDITIONAL_ATOMICS else None
    if op.op == "st":
        _conditional_store(m, op, run, c_run, maybe, stores, block, sure=q is None or ~q_maybe)
    elif op.op in CONDITIONAL_ATOMICS and maybe.any():
        _conditional_atomic(m, op, run, c_run, maybe)
    else:
        m._execute(op, run)
    if before is not None:
        sub = run[q_maybe]
        after = snapshot(m, dsts, sub)
        qs = q_run[q_maybe]
        merged = merge(m, [(qs, after), (_NOT(qs).astype(object), before)], dsts, dsts,
                       f"depending on the guard of `{op.d.inst.opcode}` (line {op.span.line})")
        restore(m, merged, sub)


def _conditional_atomic(m, op, run, cond, maybe):
    """`atom`/`red` on `run`; where cond may fail, atomics_real.update makes the lane's update conditional
    (over the reals only: `allowed_concrete` keeps atomics out of the bit-exact machine's regions)."""
    m.atomic_conditions = {int(lane): c for lane, c in zip(run[maybe].tolist(), cond[maybe])}
    try:
        m._execute(op, run)
    finally:
        m.atomic_conditions = None


# ---- conditional stores ----------------------------------------------------------------------

class _Stores:
    """Locations stored inside a region: which blocks store them on every path through the block,
    and the select chain a conditional store built there (to drop an unknown old value again)."""

    def __init__(self, reg):
        self.reg = reg
        # (lane, region rid, row, offset) -> [blocks where the lane stores it unconditionally, first, spine]
        self.at: dict = {}
        self.unknown: list = []  # locations whose old value was unknown when a conditional store built on it
        self.built_on_unknown = False
        self.contended: set = set()  # unknown locations another thread stored after this one

    def note(self, key, block, sure, created, new, old_unknown):
        entry = self.at.get(key)
        if entry is None:
            entry = self.at[key] = [set(), None, set()]
        if sure and block is not None:
            entry[0].add(block)
        if created is not None:
            if entry[1] is None and old_unknown:
                entry[1] = (created, new)
                self.unknown.append(key)
                self.built_on_unknown = True
            entry[2].add(created)

    def finish(self, m, entry):
        """Where every path stores the location, the value before the region is never visible: the
        innermost select over an unknown old value is replaced by the first stored value."""
        if not m.symbolic:
            return
        still = []
        for key in self.unknown:
            blocks, first, spine = self.at[key]
            region = m.memory.regions[key[1]]
            if self.reg is None or not CFG.stores_on_every_path(self.reg, entry, frozenset(blocks)):
                still.append(key)
                continue
            row, off = key[2], key[3]
            top = region.sym[row, off] if region.sym is not None else None
            if top is None or top not in spine and top is not first[0]:
                still.append(key)   # another thread's store sits on top: not this lane's chain to edit
                self.contended.add(key)
                continue
            region.sym[row, off] = _strip(top, first, spine)
        self.unknown = still


def _strip(e, first, spine):
    if e is first[0]:
        return first[1]
    if e in spine and e.op is E.SELECT:
        return E.select(e.args[0], e.args[1], _strip(e.args[2], first, spine))
    return e


def _conditional_store(m, op, run, cond, maybe, stores, block, sure):
    """`st` on `run`; on the lanes where cond may fail the stored value is select(cond, new, old). A call's
    `.param` arguments are stored plainly: only the call sequence that writes them reads them (under the same
    condition), so `log1pf(v)` on one side of a branch is log1p(v), not log1p(select(c, v, 0))."""
    sure = np.broadcast_to(np.asarray(sure, bool), run.shape)
    if op.d.space == ".param":
        m._execute(op, run)
        return
    if not maybe.any():
        m._execute(op, run)
        if m.symbolic:
            _note_plain(m, op, run, stores, block, sure)
        return
    if not m.symbolic:
        _store_keeping_undefined(m, op, run, maybe)
        return
    dst, src = op.operands[0], op.operands[1]
    regs = src.elems if isinstance(src, ast.Vector) else (src,)
    if any(not isinstance(r, RegRef) for r in regs) or len({r.index for r in regs}) != len(regs):
        raise Unsupported(f"`{op.d.inst.opcode}` stores an immediate or one register twice under a data-dependent "
                          f"condition", op.span)
    t = op.d.types[-1] if op.d.types else ".b32"
    addr_regs = CFG._reg_indices(dst)
    if addr_regs & {r.index for r in regs}:
        raise Unsupported(f"`{op.d.inst.opcode}` stores its own address register under a data-dependent "
                          f"condition", op.span)
    es, n = _size(t), op.d.vec
    ml = run[maybe]
    mc = cond[maybe]
    addr = A.addresses(m, op, dst, ml)
    saved = snapshot(m, {r.index for r in regs}, ml)
    for region, lz, offs in A.resolve(m, op, op.d.space, addr, ml, es * n, True):
        if region == "kernel-param":
            raise Unsupported("store to a kernel parameter", op.span)
        pos = np.searchsorted(ml, lz)
        rows = A.row_index(region, lz, m)
        ct = _constant_type(op, region, t, es)
        for k, r in enumerate(regs):
            o = offs + k * es
            bits_old, undef = A.load(m, region, lz, o, es)
            sym_old = A.load_sym(m, op, region, lz, o, es, t, bits_old)
            kw = (region.kwritten[rows, o] if region.kwritten is not None else np.zeros(lz.size, bool))
            unknown = ((undef & UNDEF) != 0 if undef is not None else np.zeros(lz.size, bool))
            if region.space == ".global" and region.role in ("out", "temp"):
                unknown |= ~kw & np.array([s is None for s in sym_old], bool)
            new = m.read_sym(r, lz, ct)
            nbits, nflags = m.read(r, lz, t)
            out = np.empty(lz.size, dtype=object)
            for j in range(lz.size):
                if unknown[j]:
                    old = UNKNOWN_OLD
                elif sym_old[j] is not None:
                    old = sym_old[j]
                else:
                    old = constants(bits_old[j:j + 1], ct, m.named)[0]
                out[j] = select_real(mc[pos[j]], new[j], old, op)
                stores.note((int(lz[j]), region.rid, int(rows[j]), int(o[j])), block, bool(sure[maybe][pos[j]]),
                            out[j] if out[j] is not new[j] else None, new[j], bool(unknown[j]))
            flags = (nflags if nflags is not None else np.zeros(lz.size, np.uint8)) | DATA
            m.write(r, lz, nbits, flags, out)
    m._execute(op, run)
    restore(m, saved, ml)
    _note_plain(m, op, run[~maybe], stores, block, sure[~maybe])


def _store_keeping_undefined(m, op, run, maybe):
    """`volta races` (no values): a store that may not happen over never-written shared/local bytes
    leaves them possibly undefined, so the stored flags carry UNDEF there (a later use is reported,
    never silently clean)."""
    src = op.operands[1]
    regs = src.elems if isinstance(src, ast.Vector) else (src,)
    regs = [r for r in regs if isinstance(r, RegRef)]
    t = op.d.types[-1] if op.d.types else ".b32"
    es, n = _size(t), op.d.vec
    ml = run[maybe]
    saved = snapshot(m, {r.index for r in regs}, ml)
    addr = A.addresses(m, op, op.operands[0], ml)
    for region, lz, offs in A.resolve(m, op, op.d.space, addr, ml, es * n, True):
        if region == "kernel-param" or region.written is None:
            continue
        for k, r in enumerate(regs):
            _, undef = A.load(m, region, lz, offs + k * es, es)
            if undef is not None and undef.any():
                if m.flags[r.index] is None:
                    m.flags[r.index] = np.zeros(m.L, np.uint8)
                m.flags[r.index][lz] |= undef
    m._execute(op, run)
    restore(m, saved, ml)


def _constant_type(op, region, t, es):
    """The type concrete stored bits stand for: the buffer's element type (`st.u32` of 0 into an f32
    buffer is 0.0), else a float store type; integer or untyped bits elsewhere are refused."""
    dtype = getattr(region, "dtype", None)
    if region.space == ".global" and dtype and dtype[0] in "fsu" and A.region_itemsize(region) == es:
        return "." + dtype
    if is_float(t):
        return t
    raise Unsupported(f"`{op.d.inst.opcode}` stores {t} bits to `{region.name}` under a data-dependent condition; "
                      f"which real number they stand for depends on how they are read back", op.span)


def _note_plain(m, op, lanes, stores, block, sure):
    """Unconditional stores in a region count for the every-path test of conditional ones."""
    if block is None or lanes.size == 0 or not stores.unknown and not stores.at:
        return
    t = op.d.types[-1] if op.d.types else ".b32"
    es = _size(t)
    addr = A.addresses(m, op, op.operands[0], lanes)
    n = op.d.vec
    for region, lz, offs in A.resolve(m, op, op.d.space, addr, lanes, es * n, True):
        if region == "kernel-param":
            continue
        rows = A.row_index(region, lz, m)
        pos = np.searchsorted(lanes, lz)
        for k in range(n):
            for j in range(lz.size):
                key = (int(lz[j]), region.rid, int(rows[j]), int(offs[j] + k * es))
                if key in stores.at:
                    stores.note(key, block, bool(sure[pos[j]]), None, None, False)


def _size(t):
    return type_size(t)


def _refuse_unknown(m, reg, lanes, stores, op):
    key = stores.unknown[0]
    region = m.memory.regions[key[1]]
    if key in stores.contended:
        raise Unsupported(f"element {key[3] // max(1, A.region_itemsize(region))} of `{region.name}` is stored by "
                          f"several threads under the data-dependent condition of the branch at line "
                          f"{op.span.line}; which of their stores lands last is not modelled", op.span)
    what = (f"element {key[3] // max(1, A.region_itemsize(region))} of `{region.name}` is stored only on some "
            f"paths" if region.space == ".global" else f"`{region.name}` (byte {key[3]}) is stored only on some paths")
    hint = (" (declare it :inout to compare its value before the kernel)" if region.space == ".global"
            else " and was never written before")
    raise Unsupported(f"{what} of the branch on tensor data at line {op.span.line}: where the store does not happen "
                      f"it keeps a value volta check does not know{hint}", op.span)


def _mentions_unknown(e, memo) -> bool:
    if not isinstance(e, E.Expr):
        return False
    hit = memo.get(e.id)
    if hit is None:
        hit = memo[e.id] = e is UNKNOWN_OLD or any(n is UNKNOWN_OLD for n in E.postorder(e))
    return hit


def _refuse_leaked(m, regs, lanes, stores, op):
    """A value read inside the region from a location whose unknown old value was dropped at the join
    (every path stores it) may still carry that unknown value: refuse rather than compute with it."""
    memo: dict = {}
    for r in regs:
        if m.sym[r] is None:
            continue
        for e in m._materialize(r)[lanes]:
            if _mentions_unknown(e, memo):
                raise Unsupported(f"a value read inside the branch on tensor data at line {op.span.line} is a "
                                  f"never-written location's content on some path", op.span)
    for _, rid, row, off in stores.at:
        region = m.memory.regions[rid]
        e = region.sym[row, off] if region.sym is not None else None
        if _mentions_unknown(e, memo):
            raise Unsupported(f"a value stored inside the branch on tensor data at line {op.span.line} depends on "
                              f"a never-written location's content on some path", op.span)
