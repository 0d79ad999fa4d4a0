"""`volta triton` on the launcher cases of examples/triton/launchers/cases.toml, one process each.

    python benchmarks/bench_triton_launchers.py                 # every case
    python benchmarks/bench_triton_launchers.py rms geglu       # cases whose name contains a word
    python benchmarks/bench_triton_launchers.py --timeout 600

Each case runs `python -m volta triton LAUNCHER --ref REF [--size ...] --json -q` in its own process; the
script prints the verdict against the expectation, the seconds of the launches (execution, races, bits) and
of the whole check as the JSON gives them, the process's CPU seconds (user + system: the figure that does not
depend on the machine's load, imports included) and its peak RSS.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "examples" / "triton" / "launchers"
# the child runs the CLI, then reports its own CPU seconds and peak RSS on stderr's last line
CHILD = ("import json, resource, sys\nfrom volta.cli import run\ncode = run(sys.argv[1:])\n"
         "u = resource.getrusage(resource.RUSAGE_SELF)\n"
         "print(json.dumps({'cpu': u.ru_utime + u.ru_stime, 'rss': u.ru_maxrss}), file=sys.stderr)\n"
         "sys.exit(code)")


def run_case(case: dict, timeout: float) -> dict:
    sizes = [a for name, value in case.get("sizes", {}).items() for a in ("--size", f"{name}={value}")]
    argv = [sys.executable, "-c", CHILD, "triton", str(HERE / case["launcher"]), "--ref", str(HERE / case["ref"]),
            *sizes, "--json", "-q"]
    usage = {"cpu": float("nan"), "rss": 0}
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        data = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {"verdict": "error"}
        usage = json.loads(done.stderr.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        data = {"verdict": "timeout"}
    return {"name": case["name"], "expect": case["expect"], "verdict": data.get("verdict"),
            "launch_s": sum(x.get("seconds", 0) for x in data.get("launches", [])),
            "check_s": data.get("seconds"), "cpu_s": usage["cpu"], "rss_mb": usage["rss"] / 1024}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("words", nargs="*", help="only cases whose name contains one of these")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per case")
    args = parser.parse_args()
    cases = tomllib.loads((HERE / "cases.toml").read_text())["case"]
    cases = [c for c in cases if not args.words or any(w in c["name"] for w in args.words)]
    print(f"{'case':34} {'verdict':16} {'expected':16} {'launches s':>10} {'check s':>8} {'CPU s':>7} {'RSS MB':>7}")
    wrong = 0
    for case in cases:
        r = run_case(case, args.timeout)
        wrong += r["verdict"] != r["expect"]
        check = f"{r['check_s']:.1f}" if r["check_s"] is not None else "-"
        print(f"{r['name']:34} {r['verdict']:16} {r['expect']:16} {r['launch_s']:10.2f} {check:>8} "
              f"{r['cpu_s']:7.1f} {r['rss_mb']:7.0f}", flush=True)
    print(f"{len(cases) - wrong}/{len(cases)} as expected")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
