"""The cost of running a KernelBench candidate in its confined worker (volta/kernelbench/isolation/).

    python benchmarks/bench_kb_worker.py [PROBLEM CANDIDATE] [--repeat 5]

Times `volta.kernelbench.check.check` in this process (the interpreter's start-up and imports are not in the
figure), median of `--repeat` runs after one warm-up run (which fills the nvcc cache), and the time a worker
takes to fork, confine itself and say it is ready. Run it from two checkouts (before and after a change) on the
same machine at the same time to compare.

Figures of 2026-12-07, 2 cores shared with seven other sessions (load average 9-15, so every figure is noisy):
- examples/kernelbench/l1_relu eq_dispatch_grid_stride.py: check() median 0.64-0.77 s with the worker, 0.60-0.62 s
  in-process (main, run alternately in the same minutes); fork to ready 35-68 ms.
- examples/kernelbench/l2_gemm_bias_relu neq_transposed_weight.py (4,096 output elements over a 536k-node
  expression DAG): median of 3, 48.7 s with the worker, 40.6 s in-process; the wire's share is encoding 3.8 s
  in the worker and decoding (checking, re-interning) 3.7 s in Volta's process. Single CLI runs of the same
  pair alternated 58.6/80.2 s against 73.1/60.9 s: the load's noise is larger than the worker's cost.
The worker loads the problem again (a float dry run and the symbolic inputs) while Volta's process runs the
reference, so on two free cores most of that overlaps.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from volta.kernelbench.check import check

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "kernelbench" / "l1_relu"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("problem", nargs="?", default=str(EXAMPLE / "problem.py"))
    parser.add_argument("candidate", nargs="?", default=str(EXAMPLE / "eq_dispatch_grid_stride.py"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    check(args.problem, args.candidate)
    times, verdicts = [], set()
    for _ in range(args.repeat):
        start = time.perf_counter()
        verdicts.add(check(args.problem, args.candidate).verdict)
        times.append(time.perf_counter() - start)
    print(f"check(): median {statistics.median(times):.3f} s, min {min(times):.3f} s over {args.repeat} runs; "
          f"verdicts {sorted(verdicts)}")
    try:
        from volta.kernelbench.isolation import process
    except ImportError:
        return                                      # a checkout without the worker
    start = time.perf_counter()
    worker = process.Worker(lambda channel: channel.receive(), process.Limits(seconds=30, memory=1 << 30))
    worker.ready()
    print(f"worker: fork to ready {1000 * (time.perf_counter() - start):.1f} ms")
    worker.close()


if __name__ == "__main__":
    main()
