"""What the confined worker costs a KernelBench check: `check()` in this process against `confined.run()` (fork,
confinement, audit hook, snapshots, the check, JSON back and validated), on one small example, best of N.

    python benchmarks/bench_kb_confined.py [examples/kernelbench/l1_relu eq_dispatch_grid_stride.py] [N]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from volta.exec import limits
from volta.kernelbench.check import check
from volta.kernelbench.isolation import confined

ROOT = Path(__file__).resolve().parents[1]


def best(run, n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    folder = ROOT / (sys.argv[1] if len(sys.argv) > 1 else "examples/kernelbench/l1_relu")
    candidate = folder / (sys.argv[2] if len(sys.argv) > 2 else "eq_dispatch_grid_stride.py")
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    problem = str(folder / "problem.py")
    with limits.using():
        inside = best(lambda: check(problem, str(candidate)), n)
        worker = best(lambda: confined.run(problem, str(candidate), {}, {}), n)
    print(f"{candidate.relative_to(ROOT)}: check() in this process {inside:.3f} s, in the confined worker "
          f"{worker:.3f} s (best of {n}): +{worker - inside:.3f} s")


if __name__ == "__main__":
    main()
