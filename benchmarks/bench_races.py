"""Benchmark `volta races` on a shared-memory tiled GEMM over a whole grid (every CTA executed).

    python benchmarks/bench_races.py                 # 256x256x256: 4x4 CTAs of 16x16 threads
    python benchmarks/bench_races.py --size 128 --profile 25

Uses examples/gemm_tiled64 (64x64 block tiles, BK=16, 4x4 outputs per thread) with bigger arguments than its
manifest. Prints wall seconds and thread-instructions per second (target: >= 2 million/s); `--profile N`
runs it under cProfile and prints the N most expensive functions by own time and by cumulative time.
"""
from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from volta.launch.args import entries  # noqa: E402
from volta.launch.spec import Buffer, Dim3, load_manifest  # noqa: E402
from volta.session.races import analyze  # noqa: E402

MANIFEST = ROOT / "examples" / "gemm_tiled64" / "manifest.toml"
TARGET = 2_000_000


def spec_for(m: int, n: int, k: int):
    if m % 64 or n % 64 or k % 16:
        raise SystemExit("M and N must be multiples of 64 and K of 16")
    spec = load_manifest(MANIFEST)
    launch = spec.launches["kernel"]
    spec.launches["kernel"] = dataclasses.replace(launch, grid=Dim3(n // 64, m // 64),
                                                  args=entries(f"A,B,C,{m},{n},{k}"))
    spec.buffers = {"A": Buffer("A", "f32", m * k, "in"), "B": Buffer("B", "f32", k * n, "in"),
                    "C": Buffer("C", "f32", m * n, "out")}
    return spec


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=256, help="M = N = K (default 256)")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile: print the top N functions")
    opts = ap.parse_args()
    spec = spec_for(opts.size, opts.size, opts.size)
    analyze(spec_for(64, 64, 16))  # warm the parse cache and imports
    profiler = cProfile.Profile() if opts.profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    report = analyze(spec)
    if profiler:
        profiler.disable()
    seconds = time.perf_counter() - start
    rate = report.thread_instructions / seconds
    print(f"gemm_tiled64 {opts.size}x{opts.size}x{opts.size}: grid {report.grid}, block {report.block}, "
          f"{report.threads} threads, verdict {report.verdict}")
    print(f"{report.thread_instructions:,} thread-instructions, {report.steps:,} steps in {seconds:.2f} s: "
          f"{rate / 1e6:.2f} million thread-instructions/s (target {TARGET / 1e6:.0f} million/s"
          f"{', met' if rate >= TARGET else ', NOT met'})")
    if profiler:
        for key in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(key).print_stats(opts.profile)
            print(f"--- top {opts.profile} by {key} ---")
            print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[-(opts.profile + 6) * 200:])
    return 0 if report.verdict == "clean" else 1


if __name__ == "__main__":
    sys.exit(main())
