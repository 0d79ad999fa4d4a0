#!/usr/bin/env python3
"""How far volta's `.approx` model is from a GPU's special-function unit, per instruction, in ulps.

PTX documents only error bounds for ex2/lg2/rcp/sqrt/rsqrt/sin/cos/tanh.approx, so volta rounds the float64 libm
value to the destination (volta/numerics/approx.py). This probe measures that choice against real hardware:

    python3 examples/probes/approx_probe.py inputs --out approx_in.npz          # seeded operands (anywhere)
    python3 examples/probes/approx_probe.py gpu --inputs approx_in.npz --out approx_gpu.npz   # CuPy + NVRTC
    python3 examples/probes/approx_probe.py compare --inputs approx_in.npz --gpu approx_gpu.npz  # volta's model

`compare` prints, per instruction, how many results are identical, the histogram of ulp distances, the
largest one and an example operand. The operands mix random bit patterns (every class: subnormals, NaN,
infinities) with values spread over each function's useful range.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

N = 1 << 18
# instruction -> (operand ranges for the uniform half, binary?)
OPS = {
    "ex2.approx.f32": (-130.0, 130.0), "ex2.approx.ftz.f32": (-130.0, 130.0),
    "lg2.approx.f32": (0.0, 1e6), "lg2.approx.ftz.f32": (0.0, 1e6),
    "rcp.approx.f32": (-1e6, 1e6), "rcp.approx.ftz.f32": (-1e6, 1e6),
    "sqrt.approx.f32": (0.0, 1e6), "rsqrt.approx.f32": (0.0, 1e6), "rsqrt.approx.ftz.f32": (0.0, 1e6),
    "sin.approx.f32": (-100.0, 100.0), "cos.approx.f32": (-100.0, 100.0), "tanh.approx.f32": (-10.0, 10.0),
    "div.approx.f32": (-1e3, 1e3), "div.full.f32": (-1e3, 1e3),
}


def _key(op: str) -> str:
    return op.replace(".", "_")


def cmd_inputs(a) -> int:
    rng = np.random.default_rng(2026)
    arrays = {}
    for op, (lo, hi) in OPS.items():
        for k in ("x", "y") if op.startswith("div") else ("x",):
            bits = rng.integers(0, 1 << 32, N // 2, dtype=np.uint64).astype(np.uint32)
            uni = rng.uniform(lo, hi, N - N // 2).astype(np.float32).view(np.uint32)
            arrays[f"{_key(op)}.{k}"] = np.concatenate([bits, uni])
    np.savez(a.out, **arrays)
    return 0


# binade sweeps: every f32 operand in [lo, 2·lo), for reconstructing the unit's tables (exponent reduction is
# checked separately, on the random operands above)
SWEEPS = {"rcp.approx.ftz.f32": (1.0,), "rsqrt.approx.ftz.f32": (1.0, 2.0), "sqrt.approx.ftz.f32": (1.0, 2.0),
          "lg2.approx.ftz.f32": (1.0,), "ex2.approx.ftz.f32": (0.5, 1.0), "tanh.approx.f32": (0.5,)}


def _kernels(ops) -> str:
    src = ['extern "C" {']
    for op in ops:
        if op.startswith("div"):
            body = f'asm("{op} %0, %1, %2;" : "=f"(r) : "f"(x[i]), "f"(y[i]));'
        else:
            body = f'asm("{op} %0, %1;" : "=f"(r) : "f"(x[i]));'
        src.append(f"__global__ void k_{_key(op)}(const float* x, const float* y, float* out, int n) {{"
                   f" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) {{ float r; {body} out[i] = r; }} }}")
    src.append("}")
    return "\n".join(src)


def cmd_gpu(a) -> int:
    import cupy

    mod = cupy.RawModule(code=_kernels(list(OPS) + [op for op in SWEEPS if op not in OPS]))
    z = np.load(a.inputs)
    results = {}
    for op in OPS:
        x = cupy.asarray(z[f"{_key(op)}.x"].view(np.float32))
        y = cupy.asarray(z[f"{_key(op)}.y"].view(np.float32)) if op.startswith("div") else x
        out = cupy.zeros(N, np.float32)
        mod.get_function(f"k_{_key(op)}")(((N + 255) // 256,), (256,), (x, y, out, np.int32(N)))
        results[_key(op)] = cupy.asnumpy(out).view(np.uint32)
    np.savez_compressed(a.out, **results)
    print(f"{len(results)} instructions x {N} operands -> {a.out}")
    if a.sweep_out:
        sweeps = {}
        for op, starts in SWEEPS.items():
            for lo in starts:
                first = int(np.float32(lo).view(np.uint32))
                x = cupy.arange(first, first + (1 << 23), dtype=cupy.uint32).view(cupy.float32)
                out = cupy.zeros(x.size, np.float32)
                mod.get_function(f"k_{_key(op)}")(((x.size + 255) // 256,), (256,), (x, x, out, np.int32(x.size)))
                words = cupy.asnumpy(out).view(np.uint32).astype(np.int64)
                step = np.diff(words)  # a smooth function: small steps, which compress
                kind = np.int8 if np.abs(step).max() < 128 else np.int32
                sweeps[f"{_key(op)}@{lo}.first"] = np.array([words[0]], np.int64)
                sweeps[f"{_key(op)}@{lo}.step"] = step.astype(kind)
        np.savez_compressed(a.sweep_out, **sweeps)
        print(f"{len(sweeps) // 2} binade sweeps of 2^23 operands -> {a.sweep_out}")
    return 0


def sweep_words(z, op: str, lo: float) -> np.ndarray:
    """The GPU's result words over the binade [lo, 2·lo), from a --sweep-out file."""
    first = z[f"{_key(op)}@{lo}.first"][0]
    return np.concatenate([[first], first + np.cumsum(z[f"{_key(op)}@{lo}.step"].astype(np.int64))]).astype(np.uint32)


class _Mods:
    def __init__(self, op: str):
        self.mods = {"." + m for m in op.split(".")[1:]}

    def has(self, *names) -> bool:
        return any(n in self.mods for n in names)


def cmd_compare(a) -> int:
    from volta.semantics import compute as C

    z, g = np.load(a.inputs), np.load(a.gpu)
    for op in OPS:
        name = op.split(".")[0]
        name = "div.full" if op.startswith("div.full") else name
        words = [z[f"{_key(op)}.{k}"] for k in (("x", "y") if op.startswith("div") else ("x",))]
        mine = np.asarray(C.approx(name, _Mods(op), "f32", *[w.astype(np.uint64) for w in words])).astype(np.uint32)
        gpu = g[_key(op)]
        nan_g, nan_m = _isnan(gpu), _isnan(mine)
        same = (gpu == mine) | (nan_g & nan_m)
        d = np.where(same, 0, np.abs(_ordered(gpu) - _ordered(mine)))
        d = np.where(nan_g != nan_m, 1 << 40, d)
        hist = {k: int(np.count_nonzero(d == k)) for k in (1, 2, 3)}
        big = int(np.count_nonzero(d > 3))
        line = f"{op:22s} differ {same.size - np.count_nonzero(same):6d} of {same.size}  1 ulp {hist[1]:6d}  2 ulp {hist[2]:6d}" \
               f"  3 ulp {hist[3]:6d}  >3 ulp {big:6d}"
        if big:
            i = int(np.argmax(d))
            line += f"  (worst: x={words[0][i]:08x} gpu {gpu[i]:08x} volta {mine[i]:08x})"
        print(line)
    return 0


def _isnan(w: np.ndarray) -> np.ndarray:
    return ((w >> 23) & 0xFF == 0xFF) & (w & 0x7FFFFF != 0)


def _ordered(w: np.ndarray) -> np.ndarray:
    """f32 words as integers in the order of their values (so a difference counts ulps)."""
    s = w.astype(np.int64)
    return np.where(s & 0x80000000, -(s & 0x7FFFFFFF), s)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("inputs").add_argument("--out", required=True)
    g = sub.add_parser("gpu")
    g.add_argument("--inputs", required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--sweep-out", help="also sweep whole binades (SWEEPS) into this .npz")
    c = sub.add_parser("compare")
    c.add_argument("--inputs", required=True)
    c.add_argument("--gpu", required=True)
    a = ap.parse_args(argv)
    return {"inputs": cmd_inputs, "gpu": cmd_gpu, "compare": cmd_compare}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
