"""What the confined worker and Volta's own decision cost a KernelBench check: `check()` alone against
`confined.run()` (fork, confinement, audit hook, snapshots, the check in the worker, JSON and the evidence back,
and `isolation/verify.py` re-deciding a passing verdict here), best of N, in CPU seconds (wall time says little
on a shared machine). `check()` runs in a forked child (its CPU read from `wait4`, and no expression it makes
is interned here first). What this process spends during `confined.run()` is the reference (run here only,
since the worker's first run has none) and the decision; the workers' CPU is read from this process's reaped
children (`RUSAGE_CHILDREN`: a worker's job process counts where its PID namespace's first process reaped it
before Volta's kill, so that figure is a lower bound). A candidate NOT EQUIVALENT at call 1 runs once (the
difference confirmed by re-running it in its worker on request: docs/sandbox.md, "Two runs").

    python benchmarks/bench_kb_confined.py [examples/kernelbench/l1_relu eq_dispatch_grid_stride.py] [N]
"""
from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))     # this checkout's volta, not an installed one

from volta.exec import limits  # noqa: E402
from volta.kernelbench.check import CheckOptions, check  # noqa: E402
from volta.kernelbench.isolation import confined  # noqa: E402


def alone(run) -> float:
    """CPU s of `run()` in a forked child."""
    pid = os.fork()
    if pid == 0:
        try:
            run()
        finally:
            os._exit(0)
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def best(run, n: int) -> tuple[float, float, float]:
    """(CPU s of this process, wall s, CPU s of its reaped children) in the cheapest of n runs."""
    runs = []
    for _ in range(n):
        cpu, wall, children = time.process_time(), time.perf_counter(), children_cpu()
        run()
        runs.append((time.process_time() - cpu, time.perf_counter() - wall, children_cpu() - children))
    return min(runs)


def main() -> None:
    folder = ROOT / (sys.argv[1] if len(sys.argv) > 1 else "examples/kernelbench/l1_relu")
    candidate = folder / (sys.argv[2] if len(sys.argv) > 2 else "eq_dispatch_grid_stride.py")
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    problem = str(folder / "problem.py")
    with limits.using():
        verdicts = []
        parent, wall, workers = best(lambda: verdicts.append(confined.run(problem, str(candidate), {}, CheckOptions()).verdict), n)
        inside = min(alone(lambda: check(problem, str(candidate))) for _ in range(n))
    print(f"{candidate.relative_to(ROOT)}: check() {inside:.2f} CPU s; confined.run() {wall:.2f} s wall, of which "
          f"Volta's own process {parent:.2f} CPU s (the decision: its reference, the comparisons, decoding; best of "
          f"{n}; load {os.getloadavg()[0]:.1f}; verdicts {', '.join(sorted(set(verdicts)))}); its workers "
          f"{workers:.2f} CPU s at least, {parent + workers:.2f} CPU s in all")


if __name__ == "__main__":
    main()
