"""Human-readable `volta races` report: a header per kernel, its findings, and a verdict line.

    races gemm_tiled_nosync (kernel.sm80.ptx): grid 2x2, block 16x16, 1024 threads, 161,792 thread-instructions in 0.11 s
    RACE: write-read race on `_ZZ17gemm_tiled_nosyncE2Bs` between threads with no barrier between them
      write  block (0, 0, 0) thread (0, 0, 0)  st.shared.f32  kernel.sm80.ptx:93:2  kernel.cu:14
      read   block (0, 0, 0) thread (0, 1, 0)  ld.shared.f32  kernel.sm80.ptx:95:2  kernel.cu:17
      at address 0x3000000: `_ZZ17gemm_tiled_nosyncE2Bs` byte offset 0 (size 1024 bytes)
    verdict: RACE (32 findings: 32 race)
"""
from __future__ import annotations

from volta.report.common import access_roles, accesses, counts, display_path, kernel_verdict

DEFAULT_MAX_FINDINGS = 20


def format(result, max_findings: int = DEFAULT_MAX_FINDINGS) -> str:
    """`max_findings` limits the findings shown per kernel (0: all); the verdict line counts them all."""
    blocks = [_kernel(r, max_findings) for r in result.reports]
    if len(result.reports) > 1:
        names = ", ".join(f"{r.role} {r.kernel}: {kernel_verdict(r)}" for r in result.reports)
        blocks.append(f"overall: {_overall(result)} ({names})")
    return "\n\n".join(blocks)


def _overall(result) -> str:
    return {"clean": "CLEAN", "findings": "FINDINGS", "unsupported": "UNSUPPORTED"}[result.verdict]


def header(r) -> str:
    role = f"{r.role} " if r.role != "kernel" else ""
    return (f"races {role}{r.kernel or '?'} ({display_path(r.ptx)}): grid {r.grid}, block {r.block}, "
            f"{r.threads:,} threads, {r.thread_instructions:,} thread-instructions in {r.seconds:.2f} s")


def _kernel(r, max_findings: int) -> str:
    lines = [header(r)]
    shown = r.findings if not max_findings else r.findings[:max_findings]
    for f in shown:
        lines.append(finding_text(f))
    hidden = len(r.findings) - len(shown)
    if hidden:
        lines.append(f"... and {hidden} more finding(s) not shown (--max-findings 0 shows all, --json lists all)")
    if r.error is not None:
        prefix = "stopped early: " if r.findings else ""
        lines.append(prefix + " ".join(str(r.error).split()))
    lines.append("verdict: " + _verdict_line(r))
    return "\n".join(lines)


def _verdict_line(r) -> str:
    v = kernel_verdict(r)
    if r.verdict == "findings":
        by_kind = ", ".join(f"{n} {k}" for k, n in counts(r).items())
        return f"{v} ({len(r.findings)} finding{'s' if len(r.findings) != 1 else ''}: {by_kind})"
    if r.verdict == "unsupported":
        return f"{v} (outside the structured class; nothing is claimed)"
    return f"{v} (no races, deadlocks, out-of-bounds or uninitialized reads in this launch)"


def finding_text(f) -> str:
    lines = [f"{f.kind.upper()}: {f.message}"]
    roles = access_roles(f)
    for (tid, site), role in zip(accesses(f), roles):
        parts = [f"{role:<6}"] if role else []
        if tid is not None:
            parts.append(str(tid))
        if site is not None:
            parts.append(site.text)
            parts.append(f"{display_path(site.ptx)}:{site.line}:{site.col}")
            if site.cuda:
                parts.append(display_path(site.cuda))
        lines.append("  " + "  ".join(parts))
    where = []
    if f.address is not None:
        where.append(f"at address {f.address:#x}")
    if f.buffer is not None:
        b = f"`{f.buffer}`"
        if f.offset is not None:
            b += f" byte offset {f.offset}"
        if f.bounds is not None:
            b += f" (size {f.bounds} bytes)"
        where.append(b)
    if where:
        lines.append("  " + ": ".join(where))
    return "\n".join(lines)

