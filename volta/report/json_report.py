"""`volta races --json`: one JSON object per invocation; every field is documented in SCHEMA.md."""
from __future__ import annotations

import json

import volta
from volta.report.common import access_roles, accesses, counts, cuda_site, demangle, group_findings, kernel_verdict

SCHEMA = "volta.races/1"


def format(result) -> str:
    return json.dumps(to_dict(result), indent=2)


def to_dict(result) -> dict:
    return {
        "schema": SCHEMA,
        "tool": {"name": "volta", "version": getattr(volta, "__version__", "0")},
        "source": result.source,
        "verdict": result.verdict,
        "exit_code": result.exit_code,
        "kernels": [kernel_dict(r) for r in result.reports],
    }


def kernel_dict(r) -> dict:
    return {
        "kernel": r.kernel,
        "role": r.role,
        "ptx": r.ptx,
        "grid": r.grid,
        "block": r.block,
        "threads": r.threads,
        "ctas": r.ctas,
        "verdict": r.verdict,
        "verdict_text": kernel_verdict(r),
        "exit_code": r.exit_code,
        "stats": {"thread_instructions": r.thread_instructions, "steps": r.steps,
                  "seconds": round(r.seconds, 6)},
        "counts": counts(r),
        "unsupported": _error(r.error),
        "findings": [finding_dict(f) for f in r.findings],
        "groups": groups_list(r.findings),
        # concrete mode (data-dependent kernels): the input sets run, and why the all-inputs run stopped
        "inputs": list(getattr(r, "inputs", None) or []),
        "data_dependence": _error(getattr(r, "data_dependence", None)),
        # concrete mode: schedules of contended atomics run per input set; printf text with --show-printf
        "schedules": list(getattr(r, "schedules", None) or []),
        "printed": [{"inputs": k, "lines": [{"block": list(t.block), "thread": list(t.thread), "text": text}
                                            for t, text in lines]} for k, lines in getattr(r, "printed", None) or []],
    }


def finding_dict(f) -> dict:
    return {
        "kind": f.kind,
        "message": f.message,
        "accesses": [_access(t, s, a) for (t, s), a in zip(accesses(f), access_roles(f))],
        "buffer": f.buffer,
        "buffer_name": demangle(f.buffer),
        "offset": _int(f.offset),
        "address": _int(f.address),
        "bounds": _int(f.bounds),
        "inputs": f.details.get("inputs"),  # concrete mode: indices into the kernel's `inputs` that show it
        "schedule": f.details.get("schedule"),  # concrete mode: the atomics' order that showed it, if not lane order
        "condition": f.details.get("condition"),  # the condition on tensor data the accesses need (if-converted)
    }


def _access(tid, site, access) -> dict:
    out = {"access": access or None, "block": list(map(int, tid.block)) if tid else None,
           "thread": list(map(int, tid.thread)) if tid else None,
           "instruction": None, "ptx": None, "cuda": None}
    if site is not None:
        out["instruction"] = site.text
        out["ptx"] = {"file": site.ptx, "line": site.line, "col": site.col}
        file, line = cuda_site(site)
        if file is not None:
            out["cuda"] = {"file": file, "line": line}
    return out


def _error(err):
    if err is None:
        return None
    span = err.span
    return {"message": err.message, "file": span.file if span else None,
            "line": span.line if span else None, "col": span.col if span else None}


def _int(v):
    return None if v is None else int(v)


def groups_list(findings) -> list:
    """Findings grouped by (kind, source site of each access): one entry per group with its `count`, the source
    site, the buffers involved, an example finding, and the indices of its members in `findings`."""
    index = {id(f): i for i, f in enumerate(findings)}
    return [{"kind": g.kind, "count": g.count, "message": g.example.message, "buffers": g.buffers,
             "site": [{"file": file, "line": line} for file, line in g.site],
             "example": finding_dict(g.example), "findings": [index[id(f)] for f in g.members]}
            for g in group_findings(findings)]
