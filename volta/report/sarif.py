"""`volta races --sarif`: SARIF 2.1.0 (OASIS) for code-scanning services.

One run; one result per finding group (findings of one kind at one source site, SCHEMA.md), `ruleId` = the
kind. Its primary location is the CUDA line of the first access when the PTX carries `.loc` (so code scanning
annotates the CUDA source), else the PTX instruction; the PTX instructions of the accesses and the second
access's CUDA line are related locations. Paths below the working directory are relative URIs with
`uriBaseId` `SRCROOT` (defined in `originalUriBaseIds`); others are absolute `file:` URIs. `properties` hold
the number of instances (`count`), the kernel and launch, the example's threads, the buffer (demangled) and the
byte offset in it. A kernel that left the structured class is a `warning` result with ruleId `unsupported`.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import volta
from volta.report.common import (RULE_DESCRIPTIONS, accesses, cuda_site, demangle, demangle_text, group_findings,
                                 verdict_name)

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
BASE_ID = "SRCROOT"


def format(result) -> str:
    return json.dumps(to_dict(result), indent=2)


def information_uri() -> str | None:
    """This project's own documentation: the README beside the package (a file URI), when it is there."""
    readme = Path(volta.__file__).resolve().parent.parent / "README.md"
    return readme.as_uri() if readme.is_file() else None


def new_run(rules: list, results: list, exit_code: int) -> dict:
    driver = {"name": "volta", "version": getattr(volta, "__version__", "0"), "rules": rules}
    uri = information_uri()
    if uri:
        driver["informationUri"] = uri
    return {
        "tool": {"driver": driver},
        "originalUriBaseIds": {BASE_ID: {"uri": Path(os.getcwd()).resolve().as_uri() + "/"}},
        "invocations": [{"executionSuccessful": True, "exitCode": exit_code}],
        "results": results,
    }


def rule_entry(kind: str, description: str | None = None, level: str | None = None) -> dict:
    return {
        "id": kind,
        "name": verdict_name(kind).title().replace(" ", ""),
        "shortDescription": {"text": verdict_name(kind).capitalize()},
        "fullDescription": {"text": description or RULE_DESCRIPTIONS.get(kind, kind)},
        "defaultConfiguration": {"level": level or ("warning" if kind in ("unsupported", "unknown") else "error")},
    }


def to_dict(result) -> dict:
    rules, results = [], []
    index = {}

    def rule(kind: str) -> int:
        if kind not in index:
            index[kind] = len(rules)
            rules.append(rule_entry(kind))
        return index[kind]

    for r in result.reports:
        for g in group_findings(r.findings):
            results.append(_result(r, g, rule(g.kind)))
        if r.error is not None:
            kind = "unknown" if r.verdict == "unknown" else "unsupported"
            results.append(_unsupported(r, rule(kind), kind))
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [new_run(rules, results, result.exit_code)]}


def artifact(path: str) -> dict:
    """A relative URI with uriBaseId when `path` lies below the working directory, else an absolute file URI."""
    p = Path(path)
    absolute = p if p.is_absolute() else Path(os.getcwd()) / p
    try:
        rel = absolute.resolve().relative_to(Path(os.getcwd()).resolve())
    except (ValueError, OSError):
        return {"uri": absolute.as_uri()}
    return {"uri": rel.as_posix(), "uriBaseId": BASE_ID}


def _location(file: str, line: int | None, col: int | None = None, message: str | None = None, id_=None) -> dict:
    region = {}
    if line is not None and int(line) >= 1:
        region["startLine"] = int(line)
        if col is not None and int(col) >= 1:
            region["startColumn"] = int(col)
    loc = {"physicalLocation": {"artifactLocation": artifact(file)}}
    if region:
        loc["physicalLocation"]["region"] = region
    if message:
        loc["message"] = {"text": message}
    if id_ is not None:
        loc["id"] = id_
    return loc


def site_locations(sites, labels=None) -> tuple:
    """(primary location, related locations) for the instructions of one finding: the first CUDA line when there is
    one (its PTX instruction related), else the first PTX instruction."""
    sites = [s for s in sites if s is not None]
    if not sites:
        return None, []
    labels = labels or [f"access {i + 1}" for i in range(len(sites))]
    related, next_id = [], 1
    first_cuda = cuda_site(sites[0])
    primary = (_location(first_cuda[0], first_cuda[1]) if first_cuda[0] is not None
               else _location(sites[0].ptx, sites[0].line, sites[0].col))
    seen_cuda = {first_cuda} if first_cuda[0] is not None else set()
    for i, (site, label) in enumerate(zip(sites, labels)):
        if i > 0 or first_cuda[0] is not None:
            related.append(_location(site.ptx, site.line, site.col, f"PTX of the {label}: {site.text}", next_id))
            next_id += 1
        c = cuda_site(site)
        if c[0] is not None and c not in seen_cuda:
            seen_cuda.add(c)
            related.append(_location(c[0], c[1], None, f"CUDA source of the {label}", next_id))
            next_id += 1
    return primary, related


def _result(r, g, rule_index: int) -> dict:
    f = g.example
    pairs = accesses(f)
    who = [f"{t} ({s.text})" if s else str(t) for t, s in pairs if t is not None]
    text = f"{demangle_text(f.message)} in kernel `{r.kernel}`"
    if g.count > 1:
        text += f": {g.count} instances at this site; for example"
    if who:
        text += (" " if g.count > 1 else ": ") + "; ".join(who)
    if f.buffer is not None and f.offset is not None:
        text += f"; `{demangle(f.buffer)}` byte offset {f.offset}"
    labels = [("first" if i == 0 else "second" if i == 1 else f"thread {i + 1}") + " access" for i in range(len(pairs))]
    related_label = "last branch before it" if f.kind == "out-of-bounds" else "related instruction"
    labels = [(related_label if tid is None and i > 0 else label)   # a related site, labeled as the text labels it
              for i, ((tid, _), label) in enumerate(zip(pairs, labels))]
    primary, related = site_locations([s for _, s in pairs], labels)
    out = {
        "ruleId": f.kind,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": text},
        "locations": [primary] if primary else [],
        "properties": {
            "count": g.count, "kernel": r.kernel, "role": r.role, "grid": r.grid, "block": r.block,
            "threads": [{"block": list(t.block), "thread": list(t.thread)} for t, _ in pairs if t is not None],
            "buffer": demangle(f.buffer), "buffer_symbol": f.buffer, "offset": f.offset, "bounds": f.bounds,
            "buffers": g.buffers,
        },
    }
    if related:
        out["relatedLocations"] = related
    return out


def _unsupported(r, rule_index: int, kind: str = "unsupported") -> dict:
    """A warning: the run stopped (it left the structured class, or `unknown`: --timeout ran out)."""
    err = r.error
    out = {
        "ruleId": kind,
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": f"kernel `{r.kernel}`: {err.message}"},
        "locations": [_location(err.span.file, err.span.line, err.span.col)] if err.span else [],
        "properties": {"kernel": r.kernel, "role": r.role},
    }
    return out
