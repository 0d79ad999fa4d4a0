"""LLM-written KernelBench solutions that passed on a GPU, through `volta kernelbench`: no false alarm allowed.

    python benchmarks/bench_kb_leaderboard.py SOLUTIONS KERNELBENCH [--level 1] [--sample 30] [--seed 0]
        [--timeout 120] [--only FILE ...]

SOLUTIONS is a checkout of a public KernelBench leaderboard (anneouyang/KernelBenchLeaderboard:
`docs/assets/raw_data.json` lists each solution's level, problem id, model and code; the leaderboard shows only
solutions that KernelBench's GPU harness judged correct, with their speed-ups). KERNELBENCH is a checkout of
ScalingIntelligence/KernelBench (the problems), read as it was when the leaderboard was made (its git history: the
last commit before `raw_data.json`'s; problems were renamed and rewritten since). Neither is copied into this
repository: the code is written to a temporary folder and run from there.

Each solution runs in its own process as a CI user runs it (`python -m volta kernelbench PROBLEM CANDIDATE
--json -q --timeout T`). Every solution passed KernelBench's randomized test, so the verdicts Volta may give
are EQUIVALENT, WITHIN TOLERANCE, UNSUPPORTED/UNKNOWN (it claims nothing), or a finding that the random test
could not see (a race that did not fire, a tail the test sizes never reach) — the last must be read by hand and
is listed with its first line. Prints one row per solution (verdict, wall, CPU of the child) and a summary.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def solutions(root: Path, level: int | None) -> list[dict]:
    rows = json.loads((root / "docs" / "assets" / "raw_data.json").read_text())
    return [r for r in rows if level is None or r["level"] == level]


def snapshot(solutions_root: Path, kernelbench: Path) -> str | None:
    """The KernelBench commit the leaderboard was judged against: the last one before the leaderboard's
    `raw_data.json` was committed (problems have been renamed and rewritten since: level 2's 41 was
    `..._GroupNorm_Mean_ReLU`, a solution for it takes `num_groups`). None when either checkout has no history."""
    def git(repo: Path, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""
    made = git(solutions_root, "log", "-1", "--format=%cI", "--", "docs/assets/raw_data.json")
    return (git(kernelbench, "log", "-1", f"--before={made}", "--format=%H") or None) if made else None


def problem_file(kernelbench: Path, level: int, problem_id: int, commit: str | None, folder: Path) -> Path | None:
    """The problem a solution answers (the leaderboard counts problems from 0, KernelBench's files from 1): as
    KernelBench held it at `commit`, written to `folder`; without a commit, the checkout's file, or None where
    the checkout's level 1 has replaced it (`KernelBench/changelog/original_files.txt` lists the first names) —
    never checked against another problem."""
    number = problem_id + 1
    if commit is not None:
        listed = subprocess.run(["git", "-C", str(kernelbench), "ls-tree", "--name-only", commit,
                                 f"KernelBench/level{level}/"], capture_output=True, text=True).stdout.split()
        found = [n for n in listed if Path(n).name.startswith(f"{number}_") and n.endswith(".py")]
        if not found:
            return None
        path = folder / f"level{level}" / Path(found[0]).name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(subprocess.run(["git", "-C", str(kernelbench), "show", f"{commit}:{found[0]}"],
                                        capture_output=True, check=True).stdout)
        return path
    found = sorted((kernelbench / "KernelBench" / f"level{level}").glob(f"{number}_*.py"))
    if not found:
        return None
    original = kernelbench / "KernelBench" / "changelog" / "original_files.txt"
    if level == 1 and original.exists():
        raw = original.read_bytes()
        names = raw.decode("utf-16" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8").split()
        first = [n for n in names if n.startswith(f"{number}_")]
        if first and first[0] != found[0].name:
            return None
    return found[0]


def run_one(problem: Path, code: str, timeout: float, folder: Path, name: str) -> dict:
    candidate = folder / f"{name}.py"
    candidate.write_text(code)
    cmd = [sys.executable, "-m", "volta", "kernelbench", str(problem), str(candidate), "--json", "-q",
           "--timeout", str(timeout)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=2 * timeout + 60)
        code_, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        code_, out, err = None, "", "killed past twice the timeout"
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    verdict, detail = "error", (err.strip().splitlines() or ["(no output)"])[-1]
    try:
        report = json.loads(out)
        verdict = report.get("verdict", "error")
        detail = _first_reason(report)
    except json.JSONDecodeError:
        if detail.startswith("unknown: --timeout"):   # the whole check ran out: the command prints no report
            verdict = "unknown"
    return {"verdict": verdict, "exit": code_, "wall": wall, "cpu": cpu, "detail": detail}


def _first_reason(report: dict) -> str:
    """Why the verdict is what it is, in one line: the reason a check stopped (UNSUPPORTED, UNKNOWN, REJECTED:
    the notes then only say where it was decided), else the first finding or note."""
    stopped = report.get("unsupported")
    if isinstance(stopped, dict) and stopped.get("message"):
        return str(stopped["message"])[:160]
    for key in ("findings", "notes"):
        items = report.get(key) or []
        if items:
            first = items[0]
            return (first.get("message") or first.get("kind") or str(first))[:160] if isinstance(first, dict) \
                else str(first)[:160]
    return str(report.get("reason") or report.get("summary") or "")[:160]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("solutions", type=Path)
    ap.add_argument("kernelbench", type=Path)
    ap.add_argument("--level", type=int, default=1)
    ap.add_argument("--sample", type=int, default=30, help="how many solutions, drawn with --seed (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--only", nargs="*", help="solution file names (the leaderboard's `file` field)")
    args = ap.parse_args(argv)

    rows = solutions(args.solutions, args.level)
    if args.only:
        rows = [r for r in rows if r["file"] in set(args.only)]
    elif args.sample:
        rows = random.Random(args.seed).sample(rows, min(args.sample, len(rows)))
    counts, total_cpu = Counter(), 0.0
    commit = snapshot(args.solutions, args.kernelbench)
    print(f"problems: KernelBench at {commit[:12]}, the leaderboard's time" if commit else
          "problems: the KernelBench checkout as it is (no history to find the leaderboard's time)")
    print(f"{'solution':34} {'problem':44} {'verdict':22} {'wall s':>7} {'cpu s':>7}")
    with tempfile.TemporaryDirectory(prefix="volta-leaderboard-") as tmp:
        for row in rows:
            problem = problem_file(args.kernelbench, row["level"], row["problem_id"], commit, Path(tmp))
            if problem is None:
                print(f"{row['file']:34} level {row['level']} problem {row['problem_id'] + 1}: not in the checkout"
                      + ("" if commit else ", or replaced since the leaderboard was made"))
                continue
            got = run_one(problem, row["code"], args.timeout, Path(tmp), row["file"])
            counts[got["verdict"]] += 1
            total_cpu += got["cpu"]
            print(f"{row['file']:34} {problem.stem[:44]:44} {got['verdict']:22} {got['wall']:7.1f} {got['cpu']:7.1f}"
                  + ("" if got["verdict"] in ("equivalent", "within-tolerance") else f"  {got['detail']}"),
                  flush=True)
    print(f"\n{sum(counts.values())} solutions ({row_models(rows)}): "
          + ", ".join(f"{v} {k}" for k, v in counts.most_common()) + f"; CPU {total_cpu:.0f} s in all")


def row_models(rows: list[dict]) -> str:
    return ", ".join(f"{n} by {m}" for m, n in Counter(r["display_name"] for r in rows).most_common())


if __name__ == "__main__":
    main()
