"""`volta check`: are two kernels' outputs equal for every input, over the reals?

Both kernels run once, symbolically, over their whole grids (one schedule suffices for race-free
structured kernels). Each output element of each `out`/`inout` buffer is compared: identical
hash-consed expressions, then equal normal forms, then Z3 on the residue. A difference is only
reported with a counterexample that re-executing both kernels on concrete exact inputs confirms.
"""
from __future__ import annotations

import dataclasses
import functools
import operator
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from volta.config import ALL_FAST, NO_INTEGERS, FastPaths, IntegerInputs
from volta.equiv import fixed_inputs
from volta.errors import Unsupported, UsageError
from volta.exec import findings as F
from volta.exec import limits
from volta.exec.drivers import pipeline, replica_bits
from volta.exec.drivers.pipeline import names as pipeline_names, step_name
from volta.exec.findings import Site
from volta.exec.handlers import integer_real
from volta.exec.limits import Timeout
from volta.exec.machine import Machine
from volta.exec.races import racy_reads
from volta.exec.state import access as A
from volta.exec.state.access import region_itemsize
from volta.exec.state.operands import constants, named_reading
from volta.launch import ctas
from volta.launch.spec import DTYPES, FIXED, LaunchSpec, sequence
from volta.equiv.witness import (SMALL, below_resolution, input_domain, larger_difference, load_inputs,
                                 relative_difference)
from volta.ir.program import lower
from volta.ptx.parser import parse_file
from volta.semantics.realops import clear_bounds_memo
from volta.symbolic import cuts, expr as E
from volta.symbolic.cases import decide_by_cases
from volta.symbolic.constants import constants_read
from volta.symbolic.domain import Domain
from volta.symbolic.enclose import enclose
from volta.symbolic.evaluate import EvalError, Inexact, evaluate
from volta.symbolic.lanepoly import CoefficientOverflow
from volta.symbolic.lift import lifted_equal
from volta.symbolic.normal import Budget, ExpansionLimit, Normalizer, equal, normalize
from volta.symbolic.renaming import Renamings
from volta.symbolic.screen import Screen
from volta.symbolic.search import inputs_of, random_search
from volta.symbolic.shared import SharedTerms
from volta.symbolic.verdict import Proved, Refuted, Unknown

UNTOUCHED = "untouched"
UNCHANGED = "unchanged"   # an inout element the kernel did not write: its value before the launch (Elements.at)
MAX_UNKNOWN = 8  # give up (UNKNOWN, nothing claimed) after this many undecided elements


@dataclass
class Counterexample:
    inputs: dict  # buffer/symbol -> {index: Fraction}
    buffer: str
    index: int
    ref_value: object  # Fraction, or UNTOUCHED
    opt_value: object
    ref_threads: str = ""  # "block (..) thread (..) at file:line:col `st...`": the last writer of the element
    opt_threads: str = ""
    depends: dict = field(default_factory=dict)  # buffer -> sorted indices the element reads; '__symbols__' -> names
    writers: dict = field(default_factory=dict)  # role -> (ThreadId, Site) of the store that wrote the element
    parting: object = None  # volta.equiv.parting.Parting: where the two kernels' values first part (or None)
    relative: float | None = None  # |ref - opt| / max(|ref|, |opt|) (volta.equiv.witness)
    below_resolution: str | None = None  # the output dtype ('f32') when `relative` is below its resolution
    fixed: list = field(default_factory=list)  # integer inputs fixed to their values here (fixed_inputs.py)


@dataclass
class CheckReport:
    verdict: str  # equivalent | not-equivalent | findings | unsupported | unknown
    findings: dict = field(default_factory=dict)  # role -> [Finding]
    counterexample: Counterexample | None = None
    unknown: list = field(default_factory=list)  # (buffer, index, reason)
    unsupported: object = None
    compared: int = 0
    proved_by: dict = field(default_factory=dict)  # 'identical' | 'normal-form' | 'z3' -> count
    stats: dict = field(default_factory=dict)
    kernels: dict = field(default_factory=dict)  # role -> .entry name that ran
    notes: list = field(default_factory=list)  # what the real semantics relied on (e.g. expf's 2^n bit idiom)
    # float literals read as the named constants they round (volta/symbolic/constants.py): one entry per constant,
    # {"name": "log2 e", "literals": ["0f3FB8AA3B", "lo 0f32A57060"], "roles": ["ref", "opt"]}
    constants: list = field(default_factory=list)
    timed_out: str | None = None  # set when --timeout ended the check: what was running, what was left
    coverage: dict | None = None  # --ctas: {role: CTAs run, "not_compared": elements written on one side only}
    # addresses depending on integer inputs: {buffers, assignments, enumerated, decided, inputs} (fixed_inputs.py)
    fixed_inputs: dict | None = None

    @property
    def exit_code(self) -> int:
        return {"equivalent": 0, "not-equivalent": 1, "findings": 1}.get(self.verdict, 3)


def timed_out(spec: LaunchSpec, err: Timeout, doing: str) -> CheckReport:
    """The report of a check whose --timeout ran out before `check` could start or outside what it catches:
    UNKNOWN, with the work the machines did (`Timeout.count`)."""
    report = CheckReport("unknown", timed_out=f"{err.message} while {doing} ({err.thread_instructions:,} "
                                              f"thread-instructions executed); no output element was compared")
    report.kernels = {role: " → ".join(map(step_name, sequence(spec, role))) for role in ("ref", "opt")}
    report.stats["thread_instructions"] = err.thread_instructions
    return report


def execute(spec: LaunchSpec, role: str, input_values=None, lane_structured: bool | None = None,
            integers: IntegerInputs = NO_INTEGERS, fast: FastPaths = ALL_FAST) -> Machine:
    """Run `role` symbolically: its one launch, or its launch sequence in order on the same buffers (the
    returned machine is the last launch's, with every launch's findings; `volta.exec.drivers.pipeline`). `integers`:
    the integer inputs of the check in progress, `fast` the machine's fast paths it may take (volta/config.py;
    `lane_structured`, when given, overrides fast.lane_structured)."""
    symbols = {k: v for k, v in spec.symbols.items()}
    lane = fast.lane_structured if lane_structured is None else lane_structured
    buffers, fixed = fixed_buffers(spec)
    machines, carried = [], None
    try:
        progs = [(launch, lower(parse_file(launch.ptx), launch.kernel)) for launch in sequence(spec, role)]
        named = named_reading(spec, [prog for _, prog in progs])
        for launch, prog in progs:
            m = pipeline.machine(carried, prog, launch, buffers, symbols, inputs=fixed, symbolic=True,
                                 input_values=input_values, check_races=input_values is None,
                                 lane_structured=lane and input_values is None, functions=spec.functions,
                                 allow_exit_before_barrier=spec.allow_exit_before_barrier, named=named,
                                 integers=integers, fast=fast)
            machines.append(m.run())
            carried = m.buffer_regions
    except Timeout as err:
        for done in machines:   # the launches that finished (the running one counted itself)
            err.count(done)
        raise
    return pipeline.combine(machines)


def fixed_buffers(spec: LaunchSpec) -> tuple[dict, dict]:
    """(buffers, their initial bytes) for a run whose integer inputs `spec.fixed` have concrete values: those
    buffers take the role FIXED (known numbers, volta/equiv/fixed_inputs.py); the rest stay as declared."""
    if not spec.fixed:
        return spec.buffers, {}
    buffers = {n: dataclasses.replace(b, role=FIXED) if n in spec.fixed else b for n, b in spec.buffers.items()}
    return buffers, {n: np.ascontiguousarray(a, DTYPES[spec.buffers[n].dtype][0]) for n, a in spec.fixed.items()}


class PolyRow:
    """An output element stored from a LaneSym: row `row` of stored value `slot` (materialized on demand)."""

    __slots__ = ("key", "ls", "row", "_expr")

    def __init__(self, key, ls, row):
        self.key, self.ls, self.row, self._expr = key, ls, row, None

    def expr(self):
        if self._expr is None:
            self._expr = self.ls.poly.take(np.array([self.row])).to_exprs()[0]
        return self._expr


def _plain(e):
    return e.expr() if isinstance(e, PolyRow) else e


def outputs(m: Machine, spec: LaunchSpec, rows: bool = False) -> dict:
    """Per out/inout buffer: one entry per element, an expression or UNTOUCHED (with `rows`, elements
    stored from lane-structured values are `PolyRow`s instead of expressions).

    An element is read at the buffer's width, so it must hold one value stored at that width: a value of
    another width at its start, a value stored inside it, or some of its bytes left unwritten is UNSUPPORTED
    naming the last writer (the writers refuse such stores themselves; this is the backstop)."""
    def refuse(i, byte, what):
        shadow = getattr(region, "shadow", None)   # the last writer of `byte`, from the race shadow
        pc = int(shadow.w_pc[byte // shadow.g]) if shadow is not None and byte // shadow.g < shadow.n else -1
        op = m.prog.ops[pc] if 0 <= pc < len(m.prog.ops) else None
        raise Unsupported(f"element {i} of `{name}` ({buf.dtype}) {what}" +
                          (f", last written by `{op.d.inst.opcode}`" if op else "") +
                          "; only values stored at the element's width are compared", op.span if op else None)

    result = {}
    for name, buf in spec.buffers.items():
        if buf.role not in ("out", "inout"):
            continue
        region = m.buffer_regions[name]
        size = region_itemsize(region)
        t = _element_type(buf.dtype)
        refs = region.lsref
        # only the elements the kernel wrote are visited one by one (a 4096 x 4096 output of which one
        # CTA writes 64 x 64 costs a list of shared UNTOUCHED markers, not 16 M look-ups)
        at = np.zeros(0, np.int64)   # the elements the kernel wrote whole
        if region.kwritten is not None:
            # from the bytes written (a pass over the buffer finds them), not a per-element reduction of all
            elems, nbytes = np.unique(np.flatnonzero(region.kwritten[0, :buf.count * size]) // size,
                                      return_counts=True)
            partial = elems[nbytes < size]
            if partial.size:
                i = int(partial[0])
                refuse(i, i * size + int(np.argmax(region.kwritten[0, i * size:(i + 1) * size])),
                       "was written only in part")
            at = elems[nbytes == size]
            why = A.unreadable(region, np.zeros(at.size, np.int64), at * size, size)
            bad = np.flatnonzero(why != None) if why is not None else ()  # noqa: E711
            if len(bad):
                i = int(at[bad[0]])
                cover = region.cover[0, i * size:(i + 1) * size]
                later = np.flatnonzero((cover[1:] == 0) | (cover[1:] == A.START))   # the narrower store's bytes
                refuse(i, i * size + (int(later[0]) + 1 if later.size else 0), f"is {size} bytes {why[bad[0]]}")
        elements = Elements([UNTOUCHED if buf.role == "out" else UNCHANGED]) * buf.count
        poly_at = []
        for i in at.tolist():
            off = i * size
            stored = region.sym[0, off] if region.sym is not None else None
            if (stored is not None or refs is not None and refs[0, off] > 0) and region.symsize[0, off] != size:
                refuse(i, off, f"holds a value stored {int(region.symsize[0, off])} bytes wide")
            if stored is None and refs is not None and refs[0, off] > 0:   # lsref holds slot + 1
                slot, row = int(refs[0, off]) - 1, int(region.lsrow[0, off])
                element = PolyRow((name, slot), region.lslist[slot], row)
                elements[i] = element if rows else element.expr()
                if rows:
                    poly_at.append(i)
            elif stored is not None:
                elements[i] = stored
            else:
                bits = region.data[0, off:off + size].copy().view({1: np.uint8, 2: np.uint16, 4: np.uint32,
                                                                   8: np.uint64}[size]).astype(np.uint64)
                elements[i] = constants(bits, t, m.named)[0]
        elements = Elements(elements)
        elements.poly_at = np.array(poly_at, np.int64)
        elements.initial = functools.partial(_input_value, m, name)
        result[name] = elements
    return result


class Elements(list):
    """An output buffer's elements; `poly_at`: the indices holding PolyRows (outputs(rows=True)). An inout
    element the kernel did not write is the shared marker UNCHANGED (16 M input leaves would cost gigabytes
    for a buffer of which one CTA writes 64 x 64): `at(i)` gives its value, `initial(i)`."""

    poly_at = None
    initial = None

    def at(self, i: int):
        e = self[i]
        return self.initial(i) if e is UNCHANGED else e


def _input_value(m, name, i):
    """Element i of inout buffer `name` before the launch: its leaf, or its given value in an exact replay."""
    if m.input_values is None:
        return E.var(name, i)
    if name in m.input_values:
        return E.const(m.input_values[name][i])
    return UNTOUCHED


def _element_type(dtype: str) -> str:
    return {"f32": ".f32", "f64": ".f64", "f16": ".f16", "bf16": ".bf16", "s32": ".s32", "u32": ".u32",
            "s64": ".s64", "u64": ".u64", "s8": ".s8", "u8": ".u8", "s16": ".s16", "u16": ".u16"}.get(dtype, ".b32")


def blocking(finding) -> bool:
    """Does a finding stop the comparison? Benign kinds do not: every racing write stores one value over the
    reals (or a read gets the same value in any order), so the outputs are still one function of the inputs;
    they are listed with the verdict."""
    return finding.kind not in F.BENIGN


def check(spec: LaunchSpec, timeout_ms: int = 10_000, emit_smt: str | None = None, progress=None,
          inputs=None, trials: int | None = None, fast: FastPaths = ALL_FAST) -> CheckReport:
    """Decide ref vs opt over the reals. Elements of integer buffers are reals to the decision (what holds
    for every real holds for every integer) and integers in any counterexample (`integer_inputs`), within
    their declared ranges. Where addresses depend on integer inputs, per assignment of them
    (volta/equiv/fixed_inputs.py: every one when few, else those of `inputs`/`trials`). `fast`: the fast paths
    the two kernels' symbolic runs may take (all; a test or a benchmark compares one with the general path)."""
    report = _check(spec, timeout_ms, emit_smt, progress, fast)
    if fixed_inputs.applies(spec, report):
        report = fixed_inputs.check_each(spec, lambda one: _check(one, timeout_ms, emit_smt, progress, fast),
                                         inputs, trials, progress)
    return report


def integer_inputs(spec: LaunchSpec) -> IntegerInputs:
    """The integer input buffers of a check and their ranges: a declared range (`:range=0..50256`), else the
    dtype's."""
    return IntegerInputs.of({n: b.range or integer_real.type_range("." + b.dtype)
                             for n, b in spec.buffers.items() if b.dtype[0] in "su"})


def _check(spec: LaunchSpec, timeout_ms: int, emit_smt: str | None, progress, fast: FastPaths) -> CheckReport:
    integers = integer_inputs(spec)
    if "ref" not in spec.launches or "opt" not in spec.launches:
        raise UsageError("volta check needs two kernels: REF.ptx OPT.ptx, or a manifest with [ref] and [opt]")
    for name, buf in spec.buffers.items():
        if buf.role not in ("in", "out", "inout", "temp"):
            raise UsageError(f"buffer `{name}` needs a role (:in, :out, :inout or :temp) for volta check")
    if not any(b.role in ("out", "inout") for b in spec.buffers.values()):
        raise UsageError("volta check needs at least one :out or :inout buffer to compare")
    report = CheckReport("equivalent")
    report.kernels = {role: " → ".join(map(step_name, sequence(spec, role))) for role in ("ref", "opt")}
    _EXPANSION.clear()   # estimates and bounds of the last check's nodes: kept, they would keep the nodes
    clear_bounds_memo()  # alive; then the nodes nothing holds any more are dropped (expr.sweep)
    E.sweep()
    partial = _partial(spec, report)
    if report.verdict == "unsupported":
        return report
    machines = {}
    start = time.perf_counter()
    for role in ("ref", "opt"):
        if progress is not None:
            progress(f"executing {role} {report.kernels[role] or spec.launches[role].ptx} symbolically")
        try:
            machines[role] = execute(spec, role, integers=integers, fast=fast)
            report.kernels[role] = pipeline_names(machines[role])
        except Unsupported as err:
            report.verdict, report.unsupported = "unsupported", (role, err)
            return report
        except Timeout as err:
            done = err.thread_instructions + sum(m.thread_instructions for m in machines.values())
            report.verdict = "unknown"
            report.timed_out = (f"{err.message} ({role} side; {done:,} thread-instructions executed); no output "
                                f"element was compared")
            report.stats["execute_seconds"] = time.perf_counter() - start
            report.stats["thread_instructions"] = done
            return report
        report.findings[role] = machines[role].findings
        report.notes += [f"{role}: {n}" for n in getattr(machines[role], "real_notes", ())]
    report.constants = constants_read({role: m.named for role, m in machines.items()})   # (None: --exact-constants)
    report.stats["execute_seconds"] = time.perf_counter() - start
    report.stats["thread_instructions"] = sum(m.thread_instructions for m in machines.values())
    for role, m in machines.items():   # racing reads whose values never reach an output (exec/races/racy_reads.py)
        if role not in spec.sequences:
            launch = spec.launches[role]
            report.findings[role] = racy_reads.settle(m, report.findings[role], racy_reads.rerun_launch(
                Machine, m.prog, launch, spec.buffers, spec.symbols, spec.functions, spec.allow_exit_before_barrier))
    if any(blocking(f) for found in report.findings.values() for f in found):
        report.verdict = "findings"
        return report
    for role, m in machines.items():   # stores equal over the reals: do their bits differ? (listed, not blocking)
        if m.replicas:
            launches = sequence(spec, role)
            progs = [lower(parse_file(x.ptx), x.kernel) for x in launches]
            report.findings[role] = replica_bits.merge(
                report.findings[role], replica_bits.bits_findings(spec, role, progs, launches, [m]))
    start = time.perf_counter()
    if progress is not None:
        progress("comparing outputs")
    outs = {}
    try:
        for role, m in machines.items():
            outs[role] = outputs(m, spec, rows=True)
    except Unsupported as err:   # an element written in part or at another width (outputs' backstop)
        report.verdict, report.unsupported = "unsupported", (role, err)
        return report
    except Timeout as err:
        report.verdict, report.timed_out = "unknown", f"{err.message} reading the outputs; no element was compared"
        return report
    total = sum(len(v) for v in outs["ref"].values())
    norm = Normalizer()
    screen = Screen(input_domain(spec), integers)

    def nf(e):
        return normalize(e, norm)
    kept = Normalizer(shared=SharedTerms(), limit=LARGE_EXPANSION)   # shared sums kept whole (large elements)
    renamings = Renamings()   # elements that are the last proved one over other inputs (symbolic/renaming.py)
    shown = time.perf_counter()
    smt_dir = Path(emit_smt) if emit_smt else None
    if smt_dir:
        smt_dir.mkdir(parents=True, exist_ok=True)
    for name in outs["ref"]:
        if report.timed_out:
            break
        try:
            proved = _bulk_equal(outs["ref"][name], outs["opt"][name])
        except Timeout as err:
            _out_of_time(report, name, 0, err, total)
            break
        ref_el, opt_el = outs["ref"][name], outs["opt"][name]
        same = np.fromiter(map(operator.is_, ref_el, opt_el), bool, len(ref_el)) & ~proved  # e.g. both UNTOUCHED
        skip = np.zeros(len(ref_el), bool)
        if partial:   # --ctas: only elements the selected CTAs wrote are the whole launch's values
            # a side that ran every CTA covers every element (what it did not write, it never writes)
            w_ref, w_opt = (_written(machines[r], spec, name) if spec.launches[r].ctas else np.ones(len(ref_el), bool)
                            for r in ("ref", "opt"))
            skip = ~(w_ref & w_opt)
            report.coverage["not_compared"] += int(skip.sum())
            report.coverage["one_side"] += int((w_ref ^ w_opt).sum())
            proved, same = proved & ~skip, same & ~skip
        for how, mask_ in (("normal-form", proved), ("identical", same)):
            count = int(mask_.sum())
            if count:   # decided in bulk: counted at once, not visited one by one
                report.compared += count
                report.proved_by[how] = report.proved_by.get(how, 0) + count
        todo = np.flatnonzero(~(proved | same | skip)).tolist()
        plain = [(_plain(ref_el.at(i)), _plain(opt_el.at(i))) for i in todo]
        # shared sub-expressions (row statistics) proved equal once, then atoms, made for the first element that
        # needs them (symbolic/cuts.py)
        cut_points = cuts.CutPoints([a for a, _ in plain], [b for _, b in plain], nf, equal, _expansion)
        for pos, i in enumerate(todo):
            report.compared += 1
            if progress is not None:
                shown = _progress(progress, report.compared, total, start, shown)
            a, b = plain[pos]
            try:
                how = _cheaply_proved(cut_points, renamings, pos, a, b, smt_dir)
                if how is not None:
                    report.proved_by[how] = report.proved_by.get(how, 0) + 1
                    continue
            except Timeout as err:
                _out_of_time(report, name, i, err, total, "proving it over cut points or as a renaming")
                break
            try:
                verdict = _compare(a, b, norm, timeout_ms, smt_dir, name, i, screen, kept)
            except Timeout as err:
                _out_of_time(report, name, i, err, total)
                break
            if isinstance(verdict, Proved) and verdict.how == "normal-form":
                renamings.add(a, b)
            if isinstance(verdict, Proved):
                report.proved_by[verdict.how] = report.proved_by.get(verdict.how, 0) + 1
                continue
            if isinstance(verdict, Unknown):
                report.unknown.append((name, i, verdict.reason))
                if len(report.unknown) >= MAX_UNKNOWN:
                    break
                continue
            try:
                cex = _confirm(spec, verdict, name, i, a, b, machines, screen.domain, integers)
            except Timeout as err:
                _out_of_time(report, name, i, err, total, "confirming a candidate counterexample")
                break
            if cex is not None:
                report.verdict, report.counterexample = "not-equivalent", cex
                report.stats["decide_seconds"] = time.perf_counter() - start
                return report
            report.unknown.append((name, i, "a candidate counterexample could not be confirmed exactly"))
            if len(report.unknown) >= MAX_UNKNOWN:
                break
    report.stats["decide_seconds"] = time.perf_counter() - start
    if report.unknown or report.timed_out:
        report.verdict = "unknown"
    return report


def _cheaply_proved(cut_points: cuts.CutPoints, renamings: Renamings, pos: int, a, b, smt_dir) -> str | None:
    """How element `pos` (a, b) is proved without a comparison of its own, or None: over the cut points made
    so far, as a renaming of the last proved element (not with --emit-smt, which wants every element's
    obligation), or over cut points made now for it (the first element large enough to need them)."""
    if cut_points.proved(pos, a, b):
        return "cut-points"
    if smt_dir is None and renamings.covers(a, b):   # the last proved element over other inputs
        return "renaming"
    if cut_points.proved(pos, a, b, make=True):
        return "cut-points"
    return None


PROGRESS_SECONDS = 2.0


def _progress(progress, done: int, total: int, start: float, shown: float) -> float:
    """A `comparing: …` line with the share done and an ETA, at most every PROGRESS_SECONDS."""
    now = time.perf_counter()
    if now - shown < PROGRESS_SECONDS or not total:
        return shown
    rate = done / max(now - start, 1e-9)
    eta = (total - done) / rate if rate else float("inf")
    progress(f"comparing: {done:,} of {total:,} elements ({100 * done // total}%), ETA {eta:.0f} s")
    return now


def _partial(spec, report) -> bool:
    """--ctas on either side: record the coverage, or refuse kernels whose CTAs communicate."""
    picked = {role: spec.launches[role] for role in ("ref", "opt") if spec.launches[role].ctas}
    if not picked:
        return False
    for role in ("ref", "opt"):
        for launch in sequence(spec, role):
            why = ctas.refuse_partial(lower(parse_file(launch.ptx), launch.kernel), role)
            if why is not None:
                report.verdict = "unsupported"
                report.unsupported = (role, Unsupported(f"--ctas cannot speak for the whole launch: {why}"))
                return False
    report.coverage = {role: ctas.describe(launch.ctas, launch.grid) if launch.ctas else "every CTA"
                       for role, launch in ((r, spec.launches[r]) for r in ("ref", "opt"))}
    report.coverage["not_compared"] = report.coverage["one_side"] = 0
    return True


def _written(m, spec, name) -> np.ndarray:
    """Which elements of output `name` the machine's kernel stored to."""
    region = m.buffer_regions[name]
    count, size = spec.buffers[name].count, region_itemsize(region)
    if region.kwritten is None:
        return np.zeros(count, bool)
    return region.kwritten[0, :count * size:size].astype(bool)


def _out_of_time(report, name, i, err, total, doing="deciding it") -> None:
    """--timeout ran out on element name[i]: it is UNKNOWN, and so is every element not compared yet. The timer
    is stopped first: it fires again every 0.5 s past the deadline, and freeing this element's large normal
    forms on the way out could take that long (the report would then lose the element and its counts)."""
    limits.disarm()
    report.unknown.append((name, i, f"{err.message} while {doing}"))
    left = total - report.compared
    report.timed_out = (f"{err.message} at {name}[{i}]; " + (f"{left:,} further element(s) were not compared"
                        if left else "it was the last element"))


def _bulk_equal(ref: list, opt: list) -> np.ndarray:
    """Elements whose two values are both lane polynomials with equal canonical forms (numpy, in bulk);
    False where undecided here (the per-element path decides).

    Elements are grouped by the pair of stored values they come from (ref slot, opt slot); each group's
    rows are taken from both values and compared lane by lane with `LanePoly.differing_lanes`, so that
    at most one group's terms are sorted at a time (memory follows one group, not every output)."""
    n = len(ref)
    proved = np.zeros(n, bool)
    at_a, at_b = getattr(ref, "poly_at", None), getattr(opt, "poly_at", None)
    if at_a is None or at_b is None:
        at_a = at_b = np.array([i for i, (a, b) in enumerate(zip(ref, opt))
                                if isinstance(a, PolyRow) and isinstance(b, PolyRow)], np.int64)
    both = np.intersect1d(at_a, at_b)
    groups: dict = {}
    for i in both.tolist():
        a, b = ref[i], opt[i]
        if not (isinstance(a, PolyRow) and isinstance(b, PolyRow)):
            continue
        g = groups.get((a.key, b.key))
        if g is None:
            g = groups[(a.key, b.key)] = (a.ls, b.ls, [], [], [])
        g[2].append(i)
        g[3].append(a.row)
        g[4].append(b.row)
    for ls_a, ls_b, elems, rows_a, rows_b in groups.values():
        try:
            pa = ls_a.poly.take(np.array(rows_a, np.int64))
            pb = ls_b.poly.take(np.array(rows_b, np.int64))
            bad = pa.differing_lanes(pb)
        except CoefficientOverflow:
            continue
        ok = np.ones(len(elems), bool)
        ok[bad] = False
        proved[np.array(elems, np.int64)[ok]] = True
    return proved


def _compare(a, b, norm, timeout_ms, smt_dir, name, i, screen: Screen | None = None, kept=None):
    """Decide one element: identical DAGs, equal normal forms within a hard budget (`_bounded_equal`), a float
    screen confirmed exactly, equal normal forms (for an element whose expansion would be large, first with
    shared sums kept as atoms, `kept`), exact random search, case splits, Z3; where selects share a condition,
    equal normal forms once they are fused (lift.py) before anything else."""
    screen = screen or Screen()
    if a is b:
        return Proved("identical")
    if a is UNTOUCHED or b is UNTOUCHED:
        return Refuted({}, confirmed=True)
    if smt_dir is not None:
        from volta.symbolic import z3bridge  # start-up: z3 loads for the first element that needs it

        z3bridge.emit_smt(a, b, smt_dir / f"{name}_{i}.smt2", norm)
    expansion = _expansion(a, b)
    if expansion <= LARGE_EXPANSION and lifted_equal(a, b, norm):   # (only where selects share a condition)
        return Proved("lifted-selects")
    if expansion <= LARGE_EXPANSION and _bounded_equal(a, b, norm):
        return Proved("normal-form")
    found = screen.search(a, b)   # float64 at several input scales, confirmed exactly: before any large normal form
    if found is not None:
        return found
    domain = screen.domain
    large = expansion > LARGE_EXPANSION
    if large and kept is not None and _kept_equal(a, b, kept):
        return Proved("shared-terms")
    if large:  # a few cheap exact evaluations first: normalizing a large expression can take minutes
        quick = random_search(a, b, tries=8, domain=domain, integers=screen.integers)
        if quick is not None:
            return quick
    if equal(normalize(a, norm), normalize(b, norm)):
        return Proved("normal-form")
    if not large:   # max/min/abs identities (the stable softplus' |x|): their case split costs a few normal forms,
        split = decide_by_cases(a, b, norm)   # 60 exact evaluations of tanh/log enclosures cost ten times that
        if split is not None:
            return split
    quick = random_search(a, b, tries=60, seed=1 if large else 0, domain=domain, integers=screen.integers)  # exact, before a solver
    if quick is not None:
        return quick
    from volta.symbolic import z3bridge  # start-up: z3 loads for the first element that needs it

    return z3bridge.decide_equal(a, b, limits.remaining_ms(timeout_ms), norm, domain, integers=screen.integers)


LARGE_EXPANSION = 50_000  # estimated terms: above this, a few random inputs are tried before normalizing
FIRST_BUDGET = 4_000_000  # units of work (normal.Budget) a normal form may take before the float screen: ~1-3 s


def _bounded_equal(a, b, norm: Normalizer) -> bool:
    """a = b by equal normal forms, tried before the float screen with at most FIRST_BUDGET monomial operations
    (`normal.Budget`, counted as the work is done): an equal element, most of a check's, then costs its normal
    forms alone, not a float64 evaluation of every node at 34 points first (a third of Attention vs FA2-TC's
    comparison). Past the budget (a sum of sigmoids whose common denominator doubles with every term, nested
    selects) it gives up, and the element goes on to the screen as before: what it normalized stays in
    `norm`'s memo for the later steps. Not proved equal here (different normal forms, a division by zero)
    also goes on as before, so a witness is the one the screen finds. (An element estimated above
    LARGE_EXPANSION is not tried here: its own order, shared sums kept whole and random inputs first, applies.)"""
    bounded = norm.bounded(Budget(FIRST_BUDGET))
    try:
        return equal(bounded(a), bounded(b), bounded.budget)
    except (ExpansionLimit, Unsupported):
        return False


def _kept_equal(a, b, kept: Normalizer) -> bool:
    """a = b by normal forms with shared sums kept whole (`kept` is bounded: an element whose expansion
    does not come from shared sums gives way to the random search instead of expanding here)."""
    try:
        return kept.shared.equal(kept(a), kept(b))
    except ExpansionLimit:
        return False


def _expansion(*roots) -> int:
    """An estimate of the terms normalizing would expand to, numerator and denominator counted apart as
    the normal form keeps them (num/den): a sum adds its parts' terms (denominators taken as shared), a
    product multiplies them, a ratio a/b is a.num·b.den over a.den·b.num, anything else is one atom. A
    two-pass variance of 256 elements estimates 1.7e7 (minutes to normalize), a 128-wide softmax 129, and
    attention over 256 keys, sum_k 2^(s_k - m)·V[k] / sum_k 2^(s_k - m), 512 (one product num·den made it
    65,536, and 8 exact evaluations per element before normalizing cost 7.6 s each, 95% of the check).
    An atom is one term, but its arguments are normalized too: the estimate is the larger of the root's and
    of any atom argument's below it (a two-pass variance under rsqrtf counts as large; it read 1,026 once).
    Linear in the DAG; capped at 1e12. Only orders the steps (normal forms under a budget first, or a few random
    inputs before normalizing; cut points made or not): no verdict depends on it. Estimates are kept by node
    across the elements of a check (outputs share sub-DAGs: a fresh walk per element made a 512-element softmax
    spend 70% of its time here), and dropped when the next check starts."""
    memo = _EXPANSION
    cap = 10 ** 12
    add, mul, div = E.ADD, E.MUL, E.DIV
    exprs = [r for r in roots if isinstance(r, E.Expr)]
    for root in exprs:
        for node in E.postorder(root, memo):
            op = node.op
            if op is add or op is mul or op is div:
                (num, den, inner), (n2, d2, i2) = memo[node.args[0]], memo[node.args[1]]
                inner = max(inner, i2)
                if op is add:      # as if over one denominator (0: none), as a sum was counted before
                    num, den = num + n2, max(den, d2)
                elif op is mul:
                    num, den = num * n2, den * d2 if den and d2 else den or d2
                else:              # (a/da) / (b/db) = a·db / (da·b)
                    num, den = num * max(d2, 1), max(den, 1) * n2
                memo[node] = (min(num, cap), min(den, cap), inner)
            else:   # an atom: one term, after normalizing its arguments
                memo[node] = (1, 0, max((max(n + d, i) for n, d, i in (memo[x] for x in node.args)), default=0))
    return max((min(max(n + d, i), cap) for n, d, i in (memo[r] for r in exprs)), default=0)


_EXPANSION: dict = {}  # node -> estimated (numerator, denominator, largest atom argument) terms (_expansion)


def _confirm(spec, verdict: Refuted, name, i, a, b, machines=None, domain: Domain | None = None,
             integers: IntegerInputs = NO_INTEGERS) -> Counterexample | None:
    """Re-execute both kernels on the candidate input with exact arithmetic; keep it only if they differ. The
    input is rounded to each buffer's dtype first (nearest, else down, else up: `Domain.variants`), so a
    counterexample is always one a GPU run can be given; one whose outputs part by under 1e-3 relative is
    scaled up where they part more (`witness.larger_difference`), and the scaled one replayed too."""
    domain = domain or input_domain(spec)
    for model in domain.variants(verdict.model or {}):
        cex = _replayed(spec, model, name, i, a, b, integers)
        if cex is not None:
            break
    else:
        return None
    cex.relative = relative_difference(cex.ref_value, cex.opt_value)
    if cex.relative is not None and cex.relative < SMALL and isinstance(a, E.Expr) and isinstance(b, E.Expr):
        larger = larger_difference(model, cex.relative, domain, a, b, spec.buffers[name].dtype)   # parts clearly
        better = _replayed(spec, larger, name, i, a, b, integers) if larger is not None else None
        if better is not None:
            cex, cex.relative = better, relative_difference(better.ref_value, better.opt_value)
    cex.below_resolution = below_resolution(spec, name, cex.relative)
    for role, m in (machines or {}).items():
        writer = last_writer(m, spec, name, i)
        if writer is not None:
            cex.writers[role] = writer
            tid, site = writer
            text = f"{tid} at {site.ptx}:{site.line}:{site.col} `{site.text}`"
            setattr(cex, f"{role}_threads", text)
    cex.parting = _values_part(spec, cex.inputs, name, i, machines, integers)
    return cex


def _replayed(spec, model, name, i, a, b, integers: IntegerInputs) -> Counterexample | None:
    """Both kernels re-executed exactly on `model` (every other input 1): a Counterexample if they differ."""
    inputs = _full_inputs(spec, model, a, b)
    if not _integer_inputs_fit(integers, inputs):
        return None   # not an input the kernels can be given
    values = {}
    for role in ("ref", "opt"):
        try:
            m = execute(spec, role, input_values=inputs, integers=integers)
        except Unsupported:
            return None   # the exact replay meets what it does not model: nothing confirmed
        element = outputs(m, spec)[name].at(i)
        values[role] = _stored(spec, name, _exact(element))
    if values["ref"] is None or values["opt"] is None or not values["ref"] != values["opt"]:
        return None  # undefined, or not certainly different (equal, or enclosures that overlap)
    depends = {**dependencies(a, b), **{n: list(range(len(v))) for n, v in spec.fixed.items()}}
    return Counterexample(inputs, name, i, values["ref"], values["opt"], depends=depends)


def _values_part(spec, inputs, name, i, machines, integers):
    """Where the two kernels' values first part on the confirmed input (`volta.equiv.parting`). It is evidence
    for a person, made after the verdict: any failure to make it (an instruction the tracer cannot follow, the
    --timeout deadline, a bug in the tracer) is silence, never a changed verdict or a crash."""
    from volta.equiv.parting import values_part  # start-up: the tracer loads for a confirmed difference

    try:
        return values_part(spec, inputs, name, i, machines=machines, integers=integers)
    except Exception:  # noqa: BLE001 - see the docstring: the diagnosis never decides anything
        return None


def dependencies(*elements) -> dict:
    """The input elements and symbols the given output expressions read: buffer -> sorted indices."""
    deps: dict = {}
    roots = [e for e in elements if isinstance(e, E.Expr)]
    for leaf in inputs_of(*roots) if roots else ():
        if leaf.op == E.VAR:
            deps.setdefault(leaf.data[0], set()).add(int(leaf.data[1]))
        elif leaf.op == E.SYM:
            deps.setdefault("__symbols__", set()).add(leaf.data)
    return {k: sorted(v) for k, v in deps.items()}


def last_writer(m: Machine, spec: LaunchSpec, name: str, index: int):
    """(ThreadId, Site) of the last store to buffer[index], from the race shadow; None if unknown."""
    region = m.buffer_regions.get(name)
    shadow = getattr(region, "shadow", None)
    if shadow is None:
        return None
    granule = (index * region_itemsize(region)) // shadow.g
    if granule >= shadow.n:
        return None
    lane, pc = int(shadow.w_tid[granule]), int(shadow.w_pc[granule])
    if lane < 0 or pc < 0 or pc >= len(m.prog.ops):
        return None
    op = m.prog.ops[pc]
    cuda = f"{op.cuda[0]}:{op.cuda[1]}" if getattr(op, "cuda", None) else None
    return m.thread_id(lane), Site(op.span.file, op.span.line, op.span.col, op.d.inst.opcode, cuda)


def _integer_inputs_fit(integers: IntegerInputs, inputs) -> bool:
    """Every integer input an integer of its buffer's dtype (a model may give 1/2, or 2^40 to an s32)."""
    for name in integers.names:
        rng = integers.range_of(name)
        for v in inputs.get(name, {}).values():
            v = Fraction(v)
            if v.denominator != 1 or rng is not None and not rng[0] <= v <= rng[1]:
                return False
    return True


def _stored(spec, name, value):
    """An integer output's value as its buffer holds it: the exact integer run computes it modulo 2^w
    (volta/exec/handlers/integer_real.py), so it is wrapped into the dtype's range."""
    rng = integer_real.type_range("." + spec.buffers[name].dtype)
    if rng is None or not isinstance(value, Fraction) or value.denominator != 1:
        return value
    lo, hi = rng
    return Fraction((int(value) - lo) % (hi - lo + 1) + lo)


def _exact(element):
    """The element's exact value, or a certified enclosure where it is irrational (an `Enclosure`, whose
    `!=` means certainly different); None where it is undefined or cannot be bounded."""
    if element is UNTOUCHED:
        return UNTOUCHED
    try:
        return evaluate(element, {})
    except (Inexact, KeyError):   # KeyError: a leaf with no exact value (log2(e) of --define-fn exp)
        try:
            return enclose(element, {})
        except (EvalError, KeyError):
            return None
    except (EvalError, KeyError):  # KeyError: a leaf with no value (a symbol the replay did not fix)
        return None


def _full_inputs(spec, model, a, b) -> dict:
    """Every input element gets a value: the model's, else a small default (1, to keep divisions defined; the
    nearest value of a declared range); integer inputs fixed for the run their values."""
    inputs = {}
    for name, buf in spec.buffers.items():
        known = spec.fixed.get(name, buf.known_values())   # fixed for this run (fixed_inputs.py), or `:iota`
        if known is not None:
            inputs[name] = {k: Fraction(int(v)) for k, v in enumerate(known)}
        elif buf.role in ("in", "inout"):
            one = Fraction(1) if buf.range is None else Fraction(min(max(1, buf.range[0]), buf.range[1]))
            inputs[name] = {k: one for k in range(buf.count)}
    inputs["__symbols__"] = {s: Fraction(1) for s in spec.symbols}
    for leaf, value in (model or {}).items():
        if leaf.op == E.VAR:
            buffer, index = leaf.data
            inputs.setdefault(buffer, {})[index] = Fraction(value)
        elif leaf.op == E.SYM:
            inputs["__symbols__"][leaf.data] = Fraction(value)
    return inputs


def _replay_matches(spec: LaunchSpec, path, inputs: dict, name: str, index: int) -> None:
    """A counterexample file saved for another pair (other buffers, sizes, symbols) is a usage error."""
    outs = [n for n, b in spec.buffers.items() if b.role in ("out", "inout")]
    why = None
    if name not in outs:
        why = f"it names the output `{name}`, and this pair's outputs are {', '.join(outs) or 'none'}"
    elif not 0 <= index < spec.buffers[name].count:
        why = f"it names {name}[{index}], but `{name}` has {spec.buffers[name].count} elements"
    else:
        for key, vals in inputs.items():
            if key == "__symbols__":
                extra = sorted(set(vals) - set(spec.symbols))
                if extra:
                    why = f"it gives symbols {', '.join(extra)}, which this pair does not declare"
            elif key not in spec.buffers:
                why = f"it gives values for a buffer `{key}`, which this pair does not declare"
            elif vals and not all(0 <= i < spec.buffers[key].count for i in vals):
                why = f"its values for `{key}` do not fit {key}[{spec.buffers[key].count}]"
            if why:
                break
    if why:
        raise UsageError(f"counterexample file {path} was saved for another pair or launch: {why}")


def replay(spec: LaunchSpec, path: str | Path) -> dict:
    """Run both kernels on the inputs in a counterexample file (JSON or .npz); return the element's two exact
    values."""
    inputs, name, index, fixed_names = load_inputs(spec, path)
    fixed = {n: np.array([int(inputs[n][i]) for i in range(spec.buffers[n].count)], DTYPES[spec.buffers[n].dtype][0])
             for n in fixed_names}
    _replay_matches(spec, path, inputs, name, index)
    spec = dataclasses.replace(spec, fixed=fixed) if fixed else spec
    values = {}
    for role in ("ref", "opt"):
        m = execute(spec, role, input_values=inputs)
        values[role] = _stored(spec, name, _exact(outputs(m, spec)[name].at(index)))
    return {"buffer": name, "index": index, **values}
