"""`volta check --fp ieee|ampere|hopper|…`: bit-level comparison and where the bits first part.

Presentation only: `volta.equiv.bits.BitsReport` and `volta.equiv.diverge.Divergence` in, text or
JSON out. Exit codes: 0 bit-identical, 1 bits differ (or a kernel has findings), 3 unsupported.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from volta.report.text import finding_text


@dataclass
class BitsResult:
    report: object  # volta.equiv.bits.BitsReport
    divergence: object = None  # volta.equiv.diverge.Divergence, for the witness
    divergence_error: str | None = None

    @property
    def exit_code(self) -> int:
        r = self.report
        if r.unsupported is not None:
            return 3
        if any(r.findings.values()) or not r.identical:
            return 1
        return 0


def format_text(result: BitsResult) -> str:
    r = result.report
    lines = []
    if r.unsupported is not None:
        role, err = r.unsupported
        lines.append(f"UNSUPPORTED ({role}): {err}")
        return "\n".join(lines)
    head = "BIT-IDENTICAL" if r.identical else "BITS DIFFER"
    lines.append(f"{head} under --fp {r.fp}: {r.differing:,} of {r.compared:,} output elements differ "
                 f"({100 * r.fraction:.2f}%), largest difference {r.max_ulps:g} ulp, relative {r.max_relative:.3g}")
    for name, g in r.generators.items():
        lines.append(f"  {name:<13} {g.differing:>8,}/{g.elements:<8,} differ  max {g.max_ulps:g} ulp, "
                     f"relative {g.max_relative:.3g}")
    w = r.witness
    if w is not None:
        lines.append(f"witness: {w.buffer}[{w.index}] on `{w.generator}` inputs (trial {w.trial}, seed {w.seed}): "
                     f"ref {w.ref_value!r} ({w.ref_bits:#x}), opt {w.opt_value!r} ({w.opt_bits:#x})")
    if result.divergence is not None:
        lines.append(f"where the bits part: {result.divergence.conclusion}")
    elif result.divergence_error:
        lines.append(f"where the bits part: not diagnosed ({result.divergence_error})")
    for role, findings in r.findings.items():
        for f in findings:
            lines.append(f"{role}: {finding_text(f)}")
    return "\n".join(lines)


def format_json(result: BitsResult) -> str:
    r = result.report
    w = r.witness
    data = {
        "mode": "bits", "fp": r.fp, "verdict": r.verdict, "compared": r.compared, "differing": r.differing,
        "fraction": r.fraction, "max_ulps": r.max_ulps, "max_relative": r.max_relative,
        "generators": {n: {"elements": g.elements, "differing": g.differing, "max_ulps": g.max_ulps,
                           "max_relative": g.max_relative} for n, g in r.generators.items()},
        "witness": None if w is None else {
            "generator": w.generator, "trial": w.trial, "seed": w.seed, "buffer": w.buffer, "index": w.index,
            "ref_bits": w.ref_bits, "opt_bits": w.opt_bits, "ulps": w.ulps, "relative": w.relative},
        "divergence": None if result.divergence is None else result.divergence.conclusion,
        "findings": {role: [f.to_json() for f in fs] for role, fs in r.findings.items()},
        "unsupported": None if r.unsupported is None else str(r.unsupported[1]),
    }
    return json.dumps(data, indent=2, default=str)


FORMATS = {"text": format_text, "json": format_json}
