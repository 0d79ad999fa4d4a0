"""Where two kernels' values first part: the NOT EQUIVALENT diagnosis over the reals.

A confirmed counterexample says *which output element* differs; a kernel author wants the instruction where
the two computations stop agreeing. On the counterexample's exact inputs, each kernel (every launch of its
sequence, in order) runs again on the symbolic machine as the confirmation did — exact rational arithmetic,
data-dependent branches taken on the exact values — under the tracing machine of `volta.equiv.diverge`, and
the backward slice of the element's final store is walked (the same walk as the bit-mode diagnosis).

On each slice, every float instruction (a load, an arithmetic or a conversion with a float result; integer,
address and predicate values are not data here) has an exact value: a rational, or, for an irrational one
(`ex2`, `sqrt`, …), its hash-consed expression over exact constants, so equal values are one object. For
each kernel the parting point is the first such instruction in execution order, computed from input data,
whose value occurs nowhere in the other kernel's slice (neither as a result nor as a float operand such as
an immediate): every value before it is one the other kernel also has. Two refinements keep coincidences of
the counterexample (most inputs are the default 1) from hiding the difference: an input element read is
identified by which element it is, not its value; and arithmetic is named before data movement (a load or
mov only carries a value to where it is used). A wrong index then shows as the first product with an element
the other kernel never reads, a wrong constant as the first product by it, a missing term as the first sum
only the complete kernel forms (the other kernel has no parting point of its own).

This is evidence for a person, not part of the verdict: it is computed only after NOT EQUIVALENT was
confirmed, for a bounded cost (`MAX_TRACED` thread-instructions per kernel, `max_steps` slice events), and
`None` whenever it cannot be made (an instruction the tracer cannot follow, an element one kernel never
writes, a slice cut at `max_steps`, or no value of either slice absent from the other).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from volta.config import NO_INTEGERS, IntegerInputs
from volta.equiv.diverge import FLOAT_T, NO_DEF, TracingMachine, backward_slice
from volta.launch.spec import LaunchSpec, sequence
from volta.exec.operands import named_reading
from volta.ir.program import lower
from volta.ptx.parser import parse_file
from volta.symbolic import expr as E
from volta.symbolic.enclose import enclose
from volta.symbolic.evaluate import EvalError, Inexact, evaluate

MOVES = frozenset({"mov", "ld", "ldu", "shfl"})  # carry one operand's value unchanged (a select decides)
MAX_STEPS = 10_000  # slice events walked per kernel
MAX_TRACED = 1_000_000  # thread-instructions per kernel above which no trace is tried (~2 µs, ~30 bytes each)


@dataclass
class PartingPoint:
    """The first instruction of one kernel's slice whose exact value the other kernel's slice never has."""

    role: str
    opcode: str
    ptx_file: str
    ptx_line: int
    ptx_col: int
    cuda_file: str | None  # from .loc, when nvcc wrote it
    cuda_line: int | None
    value: object  # Fraction, or an Enclosure of an irrational value (None: it could not be bounded)
    thread: object  # volta.exec.findings.ThreadId of the thread that executed it
    position: int  # its place among the slice's float instructions (0: the first)
    element: str | None = None  # a load of an input element: which one ("A[512]")

    @property
    def ptx(self) -> str:
        return f"{Path(self.ptx_file).name}:{self.ptx_line}"

    @property
    def cuda(self) -> str | None:
        return f"{Path(self.cuda_file).name}:{self.cuda_line}" if self.cuda_file else None


@dataclass
class Parting:
    """Both kernels' parting points for one differing element (a role's point is None when every float value
    on its slice also occurs on the other's: its computation is a part of the other's)."""

    buffer: str
    index: int
    ref: PartingPoint | None
    opt: PartingPoint | None
    float_events: dict = field(default_factory=dict)  # role -> float instructions on the slice
    not_followed: dict = field(default_factory=dict)  # role -> ["shfl.sync.bfly.b32 at k.ptx:90"]: collectives


def trace(spec: LaunchSpec, role: str, inputs: dict, integers: IntegerInputs = NO_INTEGERS) -> TracingMachine:
    """Run `role` (its launch sequence in order, on shared buffers) on exact inputs under the tracing machine,
    with the options `volta.equiv.check.execute` uses to replay a counterexample."""
    machine = None
    progs = [(launch, lower(parse_file(launch.ptx), launch.kernel)) for launch in sequence(spec, role)]
    named = named_reading(spec, [prog for _, prog in progs])
    for launch, prog in progs:
        machine = TracingMachine(prog, launch, spec.buffers, dict(spec.symbols), symbolic=True,
                                 input_values=inputs, check_races=False, lane_structured=False,
                                 functions=spec.functions, allow_exit_before_barrier=spec.allow_exit_before_barrier,
                                 previous=machine, named=named, integers=integers)
        machine.run()
    return machine


def values_part(spec: LaunchSpec, inputs: dict, buffer: str, index: int, max_steps: int = MAX_STEPS,
                machines: dict | None = None, integers: IntegerInputs = NO_INTEGERS) -> Parting | None:
    """Where the two kernels' values of buffer[index] first part on `inputs` (`Counterexample.inputs`).

    Raises what the executor raises (Unsupported, Timeout); the caller decides that a failed diagnosis is
    silence. `machines`: role -> a machine of that role's symbolic run, whose thread-instruction count
    decides whether tracing is affordable (`MAX_TRACED`)."""
    for m in (machines or {}).values():
        if getattr(m, "thread_instructions", 0) > MAX_TRACED:
            return None
    slices, memo, stops = {}, {}, {}
    for role in ("ref", "opt"):
        m = trace(spec, role, inputs, integers)
        key = (buffer, index * spec.buffers[buffer].itemsize)
        hit = m.stores.get(key)
        if hit is None:
            return None  # never written: the headline says so, there is nothing to compare
        if hit[2] == NO_DEF:  # a constant or a parameter stored as it is: the store is the whole computation
            slices[role] = (m, [_stored_constant(m, key, hit, memo)])
            stops[role] = []
            continue
        events, truncated = backward_slice(m, hit[2], max_steps)
        if truncated:
            return None  # a cut slice may lack the values that would match: no claim
        slices[role] = (m, _float_events(m, spec, events, memo))
        stops[role] = _stops(m, events)
    points = {}
    for role, other in (("ref", "opt"), ("opt", "ref")):
        theirs = _occurring(slices[other][1])
        points[role] = _first_absent(role, *slices[role], theirs)
    if points["ref"] is None and points["opt"] is None:
        return None
    return Parting(buffer, index, points["ref"], points["opt"],
                   {role: len(slices[role][1]) for role in ("ref", "opt")}, stops)


@dataclass
class _Event:
    """A float instruction of a slice: where it ran, its value key, its constant operands' keys."""

    prog: object
    op_index: int
    lane: int
    key: object
    operands: list
    data: bool  # computed from input data (a load, or an instruction with such a source)
    element: str | None = None  # a load of an input element: "A[512]"
    value: object = None  # the exact value (the key, unless the key names an input element)
    moves: bool = False  # data movement (a load, a mov, a float-to-float cvt): the value is carried, not computed


def _float_events(m, spec, events, memo) -> list:
    """The float instructions of a slice, in execution order."""
    out, data = [], set()
    for e in events:
        r, k = m.event(e)
        defs = [int(d[k]) for d in r.src_defs]
        if r.kind in ("load", "opaque") or any(d in data for d in defs):
            data.add(e)
        if r.kind == "opaque" or r.dst_type not in FLOAT_T or r.values is None:
            continue
        operands = [_key(vals[k], memo) for d, vals, t in zip(defs, r.src_values or (), r.src_types)
                    if vals is not None and t in FLOAT_T and d == NO_DEF]  # immediates, scalars
        value = _key(r.values[k], memo)
        key, element = value, None
        if r.kind == "load" and defs == [NO_DEF] and r.source is not None:
            key, element = _input_element(spec, r.source[0], int(r.source[1][k]), value)
        op = r.prog.ops[r.op_index]
        moves = r.kind == "load" or op.op in MOVES or (op.op == "cvt" and r.src_types[:1] != [] and
                                                        r.src_types[0] in FLOAT_T)  # over the reals: identity
        out.append(_Event(r.prog, r.op_index, int(r.lanes[k]), key, operands, e in data, element, value, moves))
    return out


def _input_element(spec, region, offset, key):
    """A load of an input element never written by the kernels is identified by the element (which one was
    read), not its value: two elements that hold the same number in the counterexample (most inputs are the
    default 1) are different values for almost every input, so a wrong index must not hide behind them."""
    buf = spec.buffers.get(region)
    if buf is None or buf.role not in ("in", "inout"):
        return key, None
    element = f"{region}[{offset // buf.itemsize}]"
    return ("input", element), element


def _stored_constant(m, key, hit, memo) -> _Event:
    op_index, lane, _ = hit
    prog = m.store_progs[key]
    region = m.buffer_regions[key[0]]
    stored = region.sym[0, key[1]] if region.sym is not None else None
    value = _key(stored, memo)
    return _Event(prog, op_index, lane, value, [], True, None, value)


def _stops(m, events) -> list:
    """"opcode at file:line" of the warp collectives whose sources the walk did not follow."""
    out = []
    for e in events:
        r, _ = m.event(e)
        if r.kind == "opaque":
            op = r.prog.ops[r.op_index]
            where = f"{op.d.inst.opcode} at {Path(op.span.file).name}:{op.span.line}"
            if where not in out:
                out.append(where)
    return out


def _occurring(float_events) -> set:
    """Every exact value a slice has: its float results and its float operands that no event defines."""
    seen = set()
    for ev in float_events:
        seen.add(ev.key)
        seen.update(ev.operands)
    seen.discard(None)
    return seen


def _first_absent(role, m, float_events, theirs) -> PartingPoint | None:
    """The first value computed from data that the other slice lacks.

    A constant materialized for later use (an accumulator's 0) is not where values part: the first
    instruction that uses it with data is. Nor is data movement, while some arithmetic parts: a load only
    carries a value to where it is used (a swapped tile index loads the right elements into shared memory and
    multiplies the wrong ones), so the first arithmetic instruction with a value the other slice lacks is
    named, and a load or move only when the kernel moves data and computes nothing the other lacks."""
    candidates = [(i, ev) for i, ev in enumerate(float_events) if ev.data and ev.key is not None
                  and ev.key not in theirs]
    for position, ev in sorted(candidates, key=lambda c: (c[1].moves, c[0]))[:1]:
        op = ev.prog.ops[ev.op_index]
        cuda = getattr(op, "cuda", None)
        return PartingPoint(role, op.d.inst.opcode, str(op.span.file), op.span.line, op.span.col,
                            str(cuda[0]) if cuda else None, int(cuda[1]) if cuda else None, _shown(ev.value),
                            m.thread_id(ev.lane), position, ev.element)
    return None


def _key(expr, memo):
    """An exact value as a set key: the rational, or the (hash-consed) expression of an irrational value;
    None where there is none (undefined, an unmodelled function's value with no expression)."""
    if not isinstance(expr, E.Expr):
        return None
    try:
        value = evaluate(expr, {}, memo=memo)
    except Inexact:
        return expr
    except (EvalError, KeyError, TypeError):
        return None
    return value if isinstance(value, Fraction) else None


def _shown(key):
    if isinstance(key, Fraction):
        return key
    try:
        return enclose(key, {})
    except (EvalError, KeyError, TypeError):
        return None
