"""Build and compare a GEMM's outputs symbolically, two ways: lane polynomials and per-lane DAGs.

Kernel 1 accumulates k = 0..K-1; kernel 2 accumulates in 32-wide tiles, each tile reversed
(a reassociation). Both must compare equal. Prints seconds for each phase; the DAG path runs
as many output elements as fit in its budget and extrapolates to all of them.

Usage: python benchmarks/bench_symbolic.py [N] [DAG_BUDGET_S]   (default 256, 30)
"""
from __future__ import annotations

import sys
import time

import numpy as np

from volta.symbolic import expr as E
from volta.symbolic.lanepoly import LanePoly
from volta.symbolic.normal import Normalizer, equal


def orders(k: int) -> tuple[list[int], list[int]]:
    tiled = [kk for t in range(0, k, 32) for kk in reversed(range(t, min(t + 32, k)))]
    return list(range(k)), tiled


def lane_gemm(n: int, order: list[int]) -> LanePoly:
    lane = np.arange(n * n)
    i, j = lane // n, lane % n
    acc = LanePoly.constant(0, n * n)
    for kk in order:
        acc = acc + LanePoly.leaf("A", i * n + kk) * LanePoly.leaf("B", kk * n + j)
    return acc


def dag_element(n: int, i: int, j: int, order: list[int]) -> E.Expr:
    acc = E.ZERO
    for kk in order:
        acc = E.fma(E.var("A", i * n + kk), E.var("B", kk * n + j), acc)
    return acc


def main(n: int = 256, budget: float = 30.0) -> None:
    fwd, tiled = orders(n)
    t0 = time.perf_counter()
    p1, p2 = lane_gemm(n, fwd), lane_gemm(n, tiled)
    t1 = time.perf_counter()
    same = p1.equals(p2)
    t2 = time.perf_counter()
    print(f"GEMM {n}x{n}x{n}: {n * n} outputs, {n} terms each")
    print(f"lane polynomials: build {t1 - t0:.2f} s, normalize+compare {t2 - t1:.2f} s, equal={same}")

    norm = Normalizer()
    done, build_s, cmp_s = 0, 0.0, 0.0
    start = time.perf_counter()
    while done < n * n and time.perf_counter() - start < budget:
        i, j = divmod(done, n)
        a = time.perf_counter()
        e1, e2 = dag_element(n, i, j, fwd), dag_element(n, i, j, tiled)
        b = time.perf_counter()
        assert equal(norm(e1), norm(e2))
        norm.clear()
        c = time.perf_counter()
        build_s, cmp_s, done = build_s + b - a, cmp_s + c - b, done + 1
    scale = n * n / done
    print(f"per-lane DAGs: {done} outputs in {build_s + cmp_s:.2f} s "
          f"(build {build_s:.2f}, normalize+compare {cmp_s:.2f}); "
          f"all {n * n}: ~{(build_s + cmp_s) * scale:.0f} s extrapolated; {E.node_count()} nodes")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 256, float(args[1]) if len(args) > 1 else 30.0)
