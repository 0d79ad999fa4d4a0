"""Replay a 1024×1024×1024 bf16 GEMM with the Hopper tensor-core model (f32 accumulator, groups of 16 over K).

Prints products per second and seconds. Target ≥ 1.3e8 products/s on a 2-core machine.
Usage: python benchmarks/bench_mma.py [M N K] [--workers W]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from volta.numerics.mma_vec import mma


def random_bf16(rng: np.random.Generator, shape) -> np.ndarray:
    """Random finite bf16 words spanning several binades, both signs."""
    sign = rng.integers(0, 2, size=shape) << 15
    exp = rng.integers(127 - 8, 127 + 8, size=shape) << 7
    man = rng.integers(0, 128, size=shape)
    return (sign | exp | man).astype(np.uint16)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dims", nargs="*", type=int, default=[1024, 1024, 1024])
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="threads over row blocks")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    m, n, k = (args.dims + [1024] * 3)[:3] if len(args.dims) < 3 else args.dims[:3]
    rng = np.random.default_rng(args.seed)
    a, b = random_bf16(rng, (m, k)), random_bf16(rng, (k, n))
    c = np.zeros((m, n), dtype=np.uint32)
    t0 = time.perf_counter()
    d = mma(a, b, c, "hopper", "bf16", "f32", workers=args.workers)
    dt = time.perf_counter() - t0
    products = m * n * k
    print(f"hopper bf16->f32 GEMM {m}x{n}x{k}: {dt:.2f} s, {products / dt:.3g} products/s "
          f"(checksum {int(d.astype(np.uint64).sum()) & 0xFFFFFFFF:08x})")


if __name__ == "__main__":
    main()
