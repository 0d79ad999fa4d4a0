"""Feasible paths only: drop a race whose two accesses need contradictory conditions on tensor data.

`volta races` runs both sides of a branch on tensor data for every thread (volta/exec/handlers/ifconvert.py: the
condition is unknown there, even its parts that are not data: `v > 0 && i == 0`), so an access under
`p[0] == 0` and one under `p[0] != 0` meet in the shadow memory although no input makes both happen (`p[0]`
unchanged between: the same value). For the findings that needed such a condition, the kernel runs once more
over the reals (`symbolic=True`), where every condition is an expression of the data it reads and a lane whose
condition is false runs nothing, and each memory access records the condition its lane ran under (`PathLog`).
A finding between instructions a and b is dropped when that run finds no conflict between a and b at all, or
when, for every condition a ran under and every condition b ran under (by two different threads), their
conjunction is unsatisfiable (z3 through volta/symbolic/z3bridge: every pair of lanes is covered, not only the
pair named). It is kept, with the condition shown, when they can hold together.

Only conditions over integer data are decided (integer buffer elements compared exactly, the way the real
machine admits them, volta/exec/handlers/integer_real.py). A float comparison over the reals is not the IEEE one — NaN
makes `!(x < 0)` and `!(x >= 0)` both true — so a finding whose conditions read float data is never dropped.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from volta.config import IntegerInputs
from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.handlers import integer_real
from volta.symbolic import expr as E
from volta.symbolic.verdict import Proved

PAIRS = ("race", "ordering-race", "benign-race", "benign-read-race")  # kinds of two accesses
MAX_PAIRS = 64  # condition pairs solved per finding (lane-dependent conditions give one per lane)
TIMEOUT_MS = 2_000


@dataclass
class PathLog:
    """The conditions on tensor data under which each memory instruction ran, per instruction and lane."""

    by_pc: dict = field(default_factory=dict)  # op index -> {condition (E.TRUE: none): [lanes, one lane]}
    by_lane: dict = field(default_factory=dict)  # (lane, op index) -> the last condition other than TRUE

    def record(self, m, op, lanes) -> None:
        conditions = m.path_condition or {}
        seen = self.by_pc.setdefault(op.index, {})
        for lane in lanes.tolist():
            c = conditions.get(lane, E.TRUE)
            entry = seen.setdefault(c, [0, lane])
            entry[0] += 1
            if c is not E.TRUE:
                self.by_lane[(lane, op.index)] = c


def prune(findings: list, prog, launch, spec) -> list:
    """`findings` less those whose accesses need contradictory conditions; the others that needed a condition
    say which (`details['condition']`). Unchanged when the run over the reals cannot be made."""
    conditional = {id(f) for f in findings
                   if f.details.get("conditional") and f.kind in PAIRS and len(f.sites) >= 2}
    if not conditional or launch.ctas:
        return findings
    integers = _integer_inputs(spec)
    rerun = _conditions(prog, launch, spec, integers)
    if rerun is None:
        return findings
    log, met = rerun
    pcs = {(op.span.line, op.span.col): op.index for op in prog.ops}
    out = []
    for f in findings:
        if id(f) not in conditional:
            out.append(f)
            continue
        a, b = (pcs.get((s.line, s.col)) for s in f.sites[:2])
        if frozenset((a, b)) not in met or _decide(log, a, b, integers) == "infeasible":
            continue
        shown = _shown(log, launch, f, a, b)
        out.append(dataclasses.replace(f, details={**f.details, "condition": shown}) if shown else f)
    return out


def _integer_inputs(spec) -> IntegerInputs:
    """Elements of integer buffers are integer leaves of their dtype's range in the run over the reals (as in
    `volta check`), so conditions on them are decided exactly."""
    return IntegerInputs.of({n: integer_real.type_range("." + b.dtype)
                             for n, b in spec.buffers.items() if b.dtype[0] in "su"})


def _conditions(prog, launch, spec, integers: IntegerInputs):
    """Run the launch over the reals, logging each memory access's path condition: (PathLog, the instruction
    pairs of the conflicts that run found), or None if it cannot run."""
    from volta.exec.machine import Machine  # start-up: reports import session.races, which imports this

    log = PathLog()
    try:
        m = Machine(prog, launch, spec.buffers, spec.symbols, structured=True, check_races=True, symbolic=True,
                    functions=spec.functions, allow_exit_before_barrier=spec.allow_exit_before_barrier,
                    integers=integers, path_log=log)
        m.run()
    except Unsupported:
        return None
    pcs = {(op.span.line, op.span.col): op.index for op in prog.ops}
    met = {frozenset(pcs.get((s.line, s.col)) for s in f.sites[:2]) for f in m.findings if f.kind in PAIRS}
    return log, met


def _decide(log: PathLog, a, b, integers: IntegerInputs) -> str:
    """'infeasible' when no condition a ran under (by one thread) can hold with one b ran under (by another);
    else 'feasible' or 'unknown'."""
    ca, cb = log.by_pc.get(a), log.by_pc.get(b)
    if not ca or not cb or len(ca) * len(cb) > MAX_PAIRS:
        return "unknown"
    for x, (nx, lx) in ca.items():
        for y, (ny, ly) in cb.items():
            if nx == ny == 1 and lx == ly:
                continue   # one thread only: no pair of threads ran them under these conditions
            both = E.logical_and(x, y)
            if both is E.FALSE:
                continue
            if both is E.TRUE or not _integer_only(both, integers):
                return "feasible"
            if not isinstance(_prove(E.logical_not(both)), Proved):
                return "feasible"
    return "infeasible"


def _prove(claim):
    from volta.symbolic import z3bridge  # start-up: z3 loads only for a race whose path conditions need it

    return z3bridge.prove(claim, TIMEOUT_MS)


def _integer_only(c, integers: IntegerInputs) -> bool:
    return all(E.is_integer_leaf(leaf, integers) for leaf in E.leaves(c))


def _shown(log, launch, f, a, b) -> str | None:
    """The condition the finding's own pair of threads ran under (text), when one of them had one."""
    lanes = [_lane(launch, t) for t in f.threads[:2]]
    parts = [log.by_lane.get((lane, pc)) for lane, pc in zip(lanes, (a, b))]
    text = [E.to_str(c) for c in parts if c is not None]
    return " and ".join(dict.fromkeys(text)) or None


def _lane(launch, t: F.ThreadId) -> int:
    g, b = launch.grid, launch.block
    cta = t.block[0] + g.x * (t.block[1] + g.y * t.block[2])
    return cta * b.count + t.thread[0] + b.x * (t.thread[1] + b.y * t.thread[2])
