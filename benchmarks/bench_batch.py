"""`volta batch` throughput: jobs per minute for N small jobs (default 200), local process pool vs local Ray.

    python benchmarks/bench_batch.py [--jobs 200] [--workers 2] [--no-ray]

The jobs cycle through four small examples: races on vector_add (clean) and on bug_reduce_tree_nosync (a race),
races on the Triton off-by-one add (out of bounds), and a check of the Triton vector add against the CUDA one
(equivalent). Both back ends run every job in its own forked process (per-job timeout and memory limit); Ray
starts a local instance with num_cpus = workers, and its start-up is timed separately.
"""
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from volta.batch import run_batch  # noqa: E402

E = ROOT / "examples"
VA = {"x": "f32[500]:in", "y": "f32[500]:in", "out": "f32[500]:out"}
KINDS = [
    {"command": "races", "kernel": str(E / "vector_add" / "kernel.sm80.ptx"), "grid": "4", "block": "128",
     "args": ["x", "y", "out", 500], "buffers": VA},
    {"command": "races", "manifest": str(E / "bug_reduce_tree_nosync" / "manifest.toml")},
    {"command": "races", "kernel": str(E / "triton" / "add_offbyone.b128.w4.sm80.ptx"), "grid": "4", "block": "128",
     "args": ["x", "y", "out", 500, 0, 0], "buffers": VA},
    {"ref": str(E / "vector_add" / "kernel.sm80.ptx"), "opt": str(E / "triton" / "add.b128.w4.sm80.ptx"),
     "grid": "4", "block": "128", "args": ["x", "y", "out", 500], "opt_args": ["x", "y", "out", 500, 0, 0],
     "buffers": VA},
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--no-ray", action="store_true")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="volta-bench-batch-"))
    jobs = tmp / "jobs.jsonl"
    jobs.write_text("".join(json.dumps({"id": f"j{i}", **KINDS[i % len(KINDS)]}) + "\n" for i in range(a.jobs)))
    print(f"{a.jobs} jobs, {a.workers} workers, {os.cpu_count()} CPUs")
    rows = []
    s = run_batch(str(jobs), workers=a.workers, out=str(tmp / "pool.jsonl"))
    rows.append(("local pool", s, 0.0))
    if not a.no_ray:
        try:
            import logging

            import ray
        except ImportError:
            print("ray not installed: pip install 'volta[ray]'")
        else:
            t = time.perf_counter()
            ray.init(num_cpus=a.workers, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
            startup = time.perf_counter() - t
            try:
                s = run_batch(str(jobs), out=str(tmp / "ray.jsonl"), use_ray=True)
            finally:
                ray.shutdown()
            rows.append(("local Ray", s, startup))
    print(f"{'back end':<12} {'jobs':>5} {'seconds':>8} {'jobs/min':>9} {'start-up s':>11}  verdicts")
    for name, s, startup in rows:
        verdicts = {}
        for r in s.results:
            verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        rate = 60 * len(s.results) / s.seconds if s.seconds else 0
        print(f"{name:<12} {len(s.results):>5} {s.seconds:>8.1f} {rate:>9.0f} {startup:>11.1f}  "
              + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))


if __name__ == "__main__":
    main()
