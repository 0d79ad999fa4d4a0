"""`volta check` of kernels whose addresses depend on integer inputs (embedding lookups `wte + ids[t]*C`):
decided per concrete assignment of those inputs.

The structured run stops at an address (or branch) computed from tensor data. When the kernels have integer
input buffers, they are given concrete values — the buffer becomes FIXED: its elements are known numbers, as
the sizes are, so the gather's addresses are concrete — while every float input stays symbolic, and the pair
is checked over the reals once per assignment:

- when the assignments are few (every element in its declared `:range=LO..HI`, or its dtype's range, at most
  ENUMERATE_MAX assignments in all), every one is checked: EQUIVALENT then holds for every input, and the
  report says it was decided by enumerating them;
- otherwise on the assignments `--inputs` gives (an .npz holding the integer buffers, or the generated modes
  of `volta races`: random[:SEED] within the declared range, zeros, equal, colliding; `--trials` of them):
  all equal is EQUIVALENT ON THESE INPUTS (exit 3: not a proof for other ids).

A difference on any assignment is NOT EQUIVALENT with a counterexample that holds the assignment (and replays
with it); a finding, UNSUPPORTED or UNKNOWN on any assignment is the verdict. `decide` is the check of one
spec (volta.equiv.check._check), passed in so that this module depends on nothing in check.py.
"""
from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from volta.errors import UsageError
from volta.launch.spec import DTYPES, LaunchSpec
from volta.exec.findings import is_data_dependence
from volta.launch.inputs import trial_inputs, trial_modes

ENUMERATE_MAX = 64  # assignments checked one by one when there are at most this many (a proof over the range)
FOR_INPUTS = "equivalent-for-inputs"   # every assignment tried is equal: not a proof for others (exit 3)


def integer_inputs(spec: LaunchSpec) -> list:
    """The integer buffers the kernels read (roles in/inout), which an assignment fixes (not those whose values
    are declared, `:iota`)."""
    return sorted(n for n, b in spec.buffers.items()
                  if b.dtype[0] in "su" and b.role in ("in", "inout") and b.contents is None)


def applies(spec: LaunchSpec, report) -> bool:
    """The structured check stopped for data dependence, and there are integer inputs to fix."""
    return (report.verdict == "unsupported" and is_data_dependence(report.unsupported[1])
            and not spec.fixed and bool(integer_inputs(spec)))


def value_range(buf) -> tuple[int, int]:
    if buf.range is not None:
        return buf.range
    bits = 8 * DTYPES[buf.dtype][1]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if buf.dtype[0] == "s" else (0, (1 << bits) - 1)


def space(spec: LaunchSpec, names: list) -> int:
    """How many assignments the integer inputs have (each element anywhere in its range)."""
    total = 1
    for n in names:
        lo, hi = value_range(spec.buffers[n])
        total *= (hi - lo + 1) ** spec.buffers[n].count
        if total > ENUMERATE_MAX:
            return total
    return total


def assignments(spec: LaunchSpec, names: list, inputs, trials: int | None) -> tuple[list, bool]:
    """([(arrays by name, description)], enumerated): every assignment when there are at most ENUMERATE_MAX
    and none was asked for, else those of `inputs`/`trials` (the trial modes of `volta races`)."""
    if inputs is None and trials is None and space(spec, names) <= ENUMERATE_MAX:
        ranges = []
        for n in names:
            lo, hi = value_range(spec.buffers[n])
            ranges += [range(lo, hi + 1)] * spec.buffers[n].count
        out = []
        for values in itertools.product(*ranges):
            arrays, k = {}, 0
            for n in names:
                count = spec.buffers[n].count
                arrays[n] = np.array(values[k:k + count], DTYPES[spec.buffers[n].dtype][0])
                k += count
            out.append((arrays, "; ".join(f"{n} = {_values(a)}" for n, a in arrays.items())))
        return out, True
    out = []
    for mode in trial_modes(inputs, trials):
        arrays, _ = trial_inputs(spec, mode, complete=False)   # the float inputs stay symbolic
        missing = [n for n in names if n not in arrays]
        if missing:
            raise UsageError(f"--inputs {mode} gives no array for the integer input(s) {', '.join(missing)}, whose "
                             f"values the addresses depend on")
        fixed = {n: np.asarray(arrays[n]).reshape(-1) for n in names}
        for n, a in fixed.items():
            lo, hi = value_range(spec.buffers[n])
            if a.size != spec.buffers[n].count or ((a < lo) | (a > hi)).any():
                raise UsageError(f"--inputs {mode}: `{n}` must hold {spec.buffers[n].count} values in {lo}..{hi} "
                                 f"(its declared range or dtype)")
        shown = "; ".join(f"{n} = {_values(a)}" for n, a in fixed.items())
        out.append((fixed, f"{mode if isinstance(mode, str) else 'given arrays'}: {shown}"))
    return out, False


def _values(a, most: int = 12) -> str:
    items = [str(int(v)) for v in a[:most]]
    return "[" + ", ".join(items) + (", …" if a.size > most else "") + "]"


def check_each(spec: LaunchSpec, decide, inputs=None, trials: int | None = None, progress=None):
    """The verdict over the assignments of the integer inputs (see the module docstring); `decide(spec)` checks
    one spec. The report returned carries `fixed_inputs`: what was fixed, how many assignments, and how."""
    names = integer_inputs(spec)
    chosen, enumerated = assignments(spec, names, inputs, trials)
    compared, proved_by, executed = 0, {}, 0
    for k, (arrays, described) in enumerate(chosen):
        if progress is not None:
            progress(f"assignment {k + 1}/{len(chosen)} of {', '.join(names)}: {described}")
        report = decide(dataclasses.replace(spec, fixed=arrays))
        compared += report.compared
        executed += report.stats.get("thread_instructions", 0)
        for how, n in report.proved_by.items():
            proved_by[how] = proved_by.get(how, 0) + n
        report.fixed_inputs = {"buffers": names, "assignments": len(chosen), "enumerated": enumerated,
                               "decided": k + 1, "inputs": [described]}
        if report.verdict != "equivalent":
            if report.counterexample is not None:
                report.counterexample.fixed = names
            return report   # a difference, a finding, UNSUPPORTED or UNKNOWN on this assignment: the verdict
    # every assignment equal: the counts are those of all of them
    report.compared, report.proved_by, report.stats["thread_instructions"] = compared, proved_by, executed
    report.fixed_inputs["inputs"] = [d for _, d in chosen] if not enumerated else []
    if not enumerated:
        report.verdict = FOR_INPUTS
    return report
