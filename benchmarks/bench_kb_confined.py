"""What the confined worker and Volta's own decision cost a KernelBench check: `check()` in this process against
`confined.run()` (fork, confinement, audit hook, snapshots, the check in the worker, JSON and the evidence back,
and `isolation/verify.py` re-deciding a passing verdict here), best of N. CPU seconds of this process (wall time
says little on a shared machine): `check()` here is about what the worker spends (a worker in a PID namespace
is not reaped with its CPU time counted, so it is not read), and what this process spends during
`confined.run()` is the cost the decision outside the worker adds.

    python benchmarks/bench_kb_confined.py [examples/kernelbench/l1_relu eq_dispatch_grid_stride.py] [N]
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from volta.exec import limits
from volta.kernelbench.check import check
from volta.kernelbench.isolation import confined

ROOT = Path(__file__).resolve().parents[1]


def best(run, n: int) -> tuple[float, float]:
    """(CPU s, wall s) of this process in the cheapest of n runs."""
    runs = []
    for _ in range(n):
        cpu, wall = time.process_time(), time.perf_counter()
        run()
        runs.append((time.process_time() - cpu, time.perf_counter() - wall))
    return min(runs)


def main() -> None:
    folder = ROOT / (sys.argv[1] if len(sys.argv) > 1 else "examples/kernelbench/l1_relu")
    candidate = folder / (sys.argv[2] if len(sys.argv) > 2 else "eq_dispatch_grid_stride.py")
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    problem = str(folder / "problem.py")
    with limits.using():
        inside, inside_wall = best(lambda: check(problem, str(candidate)), n)
        parent, wall = best(lambda: confined.run(problem, str(candidate), {}, {}), n)
    print(f"{candidate.relative_to(ROOT)}: check() in this process {inside:.2f} CPU s ({inside_wall:.2f} s wall); "
          f"confined.run() {wall:.2f} s wall, of which Volta's own process {parent:.2f} CPU s (the reference, the "
          f"comparisons, decoding; best of {n}; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
