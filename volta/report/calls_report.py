"""Presentation of the later calls of `volta kernelbench` (`volta/kernelbench/calls.py`): text lines and the
`calls` object of the JSON report (SCHEMA.md). No analysis happens here."""
from __future__ import annotations

CALL_WHAT = {2: "new inputs at the previous call's addresses where free",
             3: "new inputs in new storages and new parameters"}


def verdict_text(calls) -> str | None:
    """OUTPUT_ALIASED when a later call overwrote a returned output, else None (the verdict's own text)."""
    return "OUTPUT_ALIASED" if calls is not None and calls.aliased else None


def text_lines(r) -> list:
    calls = r.calls
    if calls is None:
        return []
    lines = []
    for a in calls.aliased:
        where = f" held as {a.holder}" if a.holder else ""
        lines.append(f"  output {a.output} returned by call {a.call} was overwritten by call {a.by} (elements "
                     f"{list(a.elements)}): it aliases storage the module keeps{where}; the caller's first "
                     f"result is not what it was")
    if calls.verdict == "not-equivalent":
        lines.append(f"  the difference is on call {calls.call} of forward ({CALL_WHAT.get(calls.call, '')}); "
                     f"the earlier calls agreed: the candidate's output depends on an earlier call (inputs of call "
                     f"k are named NAME@k, parameters of call 3 NAME@3)")
    elif calls.verdict == "findings" and calls.findings:
        lines.append(f"  the findings are on call {calls.call} of forward; call 1 ran without them")
    elif calls.verdict == "equivalent":
        reused = "; ".join(f"call {k} reused the storage of {', '.join(v)}" for k, v in calls.reused.items() if v)
        lines.append(f"  forward called {calls.calls} times (call 2: {CALL_WHAT[2]}; call 3: {CALL_WHAT[3]}), "
                     f"each call's outputs equal to the reference's" + (f" ({reused})" if reused else ""))
    if calls.frozen:
        lines.append("  assumption: parameters frozen after construction — the constructor copied or folded them "
                     f"into {', '.join(calls.frozen)}; these were made to follow the new parameters on call 3")
    if r.eval_mode:
        lines.append("  both models in eval mode (--eval)")
    return lines


def to_dict(r) -> dict | None:
    calls = r.calls
    if calls is None:
        return None
    return {
        "calls": calls.calls, "verdict": calls.verdict, "decided_on_call": calls.call,
        "reused_input_storage": {str(k): v for k, v in calls.reused.items()},
        "output_aliased": [{"output": a.output, "call": a.call, "overwritten_by_call": a.by,
                            "elements": list(a.elements), "holder": a.holder} for a in calls.aliased],
        "frozen_after_construction": list(calls.frozen), "reason": calls.reason,
        "seconds": round(calls.seconds, 6),
    }
