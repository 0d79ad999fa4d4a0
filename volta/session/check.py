"""The result of `volta check`, whichever way it decided: over the reals, by sampled bits, or by a bit proof.

One type for the command: the CLI renders it and `volta.check` returns it. `decision` is the decider's own
report (`equiv.check.CheckReport` over the reals, `equiv.bits.BitsReport` sampled, `equiv.bitproof.BitProof`
proved), `mode` says which; the rest is what only the front door knows (the launch spec, the argv that
re-creates the check, where a counterexample was saved) and what a caller reads (verdict, findings, timings).
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from volta.launch.spec import LaunchSpec
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
