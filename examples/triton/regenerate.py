"""Compile kernels.py with Triton (no GPU needed) into the PTX files beside it.

Launch for every file: grid = rows, block = 32 * num_warps, dynamic shared memory as printed,
parameters (out, in, n_cols) plus Triton's two hidden trailing pointers (scratch, profile).
"""
import os
import sys
from pathlib import Path

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import kernels  # noqa: E402

SIGNATURE = {"out_ptr": "*fp32", "in_ptr": "*fp32", "n_cols": "i32", "BLOCK": "constexpr"}
# (kernel, BLOCK, num_warps): the rowsum configurations are an autotune space for `volta classes`
BUILDS = [("rowsum_kernel", 256, w) for w in (1, 2, 4, 8)] + [("rowsum_kernel", 512, 4), ("softmax_kernel", 128, 4)]

for name, block, warps in BUILDS:
    fn = getattr(kernels, name)
    compiled = triton.compile(ASTSource(fn, signature=SIGNATURE, constexprs={"BLOCK": block}),
                              target=GPUTarget("cuda", 80, 32), options={"num_warps": warps})
    out = HERE / f"{name.removesuffix('_kernel')}.b{block}.w{warps}.sm80.ptx"
    out.write_text(compiled.asm["ptx"])
    print(f"{out.name}: block {32 * warps}, shared {compiled.metadata.shared} bytes")
