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
gate that accepts only exit 0 does not accept it (DESIGN.md: exit 0 is a proof for every input). The
concrete runs themselves (input sets, schedules of contended atomics, bodiless functions, printf) are
volta/exec/drivers/trials.py.

How it runs and what counts toward the verdict is one `RacesOptions` value, which the CLI and the API each build:
benign races (`--allow-benign-races`) and ordering races (`--allow-ordering-races`) can be listed without deciding
it.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.drivers import feasible, pipeline, replica_bits, trials
from volta.exec.drivers.pipeline import step_name
from volta.exec.drivers.trials import with_address
from volta.exec.findings import is_data_dependence
from volta.exec.limits import Timeout
from volta.exec.races import racy_reads
from volta.exec.state import schedules
from volta.ir.program import lower
from volta.launch.ctas import describe
from volta.launch.inputs import DEFAULT_TRIALS, GENERATED, trial_inputs, trial_modes  # noqa: F401
from volta.launch.spec import LaunchSpec, sequence
from volta.ptx.parser import parse_file
from volta.session.jobs import start_job
from volta.session.result import Reported

CLEAN, FINDINGS, UNSUPPORTED, UNKNOWN = "clean", "findings", "unsupported", "unknown"
CLEAN_FOR_INPUTS = "clean-for-inputs"  # concrete mode found nothing on the inputs tried: not a proof
EXIT_CODES = {CLEAN: 0, FINDINGS: 1, UNSUPPORTED: 3, UNKNOWN: 3, CLEAN_FOR_INPUTS: 3}
BENIGN_KINDS = F.BENIGN


@dataclass(frozen=True)
class RacesOptions:
    """How `volta races` runs and what decides its verdict: the CLI's options and the API's keywords, as one value
    that each front door builds and `analyze` takes."""

    inputs: str | None = None  # concrete inputs to run on even when the structured run needs none (`--inputs`)
    trials: int | None = None  # how many concrete input sets when data steers the kernel (`--trials`)
    concrete: bool = True  # run on concrete inputs when the structured run stops for data (not --structured-only)
    lockstep_warps: bool = False  # pre-Volta warps: a warp's threads execute each instruction together
    allow_benign_races: bool = False  # benign races are listed but leave the verdict alone
    allow_ordering_races: bool = False  # so are ordering races (strong accesses that no fence orders)
    schedules: int = schedules.DEFAULT_BUDGET  # schedules of contended atomics per concrete input set
    schedule_seed: int = 0  # of the PCT-style random schedules, for launches too large for every order
    show_printf: bool = False  # keep the text printf prints (concrete runs)

    def counts(self, finding) -> bool:
        """Does this finding decide the verdict?"""
        if finding.kind in BENIGN_KINDS:
            return not self.allow_benign_races
        if finding.kind == F.ORDERING_RACE:
            return not self.allow_ordering_races
        return True


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
    options: RacesOptions = field(default_factory=RacesOptions)  # what decides the verdict (allowed kinds are
    # only listed)
    steps: int = 0  # scheduler steps (one instruction for a set of lanes)
    schedules: list = field(default_factory=list)  # concrete mode: how many schedules each input set ran
    printed: list = field(default_factory=list)  # concrete mode with show_printf: (input set, [(ThreadId, text)])
    seconds: float = 0.0
    ctas: str | None = None  # --ctas: which CTAs ran (volta.launch.ctas.describe); None: the whole grid

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    @property
    def allow_benign(self) -> bool:
        return self.options.allow_benign_races

    @property
    def counted(self) -> list:
        """Findings that decide the verdict (kinds the policy allows are left out)."""
        return [f for f in self.findings if self.options.counts(f)]

    @property
    def kinds(self) -> list:
        """Finding kinds present, in the order of `findings.KINDS`."""
        present = {f.kind for f in self.findings}
        return [k for k in F.KINDS if k in present] + sorted(present - set(F.KINDS))


@dataclass
class RacesResult(Reported):
    """Every kernel analyzed by one `volta races` invocation (two for an equivalence-pair manifest): what the
    CLI renders and `volta.races` returns. `report(fmt, max_findings=20)`: text, json, sarif or junit."""

    reports: list  # one RaceReport per kernel, in order
    source: str | None = None  # the manifest, or the PTX file given on the command line

    @property
    def kernels(self) -> list:
        """The RaceReport of each kernel (the API's name for `reports`)."""
        return self.reports

    @property
    def findings(self) -> list:
        """Every kernel's findings, in kernel order."""
        return [f for r in self.reports for f in r.findings]

    @property
    def timings(self) -> dict:
        """Seconds per kernel role, and their total."""
        return {**{r.role: r.seconds for r in self.reports}, "total": sum(r.seconds for r in self.reports)}

    @property
    def raw(self) -> RacesResult:
        """This result itself (the API once wrapped it; `raw` kept for callers that read it)."""
        return self

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


def analyze(spec: LaunchSpec, role: str = "kernel", progress=None,
            options: RacesOptions = RacesOptions()) -> RaceReport:
    """Execute `spec.launches[role]` over the whole grid with race checking on.

    `progress`, when given, is called with one line of text before the (possibly long) run.
    Raises `UsageError`/`PtxSyntaxError` for bad input; an `Unsupported` becomes the verdict.
    The structured (all-inputs) run comes first; when it stops for data dependence and `options.concrete`
    is on, the kernel runs on concrete inputs instead (`options.inputs`, `.trials`: see `trial_modes`), each under
    up to `options.schedules` schedules of its contended atomics (volta/exec/state/schedules.py).
    `options.inputs` given forces concrete runs even for a structured kernel (the report then covers those inputs).
    """
    modes = trial_modes(options.inputs, options.trials)  # bad --inputs / --trials are usage errors before any run
    start_job()
    launch = spec.launches[role]
    report = RaceReport(
        kernel=launch.kernel or "", role=role, ptx=str(launch.ptx), grid=str(launch.grid),
        block=str(launch.block), threads=launch.grid.count * launch.block.count, verdict=CLEAN, options=options,
    )
    if launch.ctas:
        report.ctas = describe(launch.ctas, launch.grid)
        report.threads = len(launch.ctas) * launch.block.count
    start = time.perf_counter()
    try:
        if spec.sequences.get(role):  # [[role.launch]]: each launch with the memory the earlier ones left
            return sequence_races(spec, role, progress, options)
        return _analyze(report, spec, role, launch, progress, modes, start)
    except Timeout as err:   # (a launch sequence's report keeps the findings of its finished launches itself)
        return out_of_time(report, err, start)


def out_of_time(report: RaceReport, err: Timeout, start: float, findings: list = ()) -> RaceReport:
    """--timeout ran out: UNKNOWN with the work done (finished runs counted in `report`, the running one in
    `err`), unless `findings` of finished runs already are defects."""
    report.error = err
    report.thread_instructions += err.thread_instructions
    report.steps += err.steps
    report.seconds = time.perf_counter() - start
    report.findings = F.benign_only_where_always(list(findings))
    report.verdict = FINDINGS if report.counted else UNKNOWN
    return report


def _analyze(report, spec, role, launch, progress, modes, start) -> RaceReport:
    """The structured run over the whole grid, or the concrete trials when it stops for data (see analyze)."""
    options = report.options
    from volta.exec.machine import Machine  # start-up: reports import this module without running anything
    module = parse_file(launch.ptx)
    machine = None
    try:
        prog = lower(module, launch.kernel)
        report.kernel = prog.name
        launch = dataclasses.replace(launch, kernel=prog.name)  # so usage errors name the kernel
        if options.inputs is not None:
            raise _DataDependent()
        machine = Machine(prog, launch, spec.buffers, spec.symbols, structured=True, check_races=True,
                          allow_exit_before_barrier=spec.allow_exit_before_barrier,
                          lockstep_warps=options.lockstep_warps)
        if progress is not None:   # said once the launch is admitted (its memory estimate within --max-memory)
            progress(f"{report.kernel}: executing {report.threads:,} threads "
                     f"(grid {report.grid}, block {report.block})")
        machine.run()
        extra = _over_the_reals(machine, prog, launch, spec, role) \
            if machine.unproved_stores or machine.reals_rerun else None
    except _DataDependent:
        return concrete_report(report, spec, role, [prog], [launch], modes, start, progress, None)
    except Unsupported as err:
        if options.concrete and is_data_dependence(err) and not (machine is not None and machine.findings):
            return concrete_report(report, spec, role, [prog], [launch], modes, start, progress, err)
        report.verdict = UNSUPPORTED
        report.error = err
        extra = None
    report.seconds = time.perf_counter() - start
    if machine is not None:
        report.thread_instructions = machine.thread_instructions
        report.steps = machine.steps
        # findings made before the run left the structured class are real defects, so they decide
        first = machine.findings if extra is None else [f for f in machine.findings
                                                         if not f.details.get("reals-undecided")]
        found = [with_address(f, machine) for f in first + (extra or [])]
        if report.error is None:   # a racing read whose value never reaches an output (volta/exec/races/racy_reads.py)
            found = racy_reads.settle(machine, found, racy_reads.rerun_launch(
                Machine, prog, launch, spec.buffers, spec.symbols, spec.functions, spec.allow_exit_before_barrier))
        if report.error is None:   # accesses on both sides of a branch on data: only those that can meet
            found = feasible.prune(found, prog, launch, spec)
        report.findings = F.benign_only_where_always(found)
        if report.counted:
            report.verdict = FINDINGS
        elif report.verdict == FINDINGS or (report.findings and report.error is None):
            report.verdict = CLEAN  # only findings the policy allows
    return report


class _DataDependent(Exception):
    """--inputs given: go straight to concrete runs."""


def concrete_report(report, spec, role, progs, launches, modes, start, progress, why) -> RaceReport:
    """The report of concrete mode (volta/exec/drivers/trials.py): findings for the inputs and schedules tried, or
    `clean-for-inputs` (exit 3) when none showed one; UNSUPPORTED when every input set stopped."""
    p = report.options
    report.data_dependence = why
    try:
        out = trials.run(spec, role, progs, launches, modes, lockstep_warps=p.lockstep_warps, schedules=p.schedules,
                         schedule_seed=p.schedule_seed, show_printf=p.show_printf, progress=progress,
                         name=report.kernel)
    except Timeout as err:
        return out_of_time(report, err, start)
    report.inputs, report.trial_errors, report.findings = out.inputs, out.errors, out.findings
    report.schedules = [e.text() for e in out.explored]
    report.printed = out.printed
    report.thread_instructions += out.thread_instructions
    report.steps += out.steps
    report.seconds = time.perf_counter() - start
    if report.counted:
        report.verdict = FINDINGS
    elif len({k for k, _ in report.trial_errors}) == len(modes):
        report.verdict = UNSUPPORTED
        report.error = report.trial_errors[0][1]
    else:
        report.verdict = CLEAN_FOR_INPUTS
        if report.trial_errors:
            report.error = report.trial_errors[0][1]  # some trial stopped: shown, the verdict covers the rest
    return report


def _over_the_reals(machine, prog, launch, spec, role) -> list | None:
    """Stores of tensor data whose values the structured run could not compare: threads of one warp storing
    to one address in one instruction (Triton's reductions do, after a butterfly shuffle), and racing stores of
    different warps (Triton's replicated layouts, a block's result stored by every thread). Bits of a run
    that knows nothing of the data cannot show them equal, so run again over the reals and compare expressions
    (volta/exec/races/replicas.py). Returns the findings of that run that the first did not make (nondeterministic
    writes, races and benign races on tensor data, which replace the first run's undecided races), with the
    bits of the stores found equal over the reals compared on concrete inputs (volta/exec/drivers/replica_bits.py);
    None when the re-run stopped and only races were undecided (they stay races)."""
    from volta.exec.machine import Machine  # start-up: reports import this module without running anything

    try:
        again = Machine(prog, launch, spec.buffers, spec.symbols, structured=True, check_races=True,
                        symbolic=True, lane_structured=True, functions=spec.functions,
                        allow_exit_before_barrier=spec.allow_exit_before_barrier)
        again.run()
    except Unsupported as err:
        if not machine.unproved_stores:
            return None
        op = machine.unproved_stores[0]
        raise Unsupported(f"threads of one warp store tensor data to the same address in one instruction "
                          f"(`{op.d.inst.opcode}`); showing the values equal needs the real-number model, "
                          f"which stopped: {err.message}", op.span) from None
    seen = {f.key for f in machine.findings if not f.details.get("reals-undecided")}
    found = [f for f in again.findings if f.key not in seen]
    return replica_bits.merge(found, replica_bits.bits_findings(spec, role, [prog], [launch], [again]))


def sequence_races(spec, role: str, progress=None, options: RacesOptions = RacesOptions()):
    """`volta races` on a launch sequence: each launch over its whole grid, structured (every input), with the
    memory the earlier launches left; one report for the sequence (kernels `k1 → k2`, every launch's findings,
    each naming its own PTX line). When a launch leaves the structured class for data dependence (and nothing
    was found before), the whole sequence runs again on each trial's concrete inputs (`--inputs`, `--trials`,
    as for one kernel): findings for those inputs, or NO FINDING ON THESE INPUTS."""
    seq = sequence(spec, role)
    modes = trial_modes(options.inputs, options.trials)
    report = RaceReport(
        kernel=" → ".join(step_name(x) for x in seq), role=role,
        ptx=" → ".join(dict.fromkeys(str(x.ptx) for x in seq if x.host is None)),   # (not a host step's own PTX)
        grid=" → ".join(str(x.grid) for x in seq),
        block=" → ".join(str(x.block) for x in seq), threads=sum(x.grid.count * x.block.count for x in seq),
        verdict=CLEAN, options=options)
    start = time.perf_counter()
    found, carried, names = [], None, []
    progs = [lower(parse_file(x.ptx), x.kernel) for x in seq]
    if options.inputs is not None:
        return concrete_report(report, spec, role, progs, seq, modes, start, progress, None)
    try:
        for launch in seq:
            prog = lower(parse_file(launch.ptx), launch.kernel)
            names.append(step_name(launch, prog.name))
            launch = dataclasses.replace(launch, kernel=prog.name)
            m = pipeline.machine(carried, prog, launch, spec.buffers, spec.symbols, structured=True,
                                 check_races=True, allow_exit_before_barrier=spec.allow_exit_before_barrier,
                                 lockstep_warps=options.lockstep_warps)
            if progress is not None:   # once admitted (within --max-memory)
                progress(f"{prog.name}: executing {launch.grid.count * launch.block.count:,} threads "
                         f"(grid {launch.grid}, block {launch.block}), launch {len(names)} of {len(seq)}")
            try:
                m.run()
                if m.unproved_stores:
                    op = m.unproved_stores[0]
                    raise Unsupported(f"threads of one warp store tensor data to the same address in one "
                                      f"instruction (`{op.d.inst.opcode}`) in a launch sequence; their values are "
                                      f"not compared here", op.span)
            except Unsupported as err:
                if options.concrete and is_data_dependence(err) and not found and not m.findings:
                    return concrete_report(report, spec, role, progs, seq, modes, start, progress, err)
                report.verdict, report.error = UNSUPPORTED, err
                found += [with_address(f, m) for f in m.findings]
                report.thread_instructions += m.thread_instructions
                break
            found += [with_address(f, m) for f in m.findings]
            report.thread_instructions += m.thread_instructions
            report.steps += m.steps
            carried = m.buffer_regions
    except Timeout as err:
        return out_of_time(report, err, start, found)
    report.kernel = " → ".join(names + [step_name(x) for x in seq[len(names):]])
    report.seconds = time.perf_counter() - start
    report.findings = F.benign_only_where_always(found)
    if report.counted:
        report.verdict = FINDINGS   # findings made before a launch left the structured class are real defects
    elif report.verdict != UNSUPPORTED:
        report.verdict = CLEAN
    return report
