"""Where bits first diverge: HEAL's diagnosis, automated (specs/numerics.md, "Reproducibility across hardware").

For one output element and one input, each kernel runs once concretely (bit-exact, `--fp` model) under a
tracing machine that records every executed instruction per lane: the bits it read, the instruction that
defined each source register (through memory too: a load's source is the store that wrote those bytes), and
the bits it wrote. From the store that wrote the element, the walk goes backwards through those definitions
(only the lanes that contribute, at most `max_steps` instructions). Along the path, in execution order:

- the instruction's own rounding error: its rounded result minus the exact real operation applied to its
  rounded inputs (`realops`, the same real semantics `volta check` uses; a float `cvt` is the identity);
- the exact real value of the same expression (the exact operations applied to exact source values), so the
  total error of every intermediate is known too.

Bits lost by a rounding ≈ log2(|error| / ulp) + 1 (at least 1), the ulp taken in the widest float format the
instruction reads or writes, so a `cvt.rn.bf16.f32` of an f32 value loses ~16 bits and an f32 add at most 1.
`shfl.sync` is followed to its source lane; other warp collectives (vote, mma, …) are not: their lanes' sources
cross threads (reported as stops).

The tracing machine and the backward walk (`backward_slice`) are shared with `volta.equiv.parting`, which runs
them over the reals (the symbolic machine on a counterexample's exact inputs, `exact` mode, launch sequences
chained) to name where two kernels' values first part.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from volta.equiv.bits import (FP_MODES, MANTISSA, MIN_EXP, NO_TOLERANCE, Runner, Tolerance, compare_bits,
                              make_inputs)
from volta.errors import UsageError, VoltaError
from volta.exec import access as A
from volta.exec.machine import WARP_COLLECTIVES, Machine
from volta.ir.program import RegRef, type_size
from volta.launch.spec import LaunchSpec, single_launches
from volta.numerics.mma_select import MmaSetting
from volta.ptx import ast
from volta.semantics import realops
from volta.semantics.bits import as_float, is_float
from volta.symbolic import expr as E
from volta.symbolic.evaluate import evaluate

NO_DEF = -1
CONTROL = {"bra", "exit", "ret", "bar", "barrier", "nop", "trap", "brx", "membar", "fence", "bar.warp"}
MEMORY_OTHER = {"atom", "red", "cp", "cp.async", "cp.async.bulk", "ldmatrix", "stmatrix", "prefetch"}
FLOAT_T = {".f64": "f64", ".f32": "f32", ".f16": "f16", ".bf16": "bf16"}


@dataclass
class _Record:
    """One executed instruction: its lanes, and per source operand the defining events and bits."""
    op_index: int
    lanes: np.ndarray
    base: int  # event id of lanes[0]; lanes[k] is base + k
    src_defs: list  # arrays of event ids (NO_DEF: an input, a parameter, a constant)
    src_bits: list  # arrays of uint64
    src_types: list
    bits: np.ndarray | None  # the value written (uint64), None for opaque events
    dst_type: str | None
    kind: str  # 'compute' | 'load' | 'opaque'
    prog: object = None  # the Program whose ops[op_index] ran (a launch sequence has several)
    values: np.ndarray | None = None  # exact mode: the float value written, an expression per lane
    src_values: list | None = None  # exact mode: per source an expression array (float operands) or None
    source: tuple | None = None  # a load: (region name, byte offset per lane) it read


class TracingMachine(Machine):
    """The executor with a per-instruction write log and register/memory def tracking (no change to its
    semantics: every instruction still runs through `Machine._execute`, which both the scheduler and
    if-conversion call).

    On the symbolic machine (`symbolic=True` with `input_values`, as a counterexample is replayed) it also
    keeps each float instruction's exact value (`exact`). `previous`: the tracing machine of the launch
    before this one in a sequence; its buffers, their defs and the event log carry over (`pipeline`)."""

    def __init__(self, *args, previous: "TracingMachine | None" = None, **kw):
        if previous is not None:  # as volta.exec.pipeline.machine: the next launch starts from these buffers
            self.carried_regions = previous.buffer_regions
        super().__init__(*args, **kw)
        self.exact = bool(self.symbolic)
        self.records: list[_Record] = previous.records if previous else []
        self.bases: list[int] = previous.bases if previous else []
        self.next_event = previous.next_event if previous else 0
        self.defs = {}  # reg index -> int64 lane array of event ids
        # region name -> int64 array shaped like region.data (per byte); only global buffers carry over
        self.memdef = ({k: v for k, v in previous.memdef.items() if k in self.buffer_regions}
                       if previous else {})
        # (buffer, byte offset) -> (op index, lane, event id of the stored value); a later launch's store wins
        self.stores = previous.stores if previous else {}
        self.store_progs = previous.store_progs if previous else {}  # same keys -> the Program that stored

    # ---- def tracking --------------------------------------------------------------------
    def _def(self, operand, lanes):
        if isinstance(operand, ast.NotReg):
            operand = operand.reg
        if isinstance(operand, RegRef) and operand.index in self.defs:
            return self.defs[operand.index][lanes]
        return np.full(lanes.size, NO_DEF, np.int64)

    def _set_def(self, operand, lanes, ids):
        if not isinstance(operand, RegRef):
            return
        d = self.defs.get(operand.index)
        if d is None:
            d = self.defs[operand.index] = np.full(self.L, NO_DEF, np.int64)
        d[lanes] = ids

    def _record(self, op_index, lanes, src_defs, src_bits, src_types, bits, dst_type, kind, values=None,
                src_values=None, source=None):
        base = self.next_event
        self.next_event += lanes.size
        self.records.append(_Record(op_index, lanes, base, src_defs, src_bits, src_types, bits, dst_type, kind,
                                    self.prog, values, src_values, source))
        self.bases.append(base)
        return base + np.arange(lanes.size, dtype=np.int64)

    def _mem(self, region):
        d = self.memdef.get(region.name)
        if d is None:
            d = self.memdef[region.name] = np.full(region.data.shape, NO_DEF, np.int64)
        return d

    def _exact_values(self, operand, lanes, t):
        """Exact mode: the operand's real values on `lanes` (expressions), for float types only."""
        if not self.exact or t not in FLOAT_T or isinstance(operand, ast.Vector):
            return None
        try:
            return self.read_sym(operand, lanes, t)
        except Exception:  # an operand kind `read_sym` does not know: no value, the walk goes on
            return None

    # ---- the hook around every executed instruction (its lanes' guards hold) ---------------
    def _execute(self, op, active):
        name = op.op
        if active.size == 0 or name in CONTROL:
            return super()._execute(op, active)
        index = self._op_index[id(op)]
        if name in ("ld", "ldu"):
            pre = self._pre_ld(op, active)
            super()._execute(op, active)
            return self._post_ld(op, index, pre)
        if name == "st":
            self._st(op, index, active)
            return super()._execute(op, active)
        if name == "shfl":
            return self._shfl(op, index, active)
        if name in WARP_COLLECTIVES or name in MEMORY_OTHER or name.startswith("cp"):
            pc = self.pc[active].copy()
            super()._execute(op, active)
            done = active[self.pc[active] != pc]
            for r in _dsts(op):
                self._set_def(r, done, self._record(index, done, [], [], [], None, None, "opaque"))
            return None
        pre = self._pre_compute(op, active)
        super()._execute(op, active)
        dst = op.operands[0] if op.operands else None
        if isinstance(dst, RegRef) and self.regs[dst.index] is not None:
            srcs, defs, bits, types, dst_t = pre
            values = self._exact_values(dst, active, dst_t)
            src_values = [self._exact_values(s, active, t) for s, t in zip(srcs, types)] if self.exact else None
            ids = self._record(index, active, defs, bits, types, self.regs[dst.index][active].copy(), dst_t,
                               "compute", values, src_values)
            self._set_def(dst, active, ids)
        return None

    def run(self):
        self._op_index = {id(op): i for i, op in enumerate(self.prog.ops)}
        return super().run()

    def _pre_compute(self, op, lanes):
        srcs = list(op.operands[1:])
        t = op.d.types[-1] if op.d.types else None
        types = []
        for i, s in enumerate(srcs):
            if op.op in ("shl", "shr", "shf", "bfe", "bfi") and i >= 1:
                types.append(".u32")
            elif op.op == "selp" and i == 2 or isinstance(s, ast.NotReg):
                types.append(".pred")
            else:
                types.append(t)
        dst_t = op.d.types[0] if op.op == "cvt" and op.d.types else t
        if op.op in ("setp", "set"):
            dst_t = ".pred"
        defs, bits = [], []
        for s, st in zip(srcs, types):
            if isinstance(s, ast.Vector):  # packing: not a float value of its own
                defs.append(np.full(lanes.size, NO_DEF, np.int64))
                bits.append(np.zeros(lanes.size, np.uint64))
                continue
            defs.append(self._def(s, lanes))
            try:
                bits.append(self.read(s, lanes, st)[0])
            except Exception:  # an operand kind `read` does not know: keep the def, drop the value
                bits.append(np.zeros(lanes.size, np.uint64))
        if any(isinstance(s, ast.Vector) for s in srcs):
            dst_t = None
        return srcs, defs, bits, types, dst_t

    def _pre_ld(self, op, lanes):
        t = op.d.types[-1] if op.d.types else ".b32"
        es = type_size(t)
        dst = op.operands[0]
        regs = dst.elems if isinstance(dst, ast.Vector) else (dst,)
        addr = A.addresses(self, op, op.operands[1], lanes)
        groups = []
        for region, lz, offs in A.resolve(self, op, op.d.space, addr, lanes, es * len(regs), False):
            if region == "kernel-param":
                continue
            rows = A.row_index(region, lz, self)
            groups.append((lz, [self._mem(region)[rows, offs + k * es] for k in range(len(regs))], region.name,
                           offs, es))
        return op, regs, t, groups

    def _post_ld(self, op, index, pre):
        _, regs, t, groups = pre
        for lz, defs, region, offs, es in groups:
            for k, (r, d) in enumerate(zip(regs, defs)):
                if not isinstance(r, RegRef) or self.regs[r.index] is None:
                    continue
                bits = self.regs[r.index][lz].copy()
                values = self._exact_values(r, lz, t)
                self._set_def(r, lz, self._record(index, lz, [d], [bits], [t], bits, t, "load", values,
                                                  [values] if self.exact else None, (region, offs + k * es)))

    def _st(self, op, index, lanes):
        t = op.d.types[-1] if op.d.types else ".b32"
        es = type_size(t)
        src = op.operands[1]
        regs = src.elems if isinstance(src, ast.Vector) else (src,)
        addr = A.addresses(self, op, op.operands[0], lanes)
        defs = [self._def(r, lanes) for r in regs]
        for region, lz, offs in A.resolve(self, op, op.d.space, addr, lanes, es * len(regs), True):
            if region == "kernel-param":
                continue
            pos = np.searchsorted(lanes, lz)
            rows = A.row_index(region, lz, self)
            mem = self._mem(region)
            for k, d in enumerate(defs):
                for b in range(es):
                    mem[rows, offs + k * es + b] = d[pos]
                if region.space == ".global":
                    for lane, o, e in zip(lz, offs + k * es, d[pos]):
                        self.stores[(region.name, int(o))] = (index, int(lane), int(e))
                        self.store_progs[(region.name, int(o))] = self.prog

    def _shfl(self, op, index, active):
        """shfl.sync: each lane's value is defined by its source lane's (PTX ISA 9.7.9.6, the lane selection
        `dispatch._shfl` computes: up/down/bfly/idx with the clamp and segment mask of operand c)."""
        ops = op.operands
        src = ops[1]
        before = self.defs[src.index].copy() if isinstance(src, RegRef) and src.index in self.defs else None
        b = self.read(ops[2], active, ".b32")[0].astype(np.int64)
        c = self.read(ops[3], active, ".b32")[0].astype(np.int64)
        pc = self.pc[active].copy()
        super()._execute(op, active)
        ran = self.pc[active] != pc
        done = active[ran]
        if done.size == 0:
            return None
        b, c = b[ran], c[ran]
        lid = self.laneid[done].astype(np.int64)
        bval, clamp, segmask = b & 31, c & 31, (c >> 8) & 31
        max_lane, min_lane = (lid & segmask) | (clamp & ~segmask), lid & segmask
        mode = next(w for w in (".up", ".down", ".bfly", ".idx") if w in op.d.mods)
        j = {".up": lid - bval, ".down": lid + bval, ".bfly": lid ^ bval,
             ".idx": min_lane | (bval & ~segmask)}[mode]
        ok = (j >= max_lane) if mode == ".up" else (j <= max_lane)
        source = done - lid + np.where(ok, j, lid)
        source = np.where(np.isin(source, done), source, done)  # a lane not taking part: its own value
        defs = before[source] if before is not None else np.full(done.size, NO_DEF, np.int64)
        dst = ops[0].first if isinstance(ops[0], ast.Pair) else ops[0]
        if isinstance(dst, RegRef) and self.regs[dst.index] is not None:
            bits = self.regs[dst.index][done].copy()
            self._set_def(dst, done, self._record(index, done, [defs], [bits], [".b32"], bits, ".b32", "compute"))
        if isinstance(ops[0], ast.Pair):
            self._set_def(ops[0].second, done, self._record(index, done, [], [], [], None, None, "opaque"))
        return None

    # ---- lookup -------------------------------------------------------------------------
    def event(self, eid: int):
        r = self.records[bisect.bisect_right(self.bases, eid) - 1]
        return r, eid - r.base


def _dsts(op):
    if not op.operands:
        return []
    d = op.operands[0]
    if isinstance(d, ast.Vector):
        return [r for r in d.elems if isinstance(r, RegRef)]
    if isinstance(d, ast.Pair):
        return [r for r in (d.first, d.second) if isinstance(r, RegRef)]
    return [d] if isinstance(d, RegRef) else []


def backward_slice(m: TracingMachine, root: int, max_steps: int) -> tuple[list, bool]:
    """The events the value of event `root` was computed from (root included), in execution order (event ids
    grow with execution), and whether the walk stopped at `max_steps` events."""
    seen, stack, truncated = set(), [root] if root != NO_DEF else [], False
    while stack:
        e = stack.pop()
        if e in seen or e == NO_DEF:
            continue
        if len(seen) >= max_steps:
            truncated = True
            break
        seen.add(e)
        r, k = m.event(e)
        stack.extend(int(d[k]) for d in r.src_defs)
    return sorted(seen), truncated


# ---- the report -----------------------------------------------------------------------------

@dataclass
class Step:
    """One instruction on the path (one lane) whose own rounding changed the value."""
    op_index: int
    lane: int
    opcode: str
    ptx: str  # file:line
    cuda: str | None  # file:line from .loc, when nvcc wrote it
    rounded: float
    exact_of_rounded_inputs: float
    error: float  # rounded − exact operation on the rounded inputs
    bits_lost: int
    total_error: float | None  # rounded − exact real value of the same expression (None: not assessed)


@dataclass
class Site:
    op_index: int
    opcode: str
    ptx: str
    cuda: str | None
    executions: int = 0  # path events at this instruction
    roundings: int = 0  # of which rounded inexactly
    max_bits_lost: int = 0


@dataclass
class KernelDiagnosis:
    role: str
    store: Site | None  # the store that wrote the element (None: never written)
    rounded_value: float | None = None
    exact_value: float | None = None  # the exact real value of the stored expression (None: not assessed)
    path: int = 0  # instructions on the element's dataflow (lane events)
    truncated: bool = False  # the walk hit max_steps
    first: Step | None = None  # earliest rounding in execution order
    worst: Step | None = None  # the rounding that loses the most bits
    sites: list = field(default_factory=list)  # [Site] on the path, in program order
    stops: list = field(default_factory=list)  # "opcode at ptx": collectives whose sources were not followed
    not_assessed: list = field(default_factory=list)  # "opcode at ptx": no exact real operation here

    def summary(self) -> str:
        if self.store is None:
            return f"{self.role}: the element is never written"
        if self.first is None:
            text = f"{self.role}: exact along the whole path ({self.path} instructions)"
        elif self.first.op_index == self.worst.op_index and _count(self, self.first.op_index) == self.path_roundings:
            w = self.worst
            text = (f"{self.role}: {w.opcode} at {_where(w)} loses {w.bits_lost} bit{'s' if w.bits_lost != 1 else ''}; "
                    f"everything else was exact")
        else:
            f, w = self.first, self.worst
            text = (f"{self.role}: first rounding at {f.opcode} {_where(f)} ({f.bits_lost} bit"
                    f"{'s' if f.bits_lost != 1 else ''}); most lost at {w.opcode} {_where(w)} ({w.bits_lost} bit"
                    f"{'s' if w.bits_lost != 1 else ''})")
        if self.stops:
            text += f" [not followed: {', '.join(self.stops[:3])}]"
        return text

    @property
    def path_roundings(self) -> int:
        return sum(s.roundings for s in self.sites)


def _count(d, op_index):
    return sum(s.roundings for s in d.sites if s.op_index == op_index)


def _where(s) -> str:
    return s.ptx + (f" ({s.cuda})" if s.cuda else "")


@dataclass
class Divergence:
    buffer: str
    index: int
    fp: str
    ref: KernelDiagnosis
    opt: KernelDiagnosis
    conclusion: str


def diverge(spec, fp: str = "ieee", buffer: str | None = None, index: int | None = None, inputs=None,
            scalars=None, witness=None, max_steps: int = 10_000, tensor: MmaSetting | None = None) -> Divergence:
    """Diagnose one output element on one input: where each kernel's rounding departs from the reals.

    Give a `witness` from `compare_bits` (its input and element), or `inputs`/`scalars` (as `make_inputs`
    returns them) with `buffer`/`index`."""
    if witness is not None:
        buffer = buffer or witness.buffer
        index = witness.index if index is None else index
        if inputs is None:
            inputs, scalars = witness.inputs or make_inputs(spec, witness.generator, witness.seed)[0], witness.scalars
    if inputs is None or buffer is None or index is None:
        raise ValueError("diverge needs a witness, or inputs with a buffer and an index")
    runner = Runner(spec, fp, machine=TracingMachine, tensor=tensor)
    result = {}
    for role in ("ref", "opt"):
        m = runner.run(role, {k: np.array(v, copy=True) for k, v in inputs.items()}, scalars or {})
        result[role] = _diagnose(m, role, spec, buffer, index, max_steps)
    text = "; ".join(result[r].summary() for r in ("ref", "opt"))
    return Divergence(buffer, index, fp, result["ref"], result["opt"], text)


def _diagnose(m: TracingMachine, role, spec, buffer, index, max_steps) -> KernelDiagnosis:
    itemsize = spec.buffers[buffer].itemsize
    hit = m.stores.get((buffer, index * itemsize))
    if hit is None:
        return KernelDiagnosis(role, None)
    op_index, lane, root = hit
    diag = KernelDiagnosis(role, _site(m.prog, op_index))
    events, diag.truncated = backward_slice(m, root, max_steps)
    diag.path = len(events)
    exact, sites = {}, {}
    for e in events:  # sources precede their uses: execution order
        r, k = m.event(e)
        op = m.prog.ops[r.op_index]
        site = sites.get(r.op_index) or sites.setdefault(r.op_index, _site(m.prog, r.op_index))
        site.executions += 1
        if r.kind == "opaque":
            where = f"{op.d.inst.opcode} at {site.ptx}"
            if where not in diag.stops:
                diag.stops.append(where)
            continue
        step, exact[e] = _assess(m, r, k, op, site, exact)
        if step == "n/a":
            where = f"{op.d.inst.opcode} at {site.ptx}"
            if where not in diag.not_assessed:
                diag.not_assessed.append(where)
            continue
        if step is None:
            continue
        site.roundings += 1
        site.max_bits_lost = max(site.max_bits_lost, step.bits_lost)
        if diag.first is None:
            diag.first = step
        if diag.worst is None or step.bits_lost > diag.worst.bits_lost:
            diag.worst = step
    diag.sites = [sites[i] for i in sorted(sites)]
    if root != NO_DEF:
        r, k = m.event(root)
        v = _value(r.bits[k], r.dst_type) if r.bits is not None else None
        diag.rounded_value = float(v) if v is not None else None
        diag.exact_value = float(exact[root]) if exact.get(root) is not None else None
    return diag


def _value(bits, t):
    """Exact rational value of float bits (None for NaN/inf or a non-float type)."""
    if t not in FLOAT_T:
        return None
    v = float(as_float(np.array([bits], np.uint64), t)[0])
    return Fraction(v) if math.isfinite(v) else None


def _assess(m, r, k, op, site, exact):
    """(Step | None | 'n/a', exact real value of this event's expression or None)."""
    rounded = _value(r.bits[k], r.dst_type)
    d = op.d
    if d.op == "selp" and len(r.src_bits) == 3:
        pick = 0 if r.src_bits[2][k] else 1
        src = int(r.src_defs[pick][k])
        return None, exact.get(src) if src != NO_DEF else rounded
    if r.kind == "load" or d.op == "mov":
        src = int(r.src_defs[0][k]) if r.src_defs else NO_DEF
        value = exact.get(src) if src != NO_DEF else rounded
        return None, value if value is not None else rounded
    if rounded is None or not all(t in FLOAT_T for t in r.src_types):
        return None, None  # integer, predicate or packed data: no rounding to assess
    args = [_value(b[k], t) for b, t in zip(r.src_bits, r.src_types)]
    if any(a is None for a in args):
        return "n/a", None
    srcs_exact = [exact.get(int(dd[k])) if int(dd[k]) != NO_DEF else a for dd, a in zip(r.src_defs, args)]
    local = _real(d, args)
    total = _real(d, srcs_exact) if all(s is not None for s in srcs_exact) else None
    if local is None:
        return "n/a", total
    err = rounded - local
    if err == 0:
        return None, total
    ulp = _ulp(local, [r.dst_type] + list(r.src_types))
    bits = max(1, round(math.log2(abs(err) / ulp) + 1))
    step = Step(r.op_index, int(r.lanes[k]), d.inst.opcode, site.ptx, site.cuda, float(rounded), float(local),
                float(err), bits, float(rounded - total) if total is not None else None)
    return step, total


def _real(d, args):
    """The exact real operation of a float instruction on exact arguments (None: not rational here)."""
    if d.op == "cvt":
        return args[0] if d.rounding not in (".rni", ".rzi", ".rmi", ".rpi") else None
    try:
        value = realops.apply(d, [E.const(a) for a in args])
        return None if value is None else evaluate(value, {})
    except Exception:  # an irrational result (ex2, sqrt of a non-square, …) has no exact rational value
        return None


def _ulp(x: Fraction, types) -> Fraction:
    fmt = max((FLOAT_T[t] for t in types if t in FLOAT_T), key=lambda f: MANTISSA[f])
    e = MIN_EXP[fmt] if x == 0 else max(math.floor(math.log2(abs(x))), MIN_EXP[fmt])
    return Fraction(2) ** (e - MANTISSA[fmt])


def _site(prog, op_index) -> Site:
    op = prog.ops[op_index]
    cuda = f"{Path(op.cuda[0]).name}:{op.cuda[1]}" if op.cuda else None
    return Site(op_index, op.d.inst.opcode, f"{Path(op.span.file).name}:{op.span.line}", cuda)


def check_bits(spec: LaunchSpec, fp: str = "ieee", trials: int = 4, seed: int = 0,
               tolerance: Tolerance = NO_TOLERANCE, tensor: MmaSetting | None = None):
    """What `volta check --fp ieee|ARCH` decides: the bitwise comparison, and for its worst element where
    the two kernels' bits first part. Returns (BitsReport, Divergence | None, why the diagnosis failed | None);
    the CLI and `volta.check` both call this."""
    single_launches(spec, "volta check --fp ieee|ARCH")
    if fp not in FP_MODES:
        raise UsageError(f"unknown --fp `{fp}`: choose real, {', '.join(FP_MODES)}")
    report = compare_bits(spec, fp=fp, trials=trials, seed=seed, tolerance=tolerance, tensor=tensor)
    divergence, error = None, None
    if report.witness is not None:
        try:
            divergence = diverge(spec, fp, witness=report.witness, tensor=tensor)
        except VoltaError as err:
            error = str(err)
    return report, divergence, error
