"""Presentation of `volta run` results (`volta.session.replay.RunResult`): text and the JSON object.

No analysis happens here; the command line and the Python API (`volta.run(...).report()`) both
format with these, so a run reads the same either way.
"""
from __future__ import annotations

from volta.session import replay
from volta.numerics.mma_select import summary
from volta.report.common import launch_path, note_lines
from volta.report.text import finding_text
from volta.session.races import RaceReport, RacesResult

SCHEMA = "volta.run/1"


def format_text(result, out_path: str | None = None, seed: int | None = None, verbose: bool = False) -> str:
    seq = result.launches or [result.launch]   # a launch sequence: every kernel, in order
    files = ", ".join(dict.fromkeys(launch_path(x.ptx, verbose) for x in seq))
    names = " → ".join(x.kernel or x.ptx.name for x in seq)
    grids, blocks = (" → ".join(str(getattr(x, k)) for x in seq) for k in ("grid", "block"))
    lines = [f"ran {names} ({files}) grid {grids} block {blocks}, --fp {result.fp}: "
             f"{result.thread_instructions:,} thread-instructions in {result.seconds:.2f} s"]
    if result.timed_out:
        lines.append(f"UNKNOWN: {result.timed_out}; the run did not end, so no output is shown or written "
                     f"(a longer --timeout may finish it)")
    if seed is not None:
        lines.append(f"inputs: generated from --seed {seed}" + (f" (saved in {out_path} as input.NAME)" if out_path else ""))
    for name, buf in result.buffers.items():
        if buf.role == "in" or name not in result.outputs:
            continue
        s = replay.summarize(result.outputs[name], buf.dtype)
        shape = "x".join(map(str, s["shape"]))
        if s["min"] is None:
            stats = "no finite values"
        else:
            stats = f"min {s['min']:.6g} max {s['max']:.6g} mean {s['mean']:.6g}"
        extra = "".join(f", {s[k]} {k}" for k in ("nan", "inf") if s[k])
        lines.append(f"  {name}: {buf.dtype}[{shape}] {stats}{extra}")
    for row in result.tensor_cores:
        lines.append(f"tensor cores: {summary(row)}")
    for note in note_lines(result.notes, verbose):
        lines.append(f"note: {note}")
    if result.findings:
        lines.append(f"{len(result.findings)} finding(s) for this input:")
        lines.extend(finding_text(f) for f in result.findings)
    elif not result.timed_out:
        lines.append("no races, deadlocks or out-of-bounds accesses for this input")
    if out_path:
        lines.append(f"wrote {out_path}")
    return "\n".join(lines)


def to_json(result, out_path: str | None = None, seed: int | None = None) -> dict:
    L = result.launch
    bufs = {}
    for name, buf in result.buffers.items():
        if name not in result.outputs:   # a timed-out run shows no output
            continue
        s = replay.summarize(result.outputs[name], buf.dtype)
        s["role"] = buf.role
        bufs[name] = s
    return {
        "schema": SCHEMA, "verdict": result.verdict, "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "kernel": L.kernel, "ptx": str(L.ptx), "grid": str(L.grid), "block": str(L.block), "fp": result.fp,
        "seed": seed, "buffers": bufs, "findings": [f.to_json() for f in result.findings],
        "thread_instructions": result.thread_instructions, "seconds": result.seconds, "out": out_path,
        "notes": result.notes, "tensor_cores": result.tensor_cores,
    }


def to_races(result, inputs_used: str = ""):
    """The run as a `RacesResult` of one kernel, for the SARIF and JUnit formatters: its findings, `unknown`
    (--timeout), or `clean-for-inputs` (a replay on one input proves nothing about others)."""
    L = result.launch
    report = RaceReport(kernel=L.kernel or L.ptx.name, role="kernel", ptx=str(L.ptx), grid=str(L.grid),
                        block=str(L.block), threads=L.grid.count * L.block.count,
                        verdict={"clean": "clean-for-inputs"}.get(result.verdict, result.verdict),
                        findings=list(result.findings),
                        thread_instructions=result.thread_instructions, inputs=[inputs_used or "one input"],
                        seconds=result.seconds)
    return RacesResult([report], str(L.ptx))
