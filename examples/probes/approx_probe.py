#!/usr/bin/env python3
"""`.approx` instructions on a GPU's special-function unit against volta's model, per instruction, in ulps.

PTX documents only error bounds for ex2/lg2/rcp/sqrt/rsqrt/sin/cos/tanh.approx. This probe measures the hardware:
random operands (to compare and to check reduction rules) and sweeps (the tables volta/numerics/mufu.py ships,
which `tables` rebuilds from a sweep file):

    python3 examples/probes/approx_probe.py inputs --out approx_in.npz          # seeded operands (anywhere)
    python3 examples/probes/approx_probe.py gpu --inputs approx_in.npz --out approx_gpu.npz   # CuPy + NVRTC
    python3 examples/probes/approx_probe.py compare --inputs approx_in.npz --gpu approx_gpu.npz  # volta's model
    python3 examples/probes/approx_probe.py tables --sweeps approx_sweeps.npz --exhaustive16 approx16.npz \
        --out volta/numerics/data/mufu_sm90.npz

`compare` prints, per instruction, how many results are identical, the histogram of ulp distances, the
largest one and an example operand. The operands mix random bit patterns (every class: subnormals, NaN,
infinities) with values spread over each function's useful range.
"""
from __future__ import annotations

import argparse
import re
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
    "sqrt.approx.ftz.f32": (0.0, 1e6), "div.approx.ftz.f32": (-1e3, 1e3), "div.full.ftz.f32": (-1e3, 1e3),
}


def _key(op: str) -> str:
    return op.replace(".", "_")


def cmd_inputs(a) -> int:
    rng = np.random.default_rng(a.seed)
    arrays, n = {}, a.n
    for op, (lo, hi) in OPS.items():
        for k in ("x", "y") if op.startswith("div") else ("x",):
            bits = rng.integers(0, 1 << 32, n // 2, dtype=np.uint64).astype(np.uint32)
            uni = rng.uniform(lo, hi, n - n // 2).astype(np.float32).view(np.uint32)
            arrays[f"{_key(op)}.{k}"] = np.concatenate([bits, uni])
    np.savez(a.out, **arrays)
    return 0


# sweeps for reconstructing the unit's tables: label -> (instruction, start, step, count), the operands
# start + k·step for k < count, every one exact in f32 (whole binades, or fixed-point grids where the unit
# quantizes its operand); exponent reduction is checked separately, on the random operands above
SWEEPS = {
    "rcp.approx.ftz.f32@1.0": ("rcp.approx.ftz.f32", 1.0, 2.0 ** -23, 1 << 23),
    "rsqrt.approx.ftz.f32@1.0": ("rsqrt.approx.ftz.f32", 1.0, 2.0 ** -23, 1 << 23),
    "rsqrt.approx.ftz.f32@2.0": ("rsqrt.approx.ftz.f32", 2.0, 2.0 ** -22, 1 << 23),
    "sqrt.approx.ftz.f32@1.0": ("sqrt.approx.ftz.f32", 1.0, 2.0 ** -23, 1 << 23),
    "sqrt.approx.ftz.f32@2.0": ("sqrt.approx.ftz.f32", 2.0, 2.0 ** -22, 1 << 23),
    "lg2.approx.ftz.f32@1.0": ("lg2.approx.ftz.f32", 1.0, 2.0 ** -23, 1 << 23),
    "lg2.approx.ftz.f32@0.5": ("lg2.approx.ftz.f32", 0.5, 2.0 ** -24, 1 << 23),
    "ex2.approx.ftz.f32@0.5": ("ex2.approx.ftz.f32", 0.5, 2.0 ** -24, 1 << 23),
    "ex2.approx.ftz.f32@1.0": ("ex2.approx.ftz.f32", 1.0, 2.0 ** -23, 1 << 23),
    "ex2.approx.ftz.f32@neg24": ("ex2.approx.ftz.f32", 0.0, -(2.0 ** -24), 1 << 24),
    "ex2.approx.f32@neg24": ("ex2.approx.f32", 0.0, -(2.0 ** -24), 1 << 24),
    "tanh.approx.f32@0.5": ("tanh.approx.f32", 0.5, 2.0 ** -24, 1 << 23),
    # tanh keeps 19 fraction bits of its operand (constant on aligned runs of 16 in the sweep above): one binade
    # each from 2^-14 (where it returns x) to 2^5 (where it returns 1), 2^19 operands apiece
    **{f"tanh.approx.f32@2^{e}": ("tanh.approx.f32", 2.0 ** e, 2.0 ** (e - 19), 1 << 19) for e in range(-14, 6)},
    # ... except on [1, 8), where it keeps more: whole binades
    **{f"tanh.approx.f32@{lo}": ("tanh.approx.f32", lo, lo * 2.0 ** -23, 1 << 23) for lo in (1.0, 2.0, 4.0)},
}


# 16-bit instructions: every operand word, so the whole function is known
EXHAUSTIVE16 = ["ex2.approx.f16", "ex2.approx.ftz.bf16", "tanh.approx.f16", "tanh.approx.bf16"]


def _kernels16() -> str:
    src = ['extern "C" {']
    for op in EXHAUSTIVE16:
        src.append(f"__global__ void k_{_key(op)}(unsigned short* out) {{ unsigned short x = blockIdx.x * blockDim.x"
                   f" + threadIdx.x, r; asm(\"{op} %0, %1;\" : \"=h\"(r) : \"h\"(x)); out[x] = r; }}")
    src.append("}")
    return "\n".join(src)


def sweep_operands(label: str) -> np.ndarray:
    _, start, step, count = SWEEPS[label]
    x = (start + np.arange(count, dtype=np.float64) * step).astype(np.float32)
    assert np.all(x.astype(np.float64) == start + np.arange(count, dtype=np.float64) * step)
    return x


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

    mod = cupy.RawModule(code=_kernels(list(OPS) + sorted({op for op, *_ in SWEEPS.values()} - set(OPS))))
    z = np.load(a.inputs) if a.inputs else {}
    results = {}
    for op in OPS if a.inputs else ():
        if f"{_key(op)}.x" not in z.files:
            continue
        x = cupy.asarray(z[f"{_key(op)}.x"].view(np.float32))
        y = cupy.asarray(z[f"{_key(op)}.y"].view(np.float32)) if op.startswith("div") else x
        n = x.size
        out = cupy.zeros(n, np.float32)
        mod.get_function(f"k_{_key(op)}")(((n + 255) // 256,), (256,), (x, y, out, np.int32(n)))
        results[_key(op)] = cupy.asnumpy(out).view(np.uint32)
    if results:
        np.savez_compressed(a.out, **results)
        print(f"{len(results)} instructions -> {a.out}")
    if a.exhaustive16_out:
        mod16 = cupy.RawModule(code=_kernels16())
        words = {}
        for op in EXHAUSTIVE16:
            out = cupy.zeros(1 << 16, np.uint16)
            mod16.get_function(f"k_{_key(op)}")((256,), (256,), (out,))
            words[_key(op)] = cupy.asnumpy(out)
        np.savez_compressed(a.exhaustive16_out, **words)
        print(f"{len(words)} 16-bit instructions on every operand -> {a.exhaustive16_out}")
    if a.sweep_out:
        sweeps = {}
        for label, (op, *_rest) in SWEEPS.items():
            if a.sweeps and not re.search(a.sweeps, label):
                continue
            x = cupy.asarray(sweep_operands(label))
            out = cupy.zeros(x.size, np.float32)
            mod.get_function(f"k_{_key(op)}")(((x.size + 255) // 256,), (256,), (x, x, out, np.int32(x.size)))
            words = cupy.asnumpy(out).view(np.uint32).astype(np.int64)
            step = np.diff(words)  # a smooth function: small steps, which compress
            sweeps[f"{label}.first"] = np.array([words[0]], np.int64)
            sweeps[f"{label}.step"] = step.astype(np.int8 if np.abs(step).max() < 128 else np.int32)
        np.savez_compressed(a.sweep_out, **sweeps)
        print(f"{len(sweeps) // 2} sweeps -> {a.sweep_out}")
    return 0


def sweep_words(z, label: str) -> np.ndarray:
    """The GPU's result words over one sweep (SWEEPS[label]'s operands), from a --sweep-out file."""
    first = z[f"{label}.first"][0]
    return np.concatenate([[first], first + np.cumsum(z[f"{label}.step"].astype(np.int64))]).astype(np.uint32)


class _Mods:
    def __init__(self, op: str):
        self.mods = {"." + m for m in op.split(".")[1:]}

    def has(self, *names) -> bool:
        return any(n in self.mods for n in names)


def cmd_compare(a) -> int:
    from volta.semantics import compute as C

    z, g = np.load(a.inputs), np.load(a.gpu)
    for op in OPS:
        if _key(op) not in g.files:
            continue
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


# volta/numerics/mufu.py's tables: name -> (sweep label, every n-th word)
TABLES = {"ex2_pos": ("ex2.approx.ftz.f32@1.0", 1), "ex2_neg": ("ex2.approx.ftz.f32@neg24", 2),
          "rcp": ("rcp.approx.ftz.f32@1.0", 1), "rsqrt_1": ("rsqrt.approx.ftz.f32@1.0", 1),
          "rsqrt_2": ("rsqrt.approx.ftz.f32@2.0", 1), "sqrt_1": ("sqrt.approx.ftz.f32@1.0", 1),
          "sqrt_2": ("sqrt.approx.ftz.f32@2.0", 1), "lg2_1": ("lg2.approx.ftz.f32@1.0", 1),
          "lg2_05": ("lg2.approx.ftz.f32@0.5", 1),
          # tanh, one table per binade at the operand bits it keeps (mufu.TANH_SHIFT)
          **{f"tanh_{e}": (f"tanh.approx.f32@2^{e}", 1) for e in (-8, -7, -6, -5, -4, -3, -2, -1, 3)},
          "tanh_0": ("tanh.approx.f32@1.0", 8), "tanh_1": ("tanh.approx.f32@2.0", 4), "tanh_2": ("tanh.approx.f32@4.0", 8)}


def cmd_tables(a) -> int:
    """Write volta's table file from a sweep file: each table as int8 steps between words, large steps apart."""
    z, out = np.load(a.sweeps), {}
    for name, (label, every) in TABLES.items():
        words = sweep_words(z, label)[::every]
        step = np.diff(words.astype(np.int64), prepend=0)
        big = np.flatnonzero(np.abs(step) >= 128)
        out[f"{name}.big_at"], out[f"{name}.big"] = big.astype(np.int32), step[big]
        step[big] = 0
        out[f"{name}.step"] = step.astype(np.int8)
    with np.load(a.exhaustive16) as z16:  # the 16-bit instructions: their words as they are
        for op in EXHAUSTIVE16:
            out[f"{op.split('.')[0]}_{op.split('.')[-1]}.words"] = z16[_key(op)]
    np.savez_compressed(a.out, **out)
    print(f"{len(TABLES)} tables -> {a.out}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("inputs")
    i.add_argument("--out", required=True)
    i.add_argument("--seed", type=int, default=2026)
    i.add_argument("--n", type=int, default=N, help="operands per instruction")
    g = sub.add_parser("gpu")
    g.add_argument("--inputs", help="random operands (from `inputs`)")
    g.add_argument("--out", help="where the results on --inputs go")
    g.add_argument("--sweeps", help="a regular expression: only the sweeps whose label matches")
    g.add_argument("--exhaustive16-out", help="also run EXHAUSTIVE16 on all 65,536 operands into this .npz")
    g.add_argument("--sweep-out", help="also run the sweeps (SWEEPS) into this .npz")
    c = sub.add_parser("compare")
    c.add_argument("--inputs", required=True)
    c.add_argument("--gpu", required=True)
    t = sub.add_parser("tables")
    t.add_argument("--sweeps", required=True, help="a --sweep-out file (examples/probes/h200/approx_sweeps.npz)")
    t.add_argument("--exhaustive16", required=True, help="an --exhaustive16-out file (examples/probes/h200/approx16.npz)")
    t.add_argument("--out", required=True, help="volta/numerics/data/mufu_sm90.npz")
    a = ap.parse_args(argv)
    return {"inputs": cmd_inputs, "gpu": cmd_gpu, "compare": cmd_compare, "tables": cmd_tables}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
