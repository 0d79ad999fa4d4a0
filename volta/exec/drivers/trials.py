"""Concrete mode of `volta races`: a kernel, or a launch sequence, run on concrete input sets and schedules.

When the all-inputs run stops because control flow or an address depends on tensor data (or `--inputs` is
given), the kernel runs as `volta run` runs it — the Machine with `structured=False` — once per input set
(`--inputs`: an .npz, `random[:SEED]`, `zeros`, `equal`: every integer input one value, `colliding`: integer
inputs in equal pairs). Within one input set, every schedule of its contended atomics that
volta/exec/state/schedules.py chooses runs too (who wins a lock, who draws which ticket). Bodiless functions return
unconstrained inputs drawn like the set's (volta/exec/state/runtime.py); `printf` is a no-op whose text is kept
when asked for. Findings are merged by their key, each noting the input sets (and, when it took another
order, the schedule) that showed it. Deciding the verdict is left to volta/session/races.py.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.drivers.pipeline import machine
from volta.exec.state import schedules as S
from volta.exec.state.runtime import ConcreteRuntime, Nondet
from volta.launch.inputs import (DEFAULT_TRIALS, GENERATED, _concrete_symbols, infer_buffers,  # noqa: F401
                                 nondet_mode, trial_inputs, trial_modes)
from volta.launch.spec import LaunchSpec

MAX_PRINTED = 10_000  # printf lines kept per input set


@dataclass
class Outcome:
    """What the concrete runs of one launch (or sequence) found, over every input set and schedule."""

    findings: list = field(default_factory=list)
    inputs: list = field(default_factory=list)  # one description per input set
    errors: list = field(default_factory=list)  # (input set index, Unsupported) of runs that stopped
    explored: list = field(default_factory=list)  # schedules.Exploration per input set
    printed: list = field(default_factory=list)  # (input set index, [(ThreadId, text)]) with --show-printf
    thread_instructions: int = 0
    steps: int = 0


def with_address(finding: F.Finding, m) -> F.Finding:
    """Fill in the state-space address of a finding that names a region and offset but no address."""
    if finding.address is not None or finding.buffer is None or finding.offset is None:
        return finding
    region = m.memory.by_name.get(finding.buffer)
    if region is None:
        return finding
    return dataclasses.replace(finding, address=region.base + finding.offset)


def run(spec: LaunchSpec, role: str, progs: list, launches: list, modes: list, *, lockstep_warps: bool = False,
        schedules: int = S.DEFAULT_BUDGET, schedule_seed: int = 0, show_printf: bool = False,
        progress=None, name: str = "") -> Outcome:
    """Every input set of `modes`, each under the schedules `schedules.explore` picks: at most `schedules` runs in
    all, at least one (lane order) per input set."""
    out = Outcome()
    merged: dict = {}
    spent = 0
    for k, mode in enumerate(modes):
        arrays, described = trial_inputs(spec, mode)
        out.inputs.append(described)
        if progress is not None:
            progress(f"{name}: trial {k + 1}/{len(modes)} on concrete inputs: {described}")
        try:
            steps = [_concrete_symbols(spec, role, arrays, {}, x) for x in launches]
            buffers = dict(spec.buffers)
            for x in steps:
                buffers.update(infer_buffers(x, spec.buffers, arrays))
        except Unsupported as err:
            out.errors.append((k, err))
            continue
        given = {n: np.ascontiguousarray(a).reshape(-1) for n, a in arrays.items()
                 if n in buffers and buffers[n].role != "temp"}
        stopped = []

        def run_once(schedule, k=k, steps=steps, buffers=buffers, given=given, mode=mode, stopped=stopped):
            first = schedule.prefix == () and schedule.rng is None
            rt = ConcreteRuntime(nondet=Nondet(nondet_mode(mode)), schedule=schedule,
                                 printed=[] if show_printf and first else None)
            carried = None
            for prog, x in zip(progs, steps):
                m = machine(carried, prog, dataclasses.replace(x, kernel=prog.name), buffers, {}, inputs=given,
                            structured=False, check_races=True, fp="ieee",
                            allow_exit_before_barrier=spec.allow_exit_before_barrier,
                            lockstep_warps=lockstep_warps, runtime=rt)
                error = None
                try:
                    m.run()
                except Unsupported as err:
                    error = err
                    if not stopped:   # once per input set, whichever schedule met it first
                        stopped.append(err)
                        out.errors.append((k, err))
                out.thread_instructions += m.thread_instructions
                out.steps += m.steps
                for f in m.findings:
                    _merge(merged, with_address(f, m), k, None if first else S.describe(schedule))
                if error is not None:
                    break
                carried = m.buffer_regions
            if rt.printed is not None:
                out.printed.append((k, rt.printed[:MAX_PRINTED]))

        # the budget is the kernel's: every input set runs at least lane order, the first sets get the rest
        budget = max(1, schedules - spent - (len(modes) - k - 1))
        out.explored.append(S.explore(run_once, budget, schedule_seed))
        spent += out.explored[-1].tried
    out.findings = F.benign_only_where_always(list(merged.values()))
    return out


def _merge(merged: dict, f: F.Finding, trial: int, schedule: str | None) -> None:
    """Keep the first finding of each key, noting every input set that showed it, and the first schedule
    (other than lane order) that did when lane order never did."""
    if f.key not in merged:
        details = {**f.details, "inputs": []}
        if schedule is not None:
            details["schedule"] = schedule
        merged[f.key] = dataclasses.replace(f, details=details)
    details = merged[f.key].details
    if schedule is None:
        details.pop("schedule", None)  # lane order shows it too
    if trial not in details["inputs"]:
        details["inputs"].append(trial)
