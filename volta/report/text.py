"""Human-readable `volta races` report: a header per kernel, its findings, and a verdict line.

    races gemm_tiled_nosync (kernel.sm80.ptx): grid 2x2, block 16x16, 1024 threads, 161,792 thread-instructions in 0.11 s
    RACE: write-read race on `gemm_tiled_nosync()::Bs` between threads with no barrier between them
      32 instances at kernel.cu:14, kernel.cu:17 (other threads, offsets or PTX lines); one of them:
      write  block (0, 0, 0) thread (0, 0, 0)  st.shared.f32  kernel.sm80.ptx:93:2  kernel.cu:14
      read   block (0, 0, 0) thread (0, 1, 0)  ld.shared.f32  kernel.sm80.ptx:95:2  kernel.cu:17
      at `gemm_tiled_nosync()::Bs` byte offset 0 (size 1024 bytes)
        14 |         Bs[ty][tx] = B[(t * TILE + ty) * N + col];
           |         ^
    verdict: RACE (32 findings at 1 source site: 32 race)

Findings are grouped by (kind, source site): one group per CUDA line of each access (the PTX line
without `.loc`), with its number of instances and the first as the example. Mangled names are demangled;
offsets are relative to the buffer or variable; the CUDA line's text is shown when the file is readable (found
beside the PTX when nvcc's absolute path has gone stale).
"""
from __future__ import annotations

from volta.config import MAX_FINDINGS_SHOWN as DEFAULT_MAX_FINDINGS
from volta.report.common import (access_roles, accesses, counts, cuda_site, demangle, demangle_text, display_path,
                                 group_findings, kernel_title, kernel_verdict, launch_path, resolve_cuda, source_excerpt)


def format(result, max_findings: int = DEFAULT_MAX_FINDINGS, verbose: bool = False) -> str:
    """`max_findings` limits the findings shown per kernel (0: all); the verdict line counts them all. `verbose`
    adds the cache path of PTX compiled from a .cu to the header."""
    blocks = [_kernel(r, max_findings, verbose) for r in result.reports]
    if len(result.reports) > 1:
        names = ", ".join(f"{r.role} {r.kernel}: {kernel_verdict(r)}" for r in result.reports)
        blocks.append(f"overall: {_overall(result)} ({names})")
    return "\n\n".join(blocks)


def _overall(result) -> str:
    return {"clean": "CLEAN", "findings": "FINDINGS", "unsupported": "UNSUPPORTED", "unknown": "UNKNOWN",
            "clean-for-inputs": "NO FINDING ON THESE INPUTS"}[result.verdict]


def header(r, verbose: bool = False) -> str:
    role = f"{r.role} " if r.role != "kernel" else ""
    cost = (f", {r.thread_instructions:,} thread-instructions in {r.seconds:.2f} s"
            if r.thread_instructions or r.seconds else "")   # not measured per kernel when volta check ran it
    return (f"races {role}{kernel_title(r.kernel) or '?'} ({launch_path(r.ptx, verbose)}): grid {r.grid}, "
            f"block {r.block}, {r.threads:,} threads{cost}")


def _kernel(r, max_findings: int, verbose: bool = False) -> str:
    lines = [header(r, verbose)]
    inputs = getattr(r, "inputs", None) or []
    if inputs:
        why = getattr(r, "data_dependence", None)
        lines.append("concrete mode: " + (f"the all-inputs run stopped ({' '.join(str(why).split())}), so the kernel "
                                          f"ran on {len(inputs)} concrete input set(s):" if why is not None else
                                          f"--inputs given: the kernel ran on {len(inputs)} concrete input set(s):"))
        lines += [f"  inputs {k + 1}: {d}" for k, d in enumerate(inputs)]
        for k, err in getattr(r, "trial_errors", []):
            lines.append(f"  inputs {k + 1} stopped: {' '.join(str(err).split())}")
        explored = getattr(r, "schedules", None) or []
        if any(not e.startswith("1 ") for e in explored):
            same = len(set(explored)) == 1
            lines.append("schedules of contended atomics: " + (f"{explored[0]} per input set" if same else
                         "; ".join(f"inputs {k + 1}: {e}" for k, e in enumerate(explored))))
        for k, printed in getattr(r, "printed", None) or []:
            lines.append(f"printf on inputs {k + 1} ({len(printed)} line(s)):")
            lines += [f"  {tid}: {text.rstrip(chr(10))}" for tid, text in printed]
    groups = group_findings(r.findings)
    shown = groups if not max_findings else groups[:max_findings]
    for g in shown:
        f = g.example
        lines.append(group_text(g))
        on = f.details.get("inputs") if inputs else None
        if on is not None:
            lines.append("  on inputs " + ", ".join(str(k + 1) for k in on) + f" of {len(inputs)}")
        if f.details.get("condition"):
            lines.append(f"  needs, on tensor data: {f.details['condition']}")
        if f.details.get("schedule"):
            lines.append(f"  only under another schedule: {f.details['schedule']}")
    hidden = len(groups) - len(shown)
    if hidden:
        lines.append(f"... and {hidden} more finding group(s) not shown (--max-findings 0 shows all, --json lists "
                     f"all)")
    if r.error is not None:
        prefix = "stopped early: " if r.findings else ""
        lines.append(prefix + " ".join(str(r.error).split()))
    if r.ctas:
        lines.append(f"CTAs run (--ctas): {r.ctas}; races with and inside the other CTAs are not checked")
    lines.append("verdict: " + _verdict_line(r))
    return "\n".join(lines)


def _verdict_line(r) -> str:
    v = kernel_verdict(r)
    if r.verdict == "findings":
        by_kind = ", ".join(f"{n} {k}" for k, n in counts(r).items())
        n, sites = len(r.findings), len(group_findings(r.findings))
        at = f" at {sites} source site{'s' if sites != 1 else ''}" if sites != n else ""
        return f"{v} ({n} finding{'s' if n != 1 else ''}{at}: {by_kind})"
    if r.verdict == "unsupported":
        return f"{v} (outside the structured class; nothing is claimed)"
    if r.verdict == "unknown":
        return f"{v} (--timeout ran out before the run ended; nothing is claimed)"
    if r.verdict == "clean-for-inputs":
        allowed = f"; {_allowed(r)} allowed" if r.findings else ""
        return (f"{v} (no finding on these {len(r.inputs)} input set(s){allowed}; the verdict covers these inputs "
                f"only, not every input)")
    if r.findings:
        return f"{v} (only findings the options allow: {_allowed(r)})"
    if r.ctas:
        return f"{v} (no races, deadlocks, out-of-bounds or uninitialized reads among the {r.ctas.split(':')[0]} run)"
    return f"{v} (no races, deadlocks, out-of-bounds or uninitialized reads in this launch)"


def _allowed(r) -> str:
    """`2 benign-race, 1 ordering-race` for the findings listed but not counted (--allow-benign-races, …)."""
    return ", ".join(f"{n} {k}" for k, n in counts(r).items())


def group_text(g) -> str:
    """A finding group: the example finding, with the number of instances at its source site."""
    if g.count == 1:
        return finding_text(g.example)
    body = finding_text(g.example).split("\n", 1)
    bufs = g.buffers
    what = f"in {', '.join(f'`{b}`' for b in bufs)}; " if len(bufs) > 1 else ""
    note = f"  {g.count} instances at {g.where} ({what}other threads, offsets or PTX lines); one of them:"
    return "\n".join([body[0], note] + body[1:])


def finding_text(f, source: bool = True) -> str:
    """One finding: kind and message, each access (thread, instruction, PTX and CUDA lines), where in the buffer or
    variable (a byte offset), and the CUDA source lines with a caret when their files are readable."""
    threads = f.details.get("threads", 0)
    by = f" (by {threads:,} threads)" if threads > 1 else ""
    lines = [f"{f.kind.upper()}: {demangle_text(f.message)}{by}"]
    roles = access_roles(f)
    excerpts = {}
    for i, ((tid, site), role) in enumerate(zip(accesses(f), roles)):
        parts = [f"{role:<6}"] if role else []
        if tid is None and i > 0:   # the instruction that explains it, e.g. the branch that let the lane through
            parts.append("last branch before it:" if f.kind == "out-of-bounds" else "related:")
        if tid is not None:
            parts.append(str(tid))
        if site is not None:
            parts.append(site.text)
            parts.append(f"{display_path(site.ptx)}:{site.line}:{site.col}")
            if site.cuda:
                file, line = cuda_site(site)
                inlined = site.cuda.split(" (inlined at ", 1)
                text = f"{display_path(file)}:{line}" if line is not None else site.cuda
                if len(inlined) > 1 and line is not None:   # the caller's line by the same source-path rule
                    at_file, _, at_rest = inlined[1].partition(":")
                    text += f" (inlined at {resolve_cuda(at_file, site.ptx)}:{at_rest}"
                parts.append(text)
                excerpts.setdefault((file, line), source_excerpt(file, line))
        lines.append("  " + "  ".join(parts))
    if f.buffer is not None:
        b = f"  at `{demangle(f.buffer)}`"
        if f.offset is not None:
            b += f" byte offset {f.offset}"
        if f.bounds is not None:
            b += f" (size {f.bounds} bytes)"
        lines.append(b)
    elif f.address is not None:
        lines.append(f"  at address {f.address:#x} (in no buffer or variable)")
    if source:
        for ex in excerpts.values():
            lines += ex
    return "\n".join(lines)
