"""`volta races` as a library call: run one launch of a kernel and collect its findings.

The executor (`machine.py`) does the work: every thread of every CTA, shadow memory for races
(shared memory within a CTA, global memory across the grid), barrier and warp-collective
deadlocks, bounds and uninitialized reads. This module only turns one run into a value — a
`RaceReport` with a verdict, the findings, the `Unsupported` error when the kernel left the
structured class, and the cost of the run — so that reports and the CLI never touch the machine.

Verdicts (DESIGN.md): `clean` (exit 0), `findings` (exit 1), `unsupported` (exit 3). Findings made
before a run left the structured class are concrete defects, so they still make the verdict
`findings` (the report keeps the error too, saying the run stopped early). Usage and parse errors
are not verdicts: they propagate as `VoltaError`s (exit 2).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from volta.errors import Unsupported
from volta.exec import findings as F
from volta.exec.launch import LaunchSpec

CLEAN, FINDINGS, UNSUPPORTED = "clean", "findings", "unsupported"
EXIT_CODES = {CLEAN: 0, FINDINGS: 1, UNSUPPORTED: 3}


@dataclass
class RaceReport:
    """The outcome of analyzing one kernel launch."""

    kernel: str  # .entry name (or the name asked for when lowering failed)
    role: str  # 'kernel', 'ref' or 'opt'
    ptx: str
    grid: str  # "X", "XxY" or "XxYxZ" as the launch gave it
    block: str
    threads: int  # threads in the whole launch
    verdict: str  # clean | findings | unsupported
    findings: list = field(default_factory=list)  # volta.exec.findings.Finding
    error: Unsupported | None = None  # set when the run left the structured class (then it stopped early)
    thread_instructions: int = 0
    steps: int = 0  # scheduler steps (one instruction for a set of lanes)
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

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
        for v in (FINDINGS, UNSUPPORTED):  # a definite defect outranks "could not decide"
            if v in verdicts:
                return v
        return CLEAN

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


def roles(spec: LaunchSpec) -> list:
    """The launches `volta races` analyzes for a spec: the kernel, or ref then opt for a pair."""
    return [r for r in ("kernel", "ref", "opt") if r in spec.launches]


def analyze(spec: LaunchSpec, role: str = "kernel", progress=None) -> RaceReport:
    """Execute `spec.launches[role]` over the whole grid with race checking on.

    `progress`, when given, is called with one line of text before the (possibly long) run.
    Raises `UsageError`/`PtxSyntaxError` for bad input; an `Unsupported` becomes the verdict.
    """
    from volta.exec.machine import Machine  # the executor is heavy: import it only when analyzing
    from volta.ir.program import lower
    from volta.ptx.parser import parse_file

    launch = spec.launches[role]
    module = parse_file(launch.ptx)
    report = RaceReport(
        kernel=launch.kernel or "", role=role, ptx=str(launch.ptx), grid=str(launch.grid),
        block=str(launch.block), threads=launch.grid.count * launch.block.count, verdict=CLEAN,
    )
    start = time.perf_counter()
    machine = None
    try:
        prog = lower(module, launch.kernel)
        report.kernel = prog.name
        if progress is not None:
            progress(f"{report.kernel}: executing {report.threads} threads "
                     f"(grid {report.grid}, block {report.block})")
        launch = dataclasses.replace(launch, kernel=prog.name)  # so usage errors name the kernel
        machine = Machine(prog, launch, spec.buffers, spec.symbols, structured=True, check_races=True,
                          allow_exit_before_barrier=spec.allow_exit_before_barrier)
        machine.run()
        extra = _same_warp_store_values(machine, prog, launch, spec) if machine.unproved_stores else []
    except Unsupported as err:
        report.verdict = UNSUPPORTED
        report.error = err
        extra = []
    report.seconds = time.perf_counter() - start
    if machine is not None:
        report.thread_instructions = machine.thread_instructions
        report.steps = machine.steps
        # findings made before the run left the structured class are real defects, so they decide
        report.findings = [_with_address(f, machine) for f in machine.findings + extra]
        if report.findings:
            report.verdict = FINDINGS
    return report


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


def analyze_all(spec: LaunchSpec, progress=None) -> RacesResult:
    return RacesResult([analyze(spec, role, progress) for role in roles(spec)], spec.source)


def _with_address(finding: F.Finding, machine) -> F.Finding:
    """Fill in the state-space address of a finding that names a region and offset but no address."""
    if finding.address is not None or finding.buffer is None or finding.offset is None:
        return finding
    region = machine.memory.by_name.get(finding.buffer)
    if region is None:
        return finding
    return dataclasses.replace(finding, address=region.base + finding.offset)
