"""`volta check --fp ieee|ampere|hopper|…`: bit-level comparison and where the bits first part.

Presentation only: `volta.equiv.bits.BitsReport` and `volta.equiv.diverge.Divergence` in, text or
JSON out. Exit codes: 0 no difference found on the inputs tried (or, with --prove, BIT-IDENTICAL: proved),
1 bits differ (or a kernel has findings), 3 unsupported (or, with --prove, unknown).
"""
from __future__ import annotations

import json

from volta.report.text import finding_text
from volta.session.check import CheckResult


def format_text(result: CheckResult) -> str:
    r = result.decision
    lines = []
    if r.unsupported is not None:
        role, err = r.unsupported
        lines.append(f"UNSUPPORTED ({role}): {err}")
        return "\n".join(lines)
    tol = getattr(r, "tolerance", None)
    tol_text = f" (tolerance: {tol.text()})" if tol is not None and tol.active else ""
    if r.identical:
        lines.append(f"NO BIT DIFFERENCE FOUND under --fp {r.fp}{tol_text}: {r.compared:,} output elements agree on "
                     f"every input tried (sampled, not a proof: --prove proves bit identity for every input)")
    elif r.within_tolerance:
        lines.append(f"NO DIFFERENCE BEYOND TOLERANCE FOUND under --fp {r.fp}{tol_text}: {r.differing:,} of "
                     f"{r.compared:,} output elements differ in their bits, every one within tolerance; largest "
                     f"difference {_ulps(r.max_ulps)}, relative {r.max_relative:.3g} (sampled, not a proof)")
    else:
        beyond = (f", {r.beyond:,} beyond tolerance" if tol is not None and tol.numeric else "")
        lines.append(f"BITS DIFFER under --fp {r.fp}{tol_text}: {r.differing:,} of {r.compared:,} output elements "
                     f"differ ({100 * r.fraction:.2f}%){beyond}, largest difference {_ulps(r.max_ulps)}, "
                     f"relative {r.max_relative:.3g}")
    zeros = getattr(r, "signed_zero_only", 0)
    if zeros and tol is not None and tol.signed_zero == "equal":
        lines.append(f"  {zeros:,} element(s) differ only in the sign of zero (+0 vs -0): counted equal "
                     f"(--signed-zero equal)")
    elif zeros and not r.identical:
        every = "all of them" if zeros == r.differing else f"{zeros:,} of them"
        lines.append(f"  {every} differ only in the sign of zero (+0 vs -0); --signed-zero equal counts those equal")
    for name, g in r.generators.items():
        lines.append(f"  {name:<13} {g.differing:>8,}/{g.elements:<8,} differ  max {_ulps(g.max_ulps)}, "
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


def format_json(result: CheckResult) -> str:
    r = result.decision
    w = r.witness
    data = {
        "mode": "bits", "fp": r.fp, "verdict": r.verdict, "compared": r.compared, "differing": r.differing,
        "fraction": r.fraction, "max_ulps": r.max_ulps, "max_relative": r.max_relative,
        "tolerance": _tolerance_json(getattr(r, "tolerance", None)),
        "beyond_tolerance": getattr(r, "beyond", r.differing),
        "signed_zero_only": getattr(r, "signed_zero_only", 0),
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


def _ulps(n: float) -> str:
    return f"{n:g} ulp" if n != 1 else "1 ulp"


def _tolerance_json(tol):
    if tol is None:
        return None
    return {"ulp": tol.ulp, "rtol": tol.rtol, "atol": tol.atol, "signed_zero": tol.signed_zero}


FORMATS = {"text": format_text, "json": format_json}


def _proof_text(result: CheckResult) -> str:
    p = result.decision
    fp = p.sampled.fp if p.sampled is not None else "ieee"
    pair = f"{p.kernels.get('ref', 'ref')} vs {p.kernels.get('opt', 'opt')}"
    if p.verdict == "unsupported":
        role, err = p.unsupported
        return f"UNSUPPORTED ({role}): {err}"
    if p.verdict == "findings":
        lines = [f"FINDINGS: {pair}: a kernel has findings, so its bits are not one function of its inputs"]
        lines += [f"{role}: {finding_text(f)}" for role, fs in p.findings.items() for f in fs]
        return "\n".join(lines)
    if p.verdict == "bit-identical":
        return (f"BIT-IDENTICAL: {pair}: every output element has the same bits for every input (proved: all "
                f"{p.compared:,} elements are the same function of the input bits)")
    shown = ", ".join(f"{b}[{i}]" for b, i in p.unproved[:5]) + (", …" if len(p.unproved) > 5 else "")
    lines = []
    if p.verdict == "bits-differ":
        lines.append(f"BITS DIFFER: {pair}: {p.compared - p.proved:,} of {p.compared:,} elements are not proved "
                     f"identical, and an input shows a difference")
        if p.sampled is not None:
            lines += format_text(_sampled(p)).splitlines()[1:]
        else:
            w = p.witness
            lines.append(f"witness: {w['buffer']}[{w['index']}] on `{w['generator']}` inputs (trial {w['trial']}, "
                         f"seed {w['seed']}): ref {w['ref_bits']:#x}, opt {w['opt_bits']:#x}")
    else:
        lines.append(f"UNKNOWN: {pair}: {len(p.unproved):,} of {p.compared:,} elements are not proved identical "
                     f"({shown}), and no input tried shows a difference; nothing is claimed about them")
    lines.append(f"  proved identical: {p.proved:,} of {p.compared:,} elements")
    return "\n".join(lines)


def _proof_json(result: CheckResult) -> str:
    p = result.decision
    data = {"mode": "bits-proof", "verdict": p.verdict, "compared": p.compared, "proved": p.proved,
            "unproved": [{"buffer": b, "index": i} for b, i in p.unproved[:100]],
            "unproved_count": len(p.unproved), "kernels": p.kernels, "seconds": p.seconds,
            "sampled": None if p.sampled is None else json.loads(format_json(_sampled(p))),
            "witness": p.witness,
            "findings": {role: [f.to_json() for f in fs] for role, fs in p.findings.items()},
            "unsupported": None if p.unsupported is None else str(p.unsupported[1])}
    return json.dumps(data, indent=2, default=str)


def _sampled(p) -> CheckResult:
    """A proof's sampled comparison as the bits result it is."""
    return CheckResult(p.sampled, mode="bits", divergence=p.divergence)


PROOF_FORMATS = {"text": _proof_text, "json": _proof_json}
