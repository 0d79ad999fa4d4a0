"""Concrete mode of `volta races`: a kernel, or a launch sequence, run on concrete input sets and schedules.

When the all-inputs run stops because control flow or an address depends on tensor data (or `--inputs` is
given), the kernel runs as `volta run` runs it — the Machine with `structured=False` — once per input set
(`--inputs`: an .npz, `random[:SEED]`, `zeros`, `equal`: every integer input one value, `colliding`: integer
inputs in equal pairs). Within one input set, every schedule of its contended atomics that
volta/exec/schedules.py chooses runs too (who wins a lock, who draws which ticket). Bodiless functions return
unconstrained inputs drawn like the set's (volta/exec/runtime.py); `printf` is a no-op whose text is kept
when asked for. Findings are merged by their key, each noting the input sets (and, when it took another
order, the schedule) that showed it. Deciding the verdict is left to volta/exec/races.py.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from volta.errors import Unsupported, UsageError
from volta.exec import findings as F
from volta.exec import schedules as S
from volta.launch.spec import LaunchSpec
from volta.exec.pipeline import machine
from volta.exec.runtime import ConcreteRuntime, Nondet

# `--inputs` default when a data-dependent kernel falls back to concrete runs (the first --trials of them)
DEFAULT_TRIALS = ("random:0", "zeros", "equal", "colliding")
GENERATED = ("zeros", "equal", "colliding")
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


def trial_modes(inputs, trials: int | None) -> list:
    """The input modes of concrete trials. `inputs`: None (the default sequence), a dict of arrays, or
    a comma list of `random[:SEED]`, `zeros`, `equal`, `colliding`, FILE.npz. `random:S` with
    `trials` N stands for seeds S..S+N-1; a list is taken as given (`trials` must then match or be unset)."""
    if trials is not None and trials < 1:
        raise UsageError(f"--trials {trials}: give at least 1 trial")
    if isinstance(inputs, dict):
        if trials not in (None, 1):
            raise UsageError("--trials applies to generated inputs; given arrays are one trial")
        return [inputs]
    if inputs is None:
        n = trials or len(DEFAULT_TRIALS)
        return list(DEFAULT_TRIALS[:n]) + [f"random:{k}" for k in range(1, n - len(DEFAULT_TRIALS) + 1)]
    items = [i.strip() for i in str(inputs).split(",") if i.strip()]
    if not items:
        raise UsageError("--inputs is empty: give random[:SEED], zeros, equal, colliding or FILE.npz")
    for item in items:
        if item in GENERATED or item == "random" or item.endswith(".npz"):
            continue
        if item.startswith("random:"):
            try:
                int(item.partition(":")[2])
            except ValueError:
                raise UsageError(f"bad --inputs `{item}`: expected random:SEED with an integer SEED") from None
            continue
        raise UsageError(f"bad --inputs `{item}`: expected random[:SEED], zeros, equal (every integer input one "
                         f"value), colliding (integer inputs in pairs of equal values) or FILE.npz")
    if len(items) == 1 and (items[0] == "random" or items[0].startswith("random:")) and trials:
        seed = int(items[0].partition(":")[2] or 0)
        return [f"random:{seed + k}" for k in range(trials)]
    if trials is not None and trials != len(items):
        raise UsageError(f"--trials {trials} but --inputs lists {len(items)} input set(s): give one of them")
    return items


def trial_inputs(spec: LaunchSpec, mode):
    """(arrays, one-line description) for one trial; generated patterns start from random:0 and replace
    every integer input: `equal` with one value everywhere, `colliding` with pairs of equal values."""
    from volta.exec.replay import choose_inputs

    if isinstance(mode, dict) or mode not in ("equal", "colliding"):
        chosen = choose_inputs(spec, mode)
        return chosen.arrays, chosen.description
    arrays = choose_inputs(spec, "random:0").arrays
    changed = []
    for name, arr in arrays.items():
        if arr.dtype.kind in "iu" and name in spec.buffers:
            lo, hi = spec.buffers[name].range or (0, 3)   # (a declared range holds these values too)
            if mode == "equal":
                arrays[name] = np.full_like(arr, min(lo + 1, hi))
            else:
                arrays[name] = np.minimum(lo + np.arange(arr.size) // 2 % 4, hi).astype(arr.dtype)
            changed.append(name)
    what = ("every integer input 1 (LO+1 of a declared range LO..HI)" if mode == "equal" else
            "integer inputs 0,0,1,1,2,2,3,3,0,0,… (from LO of a declared range)")
    return arrays, (f"{mode}: {what} ({', '.join(changed) or 'no integer inputs'}); other inputs random "
                    f"from seed 0")


def nondet_mode(mode) -> str:
    """The values bodiless functions return in a trial: drawn like its inputs (an .npz set: from seed 0)."""
    if isinstance(mode, str) and (mode in GENERATED or mode.startswith("random:")):
        return mode
    return "random:0"


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
    from volta.exec.replay import _concrete_symbols, infer_buffers

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
