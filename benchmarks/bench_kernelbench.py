"""KernelBench through `volta kernelbench`: how many references are read, and candidates decided, with times.

    python benchmarks/bench_kernelbench.py refs PATH [--level 1 2] [--only WORD ...] [--timeout 120]
    python benchmarks/bench_kernelbench.py cands PATH [--only WORD ...] [--timeout 300]

PATH is a checkout of ScalingIntelligence/KernelBench (its problems stay there, never in this repository).

`refs` runs every problem's `Model.forward` symbolically at the default sizes (each size global scaled down,
`volta/kernelbench/sizes.py`), each in its own process: read (with the output elements and the sizes chosen),
UNSUPPORTED (the op and the problem's line), or an error/timeout; then the count per level and the time per
problem.

`cands` runs our own candidates (examples/kernelbench/*/, written the way LLM candidates are) against the
KernelBench problem they answer (the table `CANDIDATES`), through the command line as a CI user runs it
(`python -m volta kernelbench PROBLEM CANDIDATE --json -q`, no flag but sizes), and prints the verdict, the
expected verdict (the candidate's expect.toml) and the wall seconds of the process (the nvcc build is cached
after the first run of a candidate: the script runs each once, so a cold cache shows in the figure).

Figures of 2026-12-07, 2 cores shared with other sessions at a load average of 22-27 (so wall seconds are
several times what an idle machine gives; 90 s per problem):
- refs level 1: 95/100 read, 5 timeouts (3D average pooling and four 3D transposed convolutions); median
  8.1 s, max 90 s, 1,389 s in all.
- refs level 2: 93/100 read, 4 timeouts (3D transposed convolutions), 2 UNSUPPORTED (dropout in training mode:
  random), 1 error (6_Conv3d_Softmax_MaxPool_MaxPool: the scaled sizes leave its second max_pool3d an empty
  output; the size policy should keep such chains valid); median 11.8 s, 2,142 s in all.
- cands, 7 of our candidates against the real problems (4 wrong): 5/7 as expected: 19_ReLU grid-stride
  EQUIVALENT 142 s; LeakyReLU wrong slope, Softmax partial sum, GELU tanh-for-erf, matmul B transposed NOT
  EQUIVALENT 62-130 s; LeakyReLU and erf-GELU correct ones past the 300 s limit under that load (no verdict).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))   # this checkout's volta, not an installed one
EXAMPLES = REPO / "examples" / "kernelbench"

# our corpus directory -> the KernelBench problem its candidates answer (same forward, inputs and parameters)
CANDIDATES = {
    "l1_relu": "level1/19_ReLU.py",
    "l1_leaky_relu": "level1/20_LeakyReLU.py",
    "l1_softmax": "level1/23_Softmax.py",
    "l1_gelu": "level1/26_GELU_.py",
    "l1_matmul": "level1/1_Square_matrix_multiplication_.py",
    "l1_matvec": "level1/4_Matrix_vector_multiplication_.py",
    "l1_bmm": "level1/3_Batched_matrix_multiplication.py",
    "l1_scalar_mul": "level1/5_Matrix_scalar_multiplication.py",
    "l1_hardtanh": "level1/32_HardTanh.py",
}


# ---- refs -------------------------------------------------------------------------------------------------

def _read_reference(path: str, conn) -> None:
    """In the child: load the problem at default sizes and run its reference; send one summary dict."""
    from volta.errors import VoltaError
    from volta.kernelbench.problem import load_problem

    start = time.perf_counter()
    try:
        problem = load_problem(path)
        outs = problem.reference_outputs()
        out = {"status": "read", "elements": sum(len(o.values()) for o in outs),
               "sizes": ", ".join(f"{c.name}={c.value}" for c in problem.sizes)}
    except VoltaError as err:
        kind = "unsupported" if type(err).__name__ == "Unsupported" else "error"
        span = getattr(err, "span", None)
        where = f" (line {span.line})" if span is not None and span.line else ""
        out = {"status": kind, "why": " ".join(err.message.split())[:160] + where}
    except Exception as err:   # noqa: BLE001 - a reader bug is counted, not raised
        out = {"status": "error", "why": f"{type(err).__name__}: {' '.join(str(err).split())[:160]}"}
    out["seconds"] = time.perf_counter() - start
    conn.send(out)
    conn.close()


def read_one(path: Path, timeout: float) -> dict:
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_read_reference, args=(str(path), send), daemon=True)
    start = time.perf_counter()
    proc.start()
    send.close()
    out = recv.recv() if recv.poll(timeout) else None
    if out is None:
        proc.kill()
        out = {"status": "timeout", "why": f"over {timeout:g} s", "seconds": time.perf_counter() - start}
    proc.join(5)
    return out


def _problems(root: Path, level: int, only: list | None) -> list[Path]:
    files = sorted((root / "KernelBench" / f"level{level}").glob("*.py"),
                   key=lambda p: int(re.match(r"\d+", p.name)[0]) if re.match(r"\d+", p.name) else 0)
    return [p for p in files if not only or any(word.lower() in p.name.lower() for word in only)]


def refs(root: Path, levels: list[int], only: list | None, timeout: float) -> None:
    import volta.kernelbench.problem  # noqa: F401  (imported once, before the forks)

    for level in levels:
        counts: dict = {}
        seconds = []
        for path in _problems(root, level, only):
            r = read_one(path, timeout)
            counts[r["status"]] = counts.get(r["status"], 0) + 1
            seconds.append(r["seconds"])
            detail = f"{r['elements']} elements at {r['sizes']}" if r["status"] == "read" else r["why"]
            print(f"level{level} {path.name:60s} {r['status']:11s} {r['seconds']:7.2f} s  {detail}", flush=True)
        total = sum(counts.values())
        if total:
            seconds.sort()
            print(f"level{level}: {counts.get('read', 0)}/{total} read, " + ", ".join(
                f"{v} {k}" for k, v in sorted(counts.items()) if k != "read") +
                  f"; seconds per problem: median {seconds[len(seconds) // 2]:.2f}, max {seconds[-1]:.2f}, "
                  f"total {sum(seconds):.0f}", flush=True)


# ---- cands ------------------------------------------------------------------------------------------------

def cands(root: Path, only: list | None, timeout: float) -> None:
    rows = []
    for corpus, problem in CANDIDATES.items():
        expect = EXAMPLES / corpus / "expect.toml"
        for name, want in tomllib.loads(expect.read_text()).items():
            if only and not any(word in f"{corpus}/{name}" for word in only):
                continue
            cmd = [sys.executable, "-m", "volta", "kernelbench", str(root / "KernelBench" / problem),
                   str(EXAMPLES / corpus / f"{name}.py"), "--json", "-q"]
            for size, value in want.get("sizes", {}).items():
                cmd += ["--size", f"{size}={value}"]
            start = time.perf_counter()
            try:
                done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
                verdict = json.loads(done.stdout)["verdict"] if done.stdout.strip() else f"exit {done.returncode}"
            except subprocess.TimeoutExpired:
                verdict = "timeout"
            except json.JSONDecodeError:
                verdict = "no-json"
            seconds = time.perf_counter() - start
            ok = verdict == want["verdict"]
            rows.append((ok, seconds))
            print(f"{problem:50s} {corpus + '/' + name:40s} {verdict:15s} expected {want['verdict']:15s} "
                  f"{'ok ' if ok else 'BAD'} {seconds:6.1f} s", flush=True)
    if rows:
        times = sorted(s for _, s in rows)
        print(f"{sum(ok for ok, _ in rows)}/{len(rows)} candidates decided as expected; wall seconds median "
              f"{times[len(times) // 2]:.1f}, max {times[-1]:.1f}", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("refs", "cands"))
    ap.add_argument("path", type=Path, help="a checkout of ScalingIntelligence/KernelBench")
    ap.add_argument("--level", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--only", nargs="+", help="only problems (refs) or candidates (cands) whose name contains one "
                                              "of these words")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per problem (refs 120, cands 300)")
    args = ap.parse_args(argv)
    if not (args.path / "KernelBench" / "level1").is_dir():
        sys.exit(f"{args.path}: not a KernelBench checkout (no KernelBench/level1)")
    if args.mode == "refs":
        refs(args.path, args.level, args.only, args.timeout or 120)
    else:
        cands(args.path, args.only, args.timeout or 300)


if __name__ == "__main__":
    main()
