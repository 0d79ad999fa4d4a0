"""Peak resident memory of `volta races` / `run` / `check` on buffers declared at real sizes (issue 9).

    python benchmarks/bench_memory.py                    # 4096² naive GEMM, one 16x16 CTA: races and run
    python benchmarks/bench_memory.py --size 2048 --grid 2x2 --commands races,run,check

Three f32 buffers of size² elements (64 MiB each at 4096) of which a small grid touches a few rows and
columns: memory should follow what the launch touches, not what it declares. Each command runs in its own
subprocess, so its peak RSS (`ru_maxrss` of that child, from os.wait4) is its own; wall seconds include the
interpreter's start. `check` compares examples/eq_gemm_naive_tiled's two kernels (symbolic, one 4096-term
sum per output) and is slow at 4096: it is not in the default list.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAIVE = ROOT / "examples" / "gemm_naive" / "kernel.sm80.ptx"
PAIR = ROOT / "examples" / "eq_gemm_naive_tiled"


def command(which: str, size: int, grid: str, block: str) -> list[str]:
    n = size * size
    args = f"A,B,C,{size},{size},{size}"
    buffers = ["--buffer", f"A=f32[{n}]:in", "--buffer", f"B=f32[{n}]:in", "--buffer", f"C=f32[{n}]:out"]
    volta = [sys.executable, "-c", "import sys; from volta.cli import main; sys.exit(main())"]
    if which == "races":
        return volta + ["races", str(NAIVE), "--grid", grid, "--block", block, "--args", args, "-q"] + buffers
    if which == "run":
        return volta + ["run", str(NAIVE), "--grid", grid, "--block", block, "--args", args, "-q",
                        "--inputs", "random"] + buffers
    if which == "check":
        ref, opt = PAIR / "ref.sm80.ptx", PAIR / "opt.sm80.ptx"
        return volta + ["check", str(ref), str(opt), "--grid", grid, "--block", block, "--args", args,
                        "-q"] + buffers
    raise SystemExit(f"unknown command `{which}` (races, run, check)")


def measure(argv: list[str]) -> tuple[int, float, float, str]:
    """(exit code, peak RSS in MiB, wall seconds, last output line) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    lines = [ln for ln in out.splitlines() if ln.strip()]
    verdict = next((ln.strip() for ln in lines if any(w in ln for w in ("RACE", "CLEAN", "EQUIVALENT", "no ",
                                                                        "UNSUPPORTED", "error", "Error"))),
                   lines[-1].strip() if lines else "")
    return child.returncode, usage.ru_maxrss / 1024, seconds, verdict[:100]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    ap.add_argument("--grid", default="1", help="grid (default 1: one CTA)")
    ap.add_argument("--block", default="16x16", help="block (default 16x16)")
    ap.add_argument("--commands", default="races,run", help="comma list of races, run, check")
    opts = ap.parse_args()
    print(f"naive GEMM {opts.size}², 3 x f32[{opts.size * opts.size:,}] "
          f"({3 * opts.size * opts.size * 4 / 2**20:,.0f} MiB declared), grid {opts.grid}, block {opts.block}")
    for which in opts.commands.split(","):
        rc, mib, seconds, verdict = measure(command(which.strip(), opts.size, opts.grid, opts.block))
        print(f"  {which:6s} exit {rc}  peak RSS {mib:8,.0f} MiB  {seconds:7.1f} s   {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
