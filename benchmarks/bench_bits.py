"""Time `compare_bits` (bit-exact `volta check --fp`) on the GEMM pairs; print output elements compared per second.

Usage: python benchmarks/bench_bits.py [--fp ieee] [--trials 2]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from volta.equiv.bits import compare_bits
from volta.launch.spec import load_manifest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PAIRS = sorted(p.parent.name for p in EXAMPLES.glob("eq_gemm_*/manifest.toml"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fp", default="ieee")
    ap.add_argument("--trials", type=int, default=2)
    args = ap.parse_args()
    for name in PAIRS:
        spec = load_manifest(EXAMPLES / name / "manifest.toml")
        start = time.perf_counter()
        r = compare_bits(spec, fp=args.fp, trials=args.trials)
        s = time.perf_counter() - start
        print(f"{name:28s} {r.verdict:14s} {r.compared:7d} elements  {r.thread_instructions:10d} thread-instr  "
              f"{s:6.2f} s  {r.compared / s:9.0f} elements/s  {r.thread_instructions / s / 1e6:5.2f} M instr/s")


if __name__ == "__main__":
    main()
