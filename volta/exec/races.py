"""`volta races` as a library call: run one launch of a kernel and collect its findings.

The executor (`machine.py`) does the work: every thread of every CTA, shadow memory for races
(shared memory within a CTA, global memory across the grid), barrier and warp-collective
deadlocks, bounds and uninitialized reads. This module only turns one run into a value — a
`RaceReport` with a verdict, the findings, the `Unsupported` error when the kernel left the
structured class, and the cost of the run — so that reports and the CLI never touch the machine.

Verdicts (DESIGN.md): `clean` (exit 0), `findings` (exit 1), `unsupported` (exit 3), `unknown` (exit 3:
--timeout ran out; the report says how far the run got). Findings made before a run left the structured
class, or before it ran out of time, are concrete defects, so they still make the verdict `findings` (the
report keeps the error too, saying the run stopped early). Usage and parse errors are not verdicts: they
propagate as `VoltaError`s (exit 2).

Concrete mode: when the structured run stops because a branch, address or count depends on tensor
data, the kernel is executed again on concrete inputs (`inputs`: an .npz, `random[:SEED]`, `zeros`,
`equal`, `colliding`; `trials` of them), the Machine with `structured=False` as `volta run` does.
Findings then hold for the inputs that showed them (`Finding.details["inputs"]`); no finding on any
trial is the verdict `clean-for-inputs`, exit 3: the all-inputs question stays undecided, so a CI
gate that accepts only exit 0 does not accept it (DESIGN.md: exit 0 is a proof for every input).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.launch import LaunchSpec
from volta.exec.limits import Timeout

CLEAN, FINDINGS, UNSUPPORTED, UNKNOWN = "clean", "findings", "unsupported", "unknown"
CLEAN_FOR_INPUTS = "clean-for-inputs"  # concrete mode found nothing on the inputs tried: not a proof
EXIT_CODES = {CLEAN: 0, FINDINGS: 1, UNSUPPORTED: 3, UNKNOWN: 3, CLEAN_FOR_INPUTS: 3}
# `--inputs` default when a data-dependent kernel falls back to concrete runs (the first --trials of them)
DEFAULT_TRIALS = ("random:0", "zeros", "equal", "colliding")
GENERATED = ("zeros", "equal", "colliding")
BENIGN_KINDS = frozenset({F.BENIGN_RACE})


@dataclass
class RaceReport:
    """The outcome of analyzing one kernel launch."""

    kernel: str  # .entry name (or the name asked for when lowering failed)
    role: str  # 'kernel', 'ref' or 'opt'
    ptx: str
    grid: str  # "X", "XxY" or "XxYxZ" as the launch gave it
    block: str
    threads: int  # threads in the whole launch
    verdict: str  # clean | findings | unsupported | unknown | clean-for-inputs
    findings: list = field(default_factory=list)  # volta.exec.findings.Finding
    error: Unsupported | Timeout | None = None  # why the run stopped early: it left the structured class, or
    # --timeout ran out (verdict unknown)
    thread_instructions: int = 0
    # concrete mode: why the all-inputs run stopped (data dependence), and the inputs of each trial
    data_dependence: Unsupported | None = None
    inputs: list = field(default_factory=list)  # one line per trial: which inputs
    trial_errors: list = field(default_factory=list)  # (trial index, Unsupported) of trials that stopped
    allow_benign: bool = False  # benign races are listed but leave the verdict alone
    steps: int = 0  # scheduler steps (one instruction for a set of lanes)
    seconds: float = 0.0
    ctas: str | None = None  # --ctas: which CTAs ran (volta.exec.ctas.describe); None: the whole grid

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    @property
    def counted(self) -> list:
        """Findings that decide the verdict (benign races are left out with `allow_benign`)."""
        return [f for f in self.findings if not (self.allow_benign and f.kind in BENIGN_KINDS)]

    @property
    def kinds(self) -> list:
        """Finding kinds present, in the order of `findings.KINDS`."""
        present = {f.kind for f in self.findings}
        return [k for k in F.KINDS if k in present] + sorted(present - set(F.KINDS))


@dataclass
class RacesResult:
    """Every kernel analyzed by one `volta races` invocation (two for an equivalence-pair manifest)."""

    reports: list
    source: str | None = None  # the manifest, or the PTX file given on the command line

    @property
    def verdict(self) -> str:
        verdicts = {r.verdict for r in self.reports}
        for v in (FINDINGS, UNSUPPORTED, UNKNOWN, CLEAN_FOR_INPUTS):  # a definite defect outranks "could not decide"
            if v in verdicts:
                return v
        return CLEAN

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


def roles(spec: LaunchSpec) -> list:
    """The launches `volta races` analyzes for a spec: the kernel, or ref then opt for a pair."""
    return [r for r in ("kernel", "ref", "opt") if r in spec.launches]


def analyze(spec: LaunchSpec, role: str = "kernel", progress=None, *, inputs=None, trials: int | None = None,
            concrete: bool = True, lockstep_warps: bool = False, allow_benign_races: bool = False) -> RaceReport:
    """Execute `spec.launches[role]` over the whole grid with race checking on.

    `progress`, when given, is called with one line of text before the (possibly long) run.
    Raises `UsageError`/`PtxSyntaxError` for bad input; an `Unsupported` becomes the verdict.
    The structured (all-inputs) run comes first; when it stops for data dependence and `concrete`
    is on, the kernel runs on concrete inputs instead (`inputs`, `trials`: see `trial_modes`).
    `inputs` given forces concrete runs even for a structured kernel (the report then covers those inputs).
    """
    modes = trial_modes(inputs, trials)  # bad --inputs / --trials are usage errors before any run
    launch = spec.launches[role]
    report = RaceReport(
        kernel=launch.kernel or "", role=role, ptx=str(launch.ptx), grid=str(launch.grid),
        block=str(launch.block), threads=launch.grid.count * launch.block.count, verdict=CLEAN,
        allow_benign=allow_benign_races,
    )
    if launch.ctas:
        from volta.exec.ctas import describe

        report.ctas = describe(launch.ctas, launch.grid)
        report.threads = len(launch.ctas) * launch.block.count
    start = time.perf_counter()
    try:
        if spec.sequences.get(role):  # [[role.launch]]: each launch with the memory the earlier ones left
            from volta.exec import pipeline
            return pipeline.races(spec, role, progress, inputs=inputs, trials=trials, concrete=concrete,
                                  lockstep_warps=lockstep_warps, allow_benign_races=allow_benign_races)
        return _analyze(report, spec, role, launch, progress, modes, start, inputs, concrete, lockstep_warps)
    except Timeout as err:   # (a launch sequence's report keeps the findings of its finished launches itself)
        return out_of_time(report, err, start)


def out_of_time(report: RaceReport, err: Timeout, start: float, findings: list = ()) -> RaceReport:
    """--timeout ran out: UNKNOWN with the work done (finished runs counted in `report`, the running one in
    `err`), unless `findings` of finished runs already are defects."""
    report.error = err
    report.thread_instructions += err.thread_instructions
    report.steps += err.steps
    report.seconds = time.perf_counter() - start
    report.findings = _benign_only_where_always(list(findings))
    report.verdict = FINDINGS if report.counted else UNKNOWN
    return report


def _analyze(report, spec, role, launch, progress, modes, start, inputs, concrete, lockstep_warps) -> RaceReport:
    """The structured run over the whole grid, or the concrete trials when it stops for data (see analyze)."""
    from volta.exec.machine import Machine  # the executor is heavy: import it only when analyzing
    from volta.ir.program import lower
    from volta.ptx.parser import parse_file

    module = parse_file(launch.ptx)
    machine = None
    try:
        prog = lower(module, launch.kernel)
        report.kernel = prog.name
        if progress is not None:
            progress(f"{report.kernel}: executing {report.threads} threads "
                     f"(grid {report.grid}, block {report.block})")
        launch = dataclasses.replace(launch, kernel=prog.name)  # so usage errors name the kernel
        if inputs is not None:
            raise _DataDependent()
        machine = Machine(prog, launch, spec.buffers, spec.symbols, structured=True, check_races=True,
                          allow_exit_before_barrier=spec.allow_exit_before_barrier, lockstep_warps=lockstep_warps)
        machine.run()
        extra = _same_warp_store_values(machine, prog, launch, spec) if machine.unproved_stores else []
    except _DataDependent:
        return _concrete(report, spec, role, prog, launch, modes, start, progress, lockstep_warps, None)
    except Unsupported as err:
        if concrete and is_data_dependence(err) and not (machine is not None and machine.findings):
            return _concrete(report, spec, role, prog, launch, modes, start, progress, lockstep_warps, err)
        report.verdict = UNSUPPORTED
        report.error = err
        extra = []
    report.seconds = time.perf_counter() - start
    if machine is not None:
        report.thread_instructions = machine.thread_instructions
        report.steps = machine.steps
        # findings made before the run left the structured class are real defects, so they decide
        report.findings = _benign_only_where_always(
            [_with_address(f, machine) for f in machine.findings + extra])
        if report.counted:
            report.verdict = FINDINGS
        elif report.verdict == FINDINGS or (report.findings and report.error is None):
            report.verdict = CLEAN  # only benign races, and --allow-benign-races
    return report


class _DataDependent(Exception):
    """--inputs given: go straight to concrete runs."""


def is_data_dependence(err: Unsupported) -> bool:
    """The structured run stopped because control flow, an address or a count depends on tensor data."""
    return "depends on tensor data" in err.message


def trial_modes(inputs, trials: int | None) -> list:
    """The input modes of concrete trials. `inputs`: None (the default sequence), a dict of arrays, or
    a comma list of `random[:SEED]`, `zeros`, `equal`, `colliding`, FILE.npz. `random:S` with
    `trials` N stands for seeds S..S+N-1; a list is taken as given (`trials` must then match or be unset)."""
    from volta.errors import UsageError

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
    import numpy as np

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


def _benign_only_where_always(findings: list) -> list:
    """A benign race is one where every racing write stores the same value: on every input tried and at
    every address. Where the same pair of instructions also races with different values, only the RACE stays."""
    racing = {f.key[1] for f in findings if f.kind == F.RACE}
    return [f for f in findings if not (f.kind == F.BENIGN_RACE and f.key[1] in racing)]


def _concrete(report, spec, role, prog, launch, modes, start, progress, lockstep_warps, why):
    """Run the kernel on each trial's concrete inputs; merge findings, noting which inputs show each."""
    report.data_dependence = why
    merged: dict = {}
    try:
        _trials(report, spec, role, prog, modes, progress, lockstep_warps, merged)
    except Timeout as err:
        return out_of_time(report, err, start, merged.values())
    report.seconds = time.perf_counter() - start
    report.findings = _benign_only_where_always(list(merged.values()))
    if report.counted:
        report.verdict = FINDINGS
    elif len(report.trial_errors) == len(modes):
        report.verdict = UNSUPPORTED
        report.error = report.trial_errors[0][1]
    else:
        report.verdict = CLEAN_FOR_INPUTS
        if report.trial_errors:
            report.error = report.trial_errors[0][1]  # some trial stopped: shown, the verdict covers the rest
    return report


def _trials(report, spec, role, prog, modes, progress, lockstep_warps, merged: dict) -> None:
    """Each trial's run, its cost added to `report` and its findings merged into `merged` (by key)."""
    from volta.exec.machine import Machine
    from volta.exec.replay import _concrete_symbols, infer_buffers

    import numpy as np

    for k, mode in enumerate(modes):
        arrays, described = trial_inputs(spec, mode)
        report.inputs.append(described)
        if progress is not None:
            progress(f"{report.kernel}: trial {k + 1}/{len(modes)} on concrete inputs: {described}")
        try:
            run_launch = _concrete_symbols(spec, role, arrays, {})
            buffers = infer_buffers(run_launch, spec.buffers, arrays)
            given = {n: np.ascontiguousarray(a).reshape(-1) for n, a in arrays.items() if n in buffers}
            m = Machine(prog, dataclasses.replace(run_launch, kernel=prog.name), buffers, {}, inputs=given,
                        structured=False, check_races=True, fp="ieee",
                        allow_exit_before_barrier=spec.allow_exit_before_barrier, lockstep_warps=lockstep_warps)
            try:
                m.run()
            except Unsupported as err:
                report.trial_errors.append((k, err))
            report.thread_instructions += m.thread_instructions
            report.steps += m.steps
            for f in m.findings:
                f = _with_address(f, m)
                if f.key not in merged:
                    merged[f.key] = dataclasses.replace(f, details={**f.details, "inputs": []})
                merged[f.key].details["inputs"].append(k)
        except Unsupported as err:
            report.trial_errors.append((k, err))


def _same_warp_store_values(machine, prog, launch, spec) -> list:
    """Threads of one warp stored tensor data to one address in one instruction (Triton's reductions
    do, after a butterfly shuffle): defined only if the values are always equal. Bits of a concrete
    run cannot show that, so run again over the reals and compare expressions; the findings of that
    run that the first did not make are the nondeterministic writes."""
    from volta.exec.machine import Machine

    try:
        again = Machine(prog, launch, spec.buffers, spec.symbols, structured=True, check_races=True,
                        symbolic=True, lane_structured=True, functions=spec.functions,
                        allow_exit_before_barrier=spec.allow_exit_before_barrier)
        again.run()
    except Unsupported as err:
        op = machine.unproved_stores[0]
        raise Unsupported(f"threads of one warp store tensor data to the same address in one instruction "
                          f"(`{op.d.inst.opcode}`); showing the values equal needs the real-number model, "
                          f"which stopped: {err.message}", op.span) from None
    seen = {f.key for f in machine.findings}
    return [f for f in again.findings if f.key not in seen]


def analyze_all(spec: LaunchSpec, progress=None, **options) -> RacesResult:
    return RacesResult([analyze(spec, role, progress, **options) for role in roles(spec)], spec.source)


def _with_address(finding: F.Finding, machine) -> F.Finding:
    """Fill in the state-space address of a finding that names a region and offset but no address."""
    if finding.address is not None or finding.buffer is None or finding.offset is None:
        return finding
    region = machine.memory.by_name.get(finding.buffer)
    if region is None:
        return finding
    return dataclasses.replace(finding, address=region.base + finding.offset)
