"""Autotune spaces for `volta classes` (issue 12): Triton configurations of one kernel, compiled without a
GPU, and a configurations manifest per kernel. `python examples/triton/configs.py` (needs triton)
regenerates the PTX and the manifests beside it; rowsum_configs.toml's PTX comes from regenerate.py.
"""
import os
import sys
from pathlib import Path

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import kernels  # noqa: E402

import volta  # noqa: E402
import volta.triton as vt  # noqa: E402

B = volta.Buffer
ROWS = 4
SPACES = {
    # kernel: (args, buffers as manifest text, [(label, constexprs, num_warps)], grid)
    "softmax": ([B("out", "f32", ROWS * 128, "out"), B("x", "f32", ROWS * 128, "in"), 128],
                {"x": f"f32[{ROWS * 128}]:in", "out": f"f32[{ROWS * 128}]:out"},
                [(f"BLOCK={b} num_warps={w}", {"BLOCK": b}, w) for b, w in ((128, 1), (128, 2), (128, 4), (256, 4))],
                f"{ROWS}"),
    "layernorm": ([B("x", "f32", ROWS * 64, "in"), B("gamma", "f32", 64, "in"), B("beta", "f32", 64, "in"),
                   B("y", "f32", ROWS * 64, "out"), 64, 1e-5],
                  {"x": f"f32[{ROWS * 64}]:in", "gamma": "f32[64]:in", "beta": "f32[64]:in",
                   "y": f"f32[{ROWS * 64}]:out"},
                  [(f"BLOCK={b} num_warps={w}", {"BLOCK": b}, w) for b, w in ((64, 1), (64, 2), (128, 1), (128, 4))],
                  f"{ROWS}"),
    "rmsnorm": ([B("x", "f32", ROWS * 64, "in"), B("w", "f32", 64, "in"), B("y", "f32", ROWS * 64, "out"), 64, 1e-5],
                {"x": f"f32[{ROWS * 64}]:in", "w": "f32[64]:in", "y": f"f32[{ROWS * 64}]:out"},
                [(f"BLOCK={b} num_warps={w}", {"BLOCK": b}, w) for b, w in ((64, 1), (64, 2), (128, 1), (128, 2),
                                                                            (128, 4))],
                f"{ROWS}"),
    # a 32x32x32 product in 16x16 tiles (grid 2x2): BK and num_warps keep the chain of k8 MMAs, SPLIT_K changes it
    "splitk_matmul": ([B("A", "f32", 1024, "in"), B("B", "f32", 1024, "in"), B("C", "f32", 1024, "out"), 32, 32, 32],
                      {"A": "f32[1024]:in", "B": "f32[1024]:in", "C": "f32[1024]:out"},
                      [(f"BK={bk} SPLIT_K={s} num_warps={w}", {"BM": 16, "BN": 16, "BK": bk, "SPLIT_K": s}, w)
                       for bk, s, w in ((8, 1, 1), (16, 1, 1), (16, 1, 2), (32, 1, 2), (16, 1, 4), (8, 2, 1), (16, 2, 2),
                                        (8, 4, 1))],
                      "2,2"),
}


def tag(constexprs: dict) -> str:
    """File-name part of a configuration: b<BLOCK>, or every constexpr but the 16x16 tile."""
    if set(constexprs) == {"BLOCK"}:
        return f"b{constexprs['BLOCK']}"
    return ".".join(f"{k.lower()}{v}" for k, v in constexprs.items() if k not in ("BM", "BN"))


CHOSEN = sys.argv[1:] or list(SPACES)   # `python configs.py rmsnorm` regenerates one space (or splitk_matmul_cuda)

for name in (n for n in CHOSEN if n in SPACES):
    args, buffers, space, grid = SPACES[name]
    fn = getattr(kernels, f"{name}_kernel")
    over = f"over {ROWS} rows" if grid == f"{ROWS}" else f"on a {grid} grid of 16x16 output tiles"
    lines = [f'description = "Triton {name} configurations {over}: which give identical bits?"', "",
             "[buffers]"] + [f'{k} = "{v}"' for k, v in buffers.items()]
    for label, constexprs, warps in space:
        k = vt.compile(fn, args=args, constexprs=constexprs, num_warps=warps, num_stages=1)
        assert not any(k.scratch[:k.hidden]), "hidden scratch buffers are not written into the manifest"
        file = f"{name}.{tag(constexprs)}.w{warps}.sm80.ptx"
        k.save(HERE / file)
        values = [a.name if isinstance(a, volta.Buffer) else repr(a) for a in args] + ["0"] * k.hidden
        arg_text = ", ".join(f'"{a}"' for a in values)
        lines += ["", "[[config]]", f'label = "{label}"', f'ptx = "{file}"', f'name = "{k.name}"',
                  f'grid = "{grid}"', f'block = "{k.block}"', f"args = [{arg_text}]",
                  f"shared_dynamic = {k.shared}"]
        print(f"{file}: block {k.block}, shared {k.shared} bytes")
    (HERE / f"{name}_configs.toml").write_text("\n".join(lines) + "\n")

# The split-K space in CUDA (splitk_matmul_cuda.cu, nvcc), with two Triton configurations of the same function
# in the same manifest: classes may span the two front ends.
CUDA_CONFIGS = [("CUDA SPLIT_K=1", "splitk1"), ("CUDA SPLIT_K=1 n halves swapped", "splitk1_halves_swapped"),
                ("CUDA SPLIT_K=1 k steps reversed", "splitk1_reversed"), ("CUDA SPLIT_K=2", "splitk2"),
                ("CUDA SPLIT_K=4", "splitk4")]
TRITON_IN_CUDA_SPACE = [("Triton BK=16 SPLIT_K=1 num_warps=2", "splitk_matmul.bk16.split_k1.w2.sm80.ptx", 64, 2048),
                        ("Triton BK=8 SPLIT_K=2 num_warps=1", "splitk_matmul.bk8.split_k2.w1.sm80.ptx", 32, 1024)]
if "splitk_matmul_cuda" in CHOSEN or not sys.argv[1:]:
    import subprocess

    subprocess.run(["nvcc", "-ptx", "-lineinfo", "-std=c++17", "-arch=sm_80", "-o", "splitk_matmul_cuda.sm80.ptx",
                    "splitk_matmul_cuda.cu"], cwd=HERE, check=True)
    lines = ['description = "The split-K matmul in CUDA (nvcc, mma.sync TF32) and in Triton, on a 2,2 grid of 16x16 '
             'output tiles: which give identical bits?"', "", "[buffers]", 'A = "f32[1024]:in"', 'B = "f32[1024]:in"',
             'C = "f32[1024]:out"']
    for label, entry in CUDA_CONFIGS:
        lines += ["", "[[config]]", f'label = "{label}"', 'ptx = "splitk_matmul_cuda.sm80.ptx"', f'name = "{entry}"',
                  'grid = "2,2"', 'block = "32"', 'args = ["A", "B", "C"]']
    for label, file, block, shared in TRITON_IN_CUDA_SPACE:
        lines += ["", "[[config]]", f'label = "{label}"', f'ptx = "{file}"', 'name = "splitk_matmul_kernel"',
                  'grid = "2,2"', f'block = "{block}"', 'args = ["A", "B", "C", "32", "32", "32", "0", "0"]',
                  f"shared_dynamic = {shared}"]
    (HERE / "splitk_matmul_cuda_configs.toml").write_text("\n".join(lines) + "\n")
    print("splitk_matmul_cuda_configs.toml")
