"""`volta check` as one driver: its modes as one value (`CheckOptions`), the decision (`decide`), and its result.

The CLI and `volta.check` each turn their arguments into a `LaunchSpec` and a `CheckOptions`, prepare the spec
(nvcc, preflight), and call `decide`, which runs the decider the mode asks for (over the reals, sampled bits, or
a bit proof) and returns the one result type of the command, `CheckResult`: the CLI renders it and `volta.check`
returns it. `decision` is the decider's own report (`equiv.check.CheckReport`, `equiv.bits.BitsReport`,
`equiv.bitproof.BitProof`), `mode` says which; the rest is what only the front door knows (the argv that
re-creates the check, where a counterexample was saved) and what a caller reads (verdict, findings, timings).
"""
from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field

from volta.errors import UsageError
from volta.exec.limits import Timeout, disarm
from volta.launch.spec import LaunchSpec
from volta.numerics.mma_select import MmaSetting
from volta.session.result import Reported

MODES = ("real", "bits", "proof")
ROLES = ("kernel", "ref", "opt")


@dataclass
class CheckResult(Reported):
    """`volta.check`: verdict equivalent | not-equivalent | findings | unsupported | unknown (real mode);
    no-difference-found | bits-differ | unsupported (a bit-exact `fp`, sampled); bit-identical | bits-differ |
    unknown | findings | unsupported (a bit-exact `fp` with `prove=True`). `report(fmt)`: text, json, sarif or
    junit over the reals; text or json for bits."""

    decision: object  # CheckReport | BitsReport | BitProof, as `mode` says
    spec: LaunchSpec | None = None
    command: list = field(default_factory=list)  # argv of this check, without --replay/--save-counterexample
    cex_file: str | None = None  # where the counterexample was saved
    verbose: bool = False  # -v: every note at each place (else one line per distinct note)
    mode: str = "real"  # real | bits | proof
    timings: dict = field(default_factory=dict)  # seconds: total, and execute/decide where measured
    divergence: object = None  # bits: volta.equiv.diverge.Divergence, where the witness's bits first part
    divergence_error: str | None = None  # bits: why that diagnosis failed

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"CheckResult mode {self.mode!r}: one of {', '.join(MODES)}")

    @property
    def verdict(self) -> str:
        return self.decision.verdict

    @property
    def exit_code(self) -> int:
        if self.mode != "bits":
            return self.decision.exit_code
        r = self.decision
        if r.unsupported is not None:
            return 3
        if any(r.findings.values()) or not (r.identical or r.within_tolerance):
            return 1
        return 0

    @property
    def findings_by_role(self) -> dict:
        """'ref' | 'opt' -> [Finding]."""
        return dict(self.decision.findings)

    @property
    def findings(self) -> list:
        return [f for role in ROLES for f in self.decision.findings.get(role, ())]

    @property
    def counterexample(self):
        """volta.equiv.check.Counterexample (real mode, not-equivalent), else None."""
        return self.decision.counterexample if self.mode == "real" else None

    @property
    def parting(self):
        """volta.equiv.parting.Parting (real mode, not-equivalent): per kernel the first instruction on the
        differing element's path whose exact value the other kernel's path never has (.ref/.opt: opcode,
        ptx_file, ptx_line, cuda_file, cuda_line, value); None when it could not be traced."""
        return getattr(self.counterexample, "parting", None)

    @property
    def raw(self):
        """The decider's own report (`decision`)."""
        return self.decision

    @property
    def replay_command(self) -> str | None:
        if self.cex_file is None:
            return None
        return shlex.join(["volta", "check", *self.command, "--replay", self.cex_file])


@dataclass(frozen=True)
class CheckOptions:
    """The modes of one check, one value from the front door (`volta check`'s options, `volta.check`'s keywords)
    to the deciders."""

    fp: str = "real"  # real: equivalence over the reals; ieee or an architecture: compare bits
    prove: bool = False  # bits: prove bit identity for every input instead of sampling
    batch_invariant: bool = False  # with prove: ref and opt are one kernel at two launch sizes
    trials: int | None = None  # bits: input sets per generator (4); reals: assignments of integer inputs
    seed: int = 0  # bits: the random inputs' seed
    tolerance: object = None  # bits, sampled: an equiv.bits.Tolerance (elements this close agree); None: exact
    tensor: MmaSetting | None = None  # the toolkit tensor-core rows depend on (--ptxas)
    timeout_ms: int = 10_000  # reals: the solver's limit per output element
    emit_smt: str | None = None  # reals: write each solver obligation into this directory
    inputs: str | None = None  # reals: the assignments of integer inputs to check (--inputs)
    save_counterexample: str | None = None  # reals: where to save a counterexample's inputs


def decide(spec: LaunchSpec, options: CheckOptions, progress=None, command=(), verbose: bool = False,
           report=None) -> CheckResult:
    """Decide ref against opt of a prepared `spec` (PTX compiled, preflight done) as `options` say. `report`: the
    decision over the reals already made (a CheckReport), when --timeout ran out while preparing (UNKNOWN)."""
    # start-up: reports import this module (for CheckResult) without deciding anything, and each mode loads its
    # own decider (a check over the reals never imports the bit-exact ones)
    from volta.equiv.check import check, timed_out  # start-up
    from volta.equiv.witness import save_inputs  # start-up

    start = time.perf_counter()
    o = options
    if o.fp != "real" and o.prove:
        from volta.equiv.bitproof import prove_bits  # start-up

        proof = prove_bits(spec, fp=o.fp, trials=4 if o.trials is None else o.trials, seed=o.seed,
                           batch_invariant=o.batch_invariant, tensor=o.tensor)
        return CheckResult(proof, spec, list(command), mode="proof",
                           timings={"total": time.perf_counter() - start, "execute": proof.seconds})
    if o.fp != "real":
        from volta.equiv.diverge import check_bits  # start-up

        exact = {} if o.tolerance is None else {"tolerance": o.tolerance}
        bits, divergence, why = check_bits(spec, fp=o.fp, trials=4 if o.trials is None else o.trials, seed=o.seed,
                                           tensor=o.tensor, **exact)
        return CheckResult(bits, spec, list(command), mode="bits", divergence=divergence, divergence_error=why,
                           timings={"total": time.perf_counter() - start, "execute": bits.seconds})
    try:
        report = report or check(spec, timeout_ms=o.timeout_ms, emit_smt=o.emit_smt, progress=progress,
                                 inputs=o.inputs, trials=o.trials)
    except Timeout as err:   # outside what check() reports itself (reading a kernel for --ctas …)
        report = timed_out(spec, err, "preparing the check")
    disarm()  # decided (or out of time): saving and printing the verdict is not interrupted
    cex_file = None
    if report.counterexample is not None and o.save_counterexample is not None:
        cex_file = str(o.save_counterexample)  # written only when asked: never into the current directory unasked
        try:
            save_inputs(report.counterexample, cex_file, spec)
        except OSError as err:
            raise UsageError(f"cannot write the counterexample to {cex_file}: {err.strerror or err}") from None
    timings = {"total": time.perf_counter() - start}
    for key in ("execute_seconds", "decide_seconds"):
        if key in report.stats:
            timings[key.removesuffix("_seconds")] = report.stats[key]
    return CheckResult(report, spec, list(command), cex_file, verbose, timings=timings)
