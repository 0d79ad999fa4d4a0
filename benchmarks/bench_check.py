"""Benchmark `volta check` end to end on whole grids (every CTA executed, both kernels, then compared).

    python benchmarks/bench_check.py                          # GEMM 256^3 and softmax 16x1024
    python benchmarks/bench_check.py --gemm 64,128 --softmax 8x256 --profile 25

GEMM: examples/gemm_naive (one output per thread) vs examples/gemm_tiled64 (64x64 block tiles, 4x4
register-blocked outputs per thread), M = N = K = size. Softmax: examples/eq_softmax_naive_online
(naive 3-pass vs online) at ROWS x COLS. Prints verdict, seconds (execute / decide) and
thread-instructions per second (target: >= 2 million/s); `--profile N` runs the first case under
cProfile and prints the N most expensive functions by own time and by cumulative time; `--per-lane`
turns the lane-structured polynomial path off (volta/exec/state/lanesym.py) for a before/after comparison.

Measured (one core, lane-structured path on): GEMM 64^3 1.3 s, 128^3 4.6 s (5.3 M/s executing),
256^3 32 s (6.7 M/s executing); per-lane path (`--per-lane`): 64^3 6.0 s, 128^3 39 s.
2026-12-03 (2 shared cores): GEMM 256^3 7.7 s (execute 4.2 s, 33 M/s executing) since reads of buffers no
instruction writes are not race-tracked (was 25.9 s); softmax 16x1024 8.0 s.
2026-12-04 (a slower VM, a test run on the other core), alternating runs: GEMM 256^3 at b07f5d2 15.0-15.8 s
(decide 7.9-8.1 s) -> at dab0111 7.2-9.5 s (decide 0.95-1.15 s): sums kept in 64-term blocks and compared lane by
lane where their terms line up (symbolic/lanepoly.py); softmax 16x1024 10.1 s.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from volta.config import ALL_FAST, FastPaths  # noqa: E402
from volta.equiv.check import check  # noqa: E402
from volta.launch.args import entries  # noqa: E402
from volta.launch.spec import Buffer, Dim3, KernelLaunch, LaunchSpec  # noqa: E402

EX = ROOT / "examples"
TARGET = 2_000_000


def gemm_spec(n: int) -> LaunchSpec:
    args = entries(f"A,B,C,{n},{n},{n}")
    ref = KernelLaunch(EX / "gemm_naive" / "kernel.sm80.ptx", "gemm_naive", Dim3((n + 15) // 16, (n + 15) // 16),
                       Dim3(16, 16), args)
    opt = KernelLaunch(EX / "gemm_tiled64" / "kernel.sm80.ptx", "gemm_tiled64", Dim3((n + 63) // 64, (n + 63) // 64),
                       Dim3(16, 16), args)
    bufs = {"A": Buffer("A", "f32", n * n, "in"), "B": Buffer("B", "f32", n * n, "in"),
            "C": Buffer("C", "f32", n * n, "out")}
    return LaunchSpec({"ref": ref, "opt": opt}, bufs, source=f"gemm {n}^3")


def softmax_spec(rows: int, cols: int) -> LaunchSpec:
    d = EX / "eq_softmax_naive_online"
    args = entries(f"x,y,{rows},{cols}")
    ref = KernelLaunch(d / "ref.sm80.ptx", "softmax_naive", Dim3(rows), Dim3(32), args)
    opt = KernelLaunch(d / "opt.sm80.ptx", "softmax_online", Dim3(rows), Dim3(32), args)
    bufs = {"x": Buffer("x", "f32", rows * cols, "in"), "y": Buffer("y", "f32", rows * cols, "out")}
    return LaunchSpec({"ref": ref, "opt": opt}, bufs, source=f"softmax {rows}x{cols}")


def measure(spec: LaunchSpec, fast: FastPaths = ALL_FAST) -> dict:
    start = time.perf_counter()
    report = check(spec, fast=fast)
    seconds = time.perf_counter() - start
    ti = report.stats.get("thread_instructions", 0)
    row = {"case": spec.source, "verdict": report.verdict, "seconds": seconds,
           "execute": report.stats.get("execute_seconds", 0.0), "decide": report.stats.get("decide_seconds", 0.0),
           "thread_instructions": ti, "rate": ti / report.stats["execute_seconds"] if ti else 0.0,
           "proved_by": report.proved_by}
    print(f"{row['case']:>18}: {row['verdict']:<14} {seconds:8.2f} s (execute {row['execute']:.2f} s, decide "
          f"{row['decide']:.2f} s)  {ti:>12,} thread-instructions  {row['rate'] / 1e6:6.3f} M/s executing "
          f"({ti / seconds / 1e6:.3f} M/s end to end; target {TARGET / 1e6:.0f} M/s)  {row['proved_by']}", flush=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gemm", default="256", help="comma-separated GEMM sizes (M=N=K), e.g. 64,128,256")
    ap.add_argument("--softmax", default="16x1024", help="comma-separated ROWSxCOLS for the softmax pair")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile the first case, print top N")
    ap.add_argument("--per-lane", action="store_true",
                    help="disable the lane-structured polynomial path (one expression per lane: the reference)")
    opts = ap.parse_args()
    fast = FastPaths(lane_structured=not opts.per_lane)
    specs = [gemm_spec(int(n)) for n in opts.gemm.split(",") if n]
    specs += [softmax_spec(*map(int, rc.split("x"))) for rc in opts.softmax.split(",") if rc]
    if opts.profile:
        prof = cProfile.Profile()
        prof.enable()
        measure(specs[0], fast)
        prof.disable()
        for key in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats(key).print_stats(opts.profile)
            print(out.getvalue())
        specs = specs[1:]
    for spec in specs:
        measure(spec, fast)
    return 0


if __name__ == "__main__":
    sys.exit(main())
