"""`volta races --sarif`: SARIF 2.1.0 (OASIS) for code-scanning services.

One run; one result per finding with `ruleId` = the finding kind, its location the PTX instruction of
the first thread (file, line, column), and related locations for the second thread's instruction and
for the CUDA lines `.loc` gave. A kernel that left the structured class is a `warning` result with
ruleId `unsupported` at the instruction that left it.
"""
from __future__ import annotations

import json
from pathlib import Path

import volta
from volta.report.common import RULE_DESCRIPTIONS, accesses, display_path, split_cuda, verdict_name

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def format(result) -> str:
    return json.dumps(to_dict(result), indent=2)


def to_dict(result) -> dict:
    rules, results = [], []
    index = {}

    def rule(kind: str) -> int:
        if kind not in index:
            index[kind] = len(rules)
            rules.append({
                "id": kind,
                "name": verdict_name(kind).title().replace(" ", ""),
                "shortDescription": {"text": verdict_name(kind).capitalize()},
                "fullDescription": {"text": RULE_DESCRIPTIONS.get(kind, kind)},
                "defaultConfiguration": {"level": "warning" if kind == "unsupported" else "error"},
            })
        return index[kind]

    for r in result.reports:
        for f in r.findings:
            results.append(_result(r, f, rule(f.kind)))
        if r.error is not None:
            results.append(_unsupported(r, rule("unsupported")))
    run = {
        "tool": {"driver": {"name": "volta", "version": getattr(volta, "__version__", "0"),
                            "informationUri": "https://github.com/willtunnels/volta", "rules": rules}},
        "invocations": [{"executionSuccessful": True, "exitCode": result.exit_code}],
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _uri(path: str) -> str:
    p = Path(path)
    return p.as_uri() if p.is_absolute() else display_path(path).replace("\\", "/")


def _location(file: str, line: int | None, col: int | None = None, message: str | None = None, id_=None) -> dict:
    region = {}
    if line is not None:
        region["startLine"] = int(line)
    if col is not None:
        region["startColumn"] = int(col)
    loc = {"physicalLocation": {"artifactLocation": {"uri": _uri(file)}}}
    if region:
        loc["physicalLocation"]["region"] = region
    if message:
        loc["message"] = {"text": message}
    if id_ is not None:
        loc["id"] = id_
    return loc


def _result(r, f, rule_index: int) -> dict:
    pairs = accesses(f)
    who = [f"{t} ({s.text})" if s else str(t) for t, s in pairs if t is not None]
    text = f"{f.message} in kernel `{r.kernel}`"
    if who:
        text += ": " + "; ".join(who)
    if f.buffer is not None and f.offset is not None:
        text += f"; `{f.buffer}` byte offset {f.offset}"
    if f.address is not None:
        text += f", address {f.address:#x}"
    first_site = next((s for _, s in pairs if s is not None), None)
    related, next_id = [], 1
    for i, (tid, site) in enumerate(pairs):
        if site is None:
            continue
        label = f"{'first' if i == 0 else 'second' if i == 1 else f'thread {i + 1}'}: {tid or ''} {site.text}".strip()
        if i > 0:
            related.append(_location(site.ptx, site.line, site.col, label, next_id))
            next_id += 1
        file, line = split_cuda(site.cuda)
        if file is not None:
            related.append(_location(file, line, None, f"CUDA source of the {label}", next_id))
            next_id += 1
    out = {
        "ruleId": f.kind,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": text},
        "locations": [_location(first_site.ptx, first_site.line, first_site.col)] if first_site else [],
        "properties": {
            "kernel": r.kernel, "role": r.role, "grid": r.grid, "block": r.block,
            "threads": [{"block": list(t.block), "thread": list(t.thread)} for t, _ in pairs if t is not None],
            "buffer": f.buffer, "offset": f.offset, "address": f.address, "bounds": f.bounds,
        },
    }
    if related:
        out["relatedLocations"] = related
    return out


def _unsupported(r, rule_index: int) -> dict:
    err = r.error
    out = {
        "ruleId": "unsupported",
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": f"kernel `{r.kernel}`: {err.message}"},
        "locations": [_location(err.span.file, err.span.line, err.span.col)] if err.span else [],
        "properties": {"kernel": r.kernel, "role": r.role},
    }
    return out
