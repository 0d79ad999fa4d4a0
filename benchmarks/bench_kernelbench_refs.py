"""Benchmark the symbolic run of KernelBench references (issue 31): every level-1 and level-2 problem's
`Model.forward` on the torch stand-in at the default (scaled) sizes, each in a fresh process with a timeout.

    python benchmarks/bench_kernelbench_refs.py /path/to/KernelBench             # levels 1 and 2
    python benchmarks/bench_kernelbench_refs.py /path/to/KernelBench --levels 1 --only conv --timeout 60

Prints per problem: the outcome (ok / UNSUPPORTED with the op and line / error), seconds (load: sizes and
the symbolic setup; forward: the symbolic reference), the dry run's element operations, the expression nodes
the run interned, and the sizes scaled; then the count per level, the slowest problems and the unsupported
ops. The problems stay in their checkout (never copied here).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_one(path: str, budget: int | None) -> dict:
    """Load one problem and run its reference; the outcome as a JSON-able dict (in the child process)."""
    sys.path.insert(0, str(ROOT))
    from volta.errors import Unsupported, VoltaError
    from volta.kernelbench.problem import DEFAULT_BUDGET, load_problem
    from volta.symbolic import expr as E

    start = time.perf_counter()
    nodes = E.node_count()
    record = {"path": path}
    try:
        problem = load_problem(path, budget=budget or DEFAULT_BUDGET)
        record["load_s"] = time.perf_counter() - start
        middle = time.perf_counter()
        outputs = problem.reference_outputs()
        record["forward_s"] = time.perf_counter() - middle
        record.update(outcome="ok", cost=problem.cost, outputs=[list(o.shape) for o in outputs],
                      sizes=[f"{c.name}={c.original}->{c.value}" for c in problem.scaled])
    except Unsupported as error:
        record.update(outcome="unsupported", message=str(error))
    except VoltaError as error:
        record.update(outcome="error", message=str(error))
    except Exception as error:    # a bug of the stand-in: reported, the benchmark goes on
        record.update(outcome="error", message=f"{type(error).__name__}: {error}")
    record["seconds"] = time.perf_counter() - start
    record["nodes"] = E.node_count() - nodes
    return record


def problems(kernelbench: Path, levels: list[int], only: str | None) -> list[Path]:
    found = []
    for level in levels:
        folder = kernelbench / "KernelBench" / f"level{level}"
        if not folder.is_dir():
            folder = kernelbench / f"level{level}"
        files = sorted(folder.glob("*.py"), key=lambda p: int(p.name.split("_")[0]) if p.name[0].isdigit() else 0)
        found += [p for p in files if only is None or re.search(only, p.name)]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kernelbench", nargs="?", help="a KernelBench checkout")
    parser.add_argument("--levels", default="1,2")
    parser.add_argument("--only", help="a regular expression on file names")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per problem")
    parser.add_argument("--budget", type=int, help="element operations per reference (problem.DEFAULT_BUDGET)")
    parser.add_argument("--json", help="write every record to this file")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.budget)))
        return
    if not args.kernelbench:
        parser.error("give the path of a KernelBench checkout")
    records = []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for path in problems(Path(args.kernelbench), [int(x) for x in args.levels.split(",")], args.only):
        command = [sys.executable, __file__, "--one", str(path)] + (["--budget", str(args.budget)] if args.budget else [])
        start = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, env=env)
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            record = json.loads(lines[-1]) if lines else {
                "path": str(path), "outcome": "error", "message": (done.stderr.strip().splitlines() or ["?"])[-1]}
        except subprocess.TimeoutExpired:
            record = {"path": str(path), "outcome": "timeout", "message": f"over {args.timeout:.0f} s"}
        record["wall_s"] = time.perf_counter() - start
        record["level"] = path.parent.name
        records.append(record)
        print(_line(record), flush=True)
    _summary(records)
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))


def _line(r: dict) -> str:
    name = f"{r['level']}/{Path(r['path']).name}"[:62]
    if r["outcome"] == "ok":
        return (f"{name:62} ok      {r['seconds']:6.2f} s (forward {r['forward_s']:5.2f})  ops {r['cost']:>8} "
                f"nodes {r['nodes']:>8}  {' '.join(r['sizes'])}")
    return f"{name:62} {r['outcome']:7} {r.get('seconds', r['wall_s']):6.2f} s  {r.get('message', '')[:160]}"


def _summary(records: list[dict]) -> None:
    print()
    for level in sorted({r["level"] for r in records}):
        mine = [r for r in records if r["level"] == level]
        counts = collections.Counter(r["outcome"] for r in mine)
        print(f"{level}: {counts['ok']} / {len(mine)} ok, " + ", ".join(f"{k} {v}" for k, v in counts.items()
                                                                      if k != "ok"))
    done = sorted((r for r in records if r["outcome"] == "ok"), key=lambda r: -r["seconds"])
    if done:
        times = sorted(r["seconds"] for r in done)
        print(f"seconds per ok problem: median {times[len(times) // 2]:.2f}, max {times[-1]:.2f}")
        print("slowest: " + ", ".join(f"{r['level']}/{Path(r['path']).name.split('_')[0]} {r['seconds']:.1f} s"
                                      for r in done[:8]))
    ops = collections.Counter()
    for r in records:
        if r["outcome"] != "ok":
            ops[re.sub(r"^.*?unsupported: ", "", r.get("message", ""))[:100]] += 1
    for message, count in ops.most_common():
        print(f"  {count:3} x {message}")


if __name__ == "__main__":
    main()
