"""Benchmark one-thread launches (issue 9, "few lanes, long loops"): `volta check` of a one-thread reference
kernel (grid 1, block 1) against a parallel kernel, with volta/exec/fast/onethread.py on and, for comparison, off
(the SIMT executor with its lane arrays of one lane).

    python benchmarks/bench_onethread.py                         # every pair at its default size
    python benchmarks/bench_onethread.py --pairs dot --sizes 4096,65536 --general

Pairs (kernels of examples/, sizes are kernel arguments):
  dot   examples/neq_dot_onethread_block_short/ref.cu (out[0] = sum x[i] y[i] by one thread) against itself run as
        the reference of a pair whose optimized side is the same kernel (the pair is EQUIVALENT; the one-thread
        execution is what is measured); size = n
  gemm  examples/eq_gemm_onethread_naive (one thread computes every element of C = A B vs one thread per
        element); size = M = N = K / 2 (K = 2 size)
  first examples/eq_dot_first_thread_blocks (the dot product by thread 0 of block 0 of a 2 x 128 launch, which
        the scheduler picks alone: onethread.solo) vs two blocks with a shared tree; size = n
Prints per run: verdict, seconds end to end (execute / decide), the one-thread kernel's execution alone,
its thread-instructions and thread-instructions/s, peak MB (getrusage of the subprocess that ran it).
`--general` also runs each pair with the one-thread executor off.

Measured 2026-12-04, second session (2 cores, idle), every verdict EQUIVALENT; instr/s is the one-thread
kernel's execution alone (for `first`, the whole 256-thread reference launch):
  pair   size   onethread: instr/s  (exec s)   general (lane executor): instr/s  (exec s)
  dot    4096   412 K   (0.04)                 15.9 K  (1.16)
  dot    65536  933 K   (0.316, median of 7; best 0.304 s, 970 K)   not run (~19 s at 16 K/s)
  gemm   16     377 K   (0.15)                 16.5 K  (3.32)   [first session]
  gemm   32     635 K   (0.67)                 16.4 K  (25.9)   [first session]; check 2.4 s
  first  4096   429 K   (0.05)                 16.1 K  (1.34)   check 0.3 s vs 1.6 s (solo lanes)
  first  65536  369 K   (0.81)                 not run          check 17.5 s: decide 14.5 s (a 65,536-term sum
                                                                against a grid-stride tree with atomics), 805 MB
What made the difference this session (dot 65536 0.54 -> 0.34 s, gemm 32 0.87 -> 0.67 s): straight-line runs
compiled into one function (volta/exec/fast/oneblock.py), the cyclic collector off for the run (its scans were
0.06-0.3 s of it), element views instead of from_bytes, leaves made 64 at a time, and fma's common case
without the folds' tests. 1 M/s is not reached: each dot-product term interns four nodes (two leaves, the
product, the sum) at ~0.5-0.8 us each on this machine, half the time; the GEMM's 1,024 stores take the
general path (~0.15 ms each).
Before (first session, 2026-12-03): dot 65536 276 K/s, gemm 32 283 K/s; `first` ran on the lane executor.
Measured 2026-12-04, fourth session (a faster VM that day; the session-start commit cd7b2e5 measured alike,
1.25-1.44 M/s): dot 65536 1.31 M/s (0.23 s, median of 7), gemm 32 1.13 M/s (0.37 s), dot 4096 633 K/s,
first 65536 480 K/s. The first run in a fresh process is slower (677 K/s for dot 65536): page faults.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EX = ROOT / "examples"


def spec_for(pair: str, size: int):
    from volta.launch.args import entries
    from volta.launch.spec import Buffer, Dim3, KernelLaunch, LaunchSpec

    if pair == "dot":
        ptx = EX / "neq_dot_onethread_block_short" / "ref.sm80.ptx"
        launch = KernelLaunch(ptx, "dot_onethread", Dim3(1), Dim3(1), entries(f"x,y,out,{size}"))
        bufs = {"x": Buffer("x", "f32", size, "in"), "y": Buffer("y", "f32", size, "in"),
                "out": Buffer("out", "f32", 1, "out")}
        return LaunchSpec({"ref": launch, "opt": launch}, bufs, source=f"dot {size}")
    if pair == "first":
        case = EX / "eq_dot_first_thread_blocks"
        args = entries(f"x,y,out,{size}")
        ref = KernelLaunch(case / "ref.sm80.ptx", "dot_first_thread", Dim3(2), Dim3(128), args)
        opt = KernelLaunch(case / "opt.sm80.ptx", "dot_blocks", Dim3(2), Dim3(128), args)
        bufs = {"x": Buffer("x", "f32", size, "in"), "y": Buffer("y", "f32", size, "in"),
                "out": Buffer("out", "f32", 1, "out")}
        return LaunchSpec({"ref": ref, "opt": opt}, bufs, source=f"dot by thread 0 of 256, {size}")
    m = n = size
    k = 2 * size
    case = EX / "eq_gemm_onethread_naive"
    args = entries(f"A,B,C,{m},{n},{k}")
    ref = KernelLaunch(case / "ref.sm80.ptx", "gemm_onethread", Dim3(1), Dim3(1), args)
    opt = KernelLaunch(case / "opt.sm80.ptx", "gemm_naive", Dim3(-(-n // 16), -(-m // 16)), Dim3(16, 16), args)
    bufs = {"A": Buffer("A", "f32", m * k, "in"), "B": Buffer("B", "f32", k * n, "in"),
            "C": Buffer("C", "f32", m * n, "out")}
    return LaunchSpec({"ref": ref, "opt": opt}, bufs, source=f"gemm {m}x{n}x{k}")


def one(pair: str, size: int, fast: bool) -> dict:
    from volta.config import FastPaths
    from volta.equiv import check as CK

    paths = FastPaths(one_thread=fast)
    spec = spec_for(pair, size)
    start = time.perf_counter()
    m = CK.execute(spec, "ref", fast=paths)
    alone = time.perf_counter() - start
    start = time.perf_counter()
    report = CK.check(spec, timeout_ms=10_000, fast=paths)
    return {"pair": pair, "size": size, "fast": fast, "verdict": report.verdict,
            "seconds": time.perf_counter() - start, "execute": report.stats.get("execute_seconds", 0.0),
            "decide": report.stats.get("decide_seconds", 0.0), "alone": alone, "ti": m.thread_instructions,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", default="dot,gemm,first", help="comma list: dot, gemm, first")
    ap.add_argument("--sizes", default=None, help="comma list of sizes (default: dot 4096,65536; gemm 16,32; "
                                                  "first 4096,65536)")
    ap.add_argument("--general", action="store_true", help="also run with the one-thread executor off")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per run before it is killed")
    ap.add_argument("--one", nargs=3, metavar=("PAIR", "SIZE", "FAST"), help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.one:
        pair, size, fast = opts.one
        print(json.dumps(one(pair, int(size), fast == "1")))
        return 0
    print(f"{'pair':6} {'size':>7} {'executor':9} {'verdict':12} {'seconds':>8} {'exec':>7} {'decide':>7} "
          f"{'1-thread':>8} {'thr-instr':>10} {'instr/s':>9} {'peak MB':>8}")
    for pair in opts.pairs.split(","):
        sizes = opts.sizes or ("16,32" if pair == "gemm" else "4096,65536")
        for size in (int(s) for s in sizes.split(",")):
            for fast in ([True, False] if opts.general else [True]):
                cmd = [sys.executable, __file__, "--one", pair, str(size), "1" if fast else "0"]
                try:
                    out = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.timeout, check=True)
                    r = json.loads(out.stdout.strip().splitlines()[-1])
                except subprocess.TimeoutExpired:
                    print(f"{pair:6} {size:>7} {'onethread' if fast else 'general':9} killed after {opts.timeout} s")
                    continue
                print(f"{pair:6} {size:>7} {'onethread' if r['fast'] else 'general':9} {r['verdict']:12} "
                      f"{r['seconds']:8.1f} {r['execute']:7.1f} {r['decide']:7.1f} {r['alone']:8.2f} {r['ti']:>10,} "
                      f"{r['ti'] / r['alone']:>9,.0f} {r['peak_mb']:8.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
