#!/usr/bin/env python3
"""Compare a real GPU GEMM with `volta run --fp ARCH`, bit for bit, on random tiles.

Builds examples/gemm_mma_sync (mma.sync m16n8k16, f16 in, f32 accumulate, K = 64: four chained mma per output)
with the host driver gemm_host.cu, runs it on --tiles random inputs, saves each tile's inputs and the GPU's C
as .npz, replays the same inputs with `volta run examples/gemm_mma_sync/manifest.toml --fp ARCH`, and prints
the number of differing f32 words per tile and in total. Exit 0 when no word differs, 1 otherwise.

    python3 examples/probes/compare_gemm.py --arch hopper --tiles 20 --out results/gemm-h100
    python3 examples/probes/compare_gemm.py --arch ampere --gpu-out results/gemm-a100   # re-compare saved runs

Inputs per tile (seeded): f16 words with random signs, exponents in [-6, 6] and full random significands, so that
cancellation and per-term truncation both show; tile 0 also puts exact cancelling pairs in.
Needs numpy, and volta on PATH (or importable); building needs nvcc, running needs a GPU.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CASE = HERE.parent / "gemm_mma_sync"
M, N, K = 32, 32, 64  # the manifest's launch: grid 2x2, block 64


def random_tile(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)

    def words(n):
        sign = rng.integers(0, 2, n) << 15
        exp = rng.integers(-6, 7, n) + 15
        return (sign | (exp << 10) | rng.integers(0, 1024, n)).astype(np.uint16)

    A, B = words(M * K), words(K * N)
    if seed == 0:  # exact cancellation inside a k16 block: row r of A, column 0 of B
        A2, B2 = A.reshape(M, K), B.reshape(K, N)
        A2[:, 1] = A2[:, 0]
        B2[1, :] = B2[0, :] ^ 0x8000
    return A.view(np.float16), B.view(np.float16)


def volta_cmd() -> list[str]:
    exe = shutil.which("volta")
    return [exe] if exe else [sys.executable, "-m", "volta"]


def build(nvcc: str, arch: str, out: Path) -> Path:
    sm = {"ampere": "sm_80", "ada": "sm_89", "hopper": "sm_90", "blackwell": "sm_100"}.get(arch, arch)
    exe = out / "gemm_probe"
    cmd = [nvcc, "-O2", f"-arch={sm}", "-o", str(exe), str(HERE / "gemm_host.cu")]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return exe


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", required=True, help="the GPU's architecture: ampere, ada, hopper, blackwell")
    ap.add_argument("--tiles", type=int, default=10, help="random tiles (seeds 0..N-1)")
    ap.add_argument("--out", default=None, help="where inputs and outputs go (default examples/probes/results/gemm-ARCH)")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/bin/nvcc")
    ap.add_argument("--binary", help="a gemm_probe built earlier (skips nvcc)")
    ap.add_argument("--gpu-only", action="store_true", help="run the GPU and save tileN.npz, replay later with "
                    "--gpu-out (the GPU machine needs no volta)")
    ap.add_argument("--gpu-out", help="compare GPU outputs saved earlier in this folder (tileN.npz); no GPU needed")
    a = ap.parse_args(argv)
    out = Path(a.gpu_out or a.out or HERE / "results" / f"gemm-{a.arch}")
    out.mkdir(parents=True, exist_ok=True)
    exe = None
    if not a.gpu_out:
        exe = Path(a.binary) if a.binary else build(a.nvcc, a.arch, out)
    total = 0
    for t in range(a.tiles):
        tile = out / f"tile{t}.npz"
        if a.gpu_out:
            with np.load(tile) as z:
                A, B, C_gpu = z["A"], z["B"], z["C"]
        else:
            A, B = random_tile(t)
            A.view(np.uint16).tofile(out / "A.bin")
            B.view(np.uint16).tofile(out / "B.bin")
            subprocess.run([str(exe), str(out / "A.bin"), str(out / "B.bin"), str(out / "C.bin"), str(M), str(N),
                            str(K)], check=True)
            C_gpu = np.fromfile(out / "C.bin", dtype=np.float32)
            np.savez(tile, A=A, B=B, C=C_gpu)  # inputs and the GPU's output
            if a.gpu_only:
                continue
        inputs = out / f"tile{t}.in.npz"
        np.savez(inputs, A=A.view(np.float16), B=B.view(np.float16))
        model = out / f"tile{t}.volta-{a.arch}.npz"
        subprocess.run(volta_cmd() + ["run", str(CASE / "manifest.toml"), "--inputs", str(inputs), "--out",
                                      str(model), "--fp", a.arch, "--no-races"], check=True, capture_output=True)
        with np.load(model) as z:
            C_model = z["C"]
        g, m = C_gpu.view(np.uint32), C_model.astype(np.float32).view(np.uint32)
        diff = int(np.count_nonzero(g != m))
        total += diff
        line = f"tile {t}: {diff} of {g.size} words differ"
        if diff:
            i = int(np.flatnonzero(g != m)[0])
            line += f" (first: C[{i}] gpu {g[i]:08x} volta {m[i]:08x})"
        print(line)
    print(f"total: {total} differing words over {a.tiles} tiles of {M}x{N} (K={K}), volta run --fp {a.arch}")
    return 0 if total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
