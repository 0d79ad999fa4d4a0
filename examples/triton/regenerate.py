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

# The kernels that tests/triton check through volta.triton (launch: see tests/triton/test_triton_ptx.py).
import volta  # noqa: E402
import volta.triton as vt  # noqa: E402

B = volta.Buffer
VA = [B("x", "f32", 500, "in"), B("y", "f32", 500, "in"), B("out", "f32", 500, "out"), 500]
LN = [B("x", "f32", 128, "in"), B("gamma", "f32", 32, "in"), B("beta", "f32", 32, "in"), B("y", "f32", 128, "out"),
      32, 1e-5]
MM = [B("A", "f32", 1024, "in"), B("B", "f32", 1024, "in"), B("C", "f32", 1024, "out"), 32, 32, 32]
MM_CE = {"BM": 16, "BN": 16, "BK": 16}
MM64 = [B("A", "f32", 2048, "in"), B("B", "f32", 2048, "in"), B("C", "f32", 4096, "out"), 64, 64, 32]
PD = [B("a", "f32", 256, "in"), B("b", "f32", 256, "in"), B("out", "f32", 1, "out"), 256]
VOLTA_BUILDS = [  # (file, kernel, args, constexprs, num_warps, num_stages)
    ("add.b128.w4.sm80.ptx", "add_kernel", VA, {"BLOCK": 128}, 4, 3),
    ("add_offbyone.b128.w4.sm80.ptx", "add_kernel_offbyone", VA, {"BLOCK": 128}, 4, 3),
    ("layernorm.b32.w1.sm80.ptx", "layernorm_kernel", LN, {"BLOCK": 32}, 1, 3),
    ("matmul.16x16x16.w4.s1.sm80.ptx", "matmul_kernel", MM, MM_CE, 4, 1),
    ("matmul.16x16x16.w4.s2.sm80.ptx", "matmul_kernel", MM, MM_CE, 4, 2),
    ("matmul.16x16x8.w4.s3.sm80.ptx", "matmul_kernel", MM, {"BM": 16, "BN": 16, "BK": 8}, 4, 3),  # 4 k steps, 3 stages
    ("matmul.32x32x8.w4.s3.sm80.ptx", "matmul_kernel", MM64, {"BM": 32, "BN": 32, "BK": 8}, 4, 3),  # 64x64x32
    ("positive_dot_atomic.b64.w2.sm80.ptx", "positive_dot_atomic_kernel", PD, {"BLOCK": 64}, 2, 1),
    ("positive_dot_block.b64.w2.sm80.ptx", "positive_dot_block_kernel", PD, {"BLOCK": 64}, 2, 1),
]
for file, name, args, ce, warps, stages in VOLTA_BUILDS:
    k = vt.compile(getattr(kernels, name), args=args, constexprs=ce, num_warps=warps, num_stages=stages)
    k.save(HERE / file)
    print(f"{file}: block {k.block}, shared {k.shared} bytes, {k.hidden} hidden parameters")

# Hopper (sm_90a): tl.dot on fp16 becomes wgmma.mma_async with shared operands through matrix descriptors.
MMH = [B("A", "f16", 8192, "in"), B("B", "f16", 4096, "in"), B("C", "f32", 8192, "out"), 128, 64, 64]
BR = [B("A", "f16", 8192, "in"), B("Bt", "f16", 1024, "in"), B("bias", "f32", 16, "in"), B("D", "f32", 2048, "out"),
      128, 16, 64]
SM90_BUILDS = [  # (file, kernel, args, constexprs, num_warps, num_stages)
    ("matmul_f16.64x64x32.w4.s1.sm90a.ptx", "matmul_f16_kernel", MMH, {"BM": 64, "BN": 64, "BK": 32}, 4, 1),
    ("matmul_f16.64x32x64.w4.s3.sm90a.ptx", "matmul_f16_kernel", MMH, {"BM": 64, "BN": 32, "BK": 64}, 4, 3),
    ("matmul_f16_bias_relu.64x16x32.w4.s2.sm90a.ptx", "matmul_f16_bias_relu_kernel", BR,
     {"BM": 64, "BN": 16, "BK": 32}, 4, 2),
]
for file, name, args, ce, warps, stages in SM90_BUILDS:
    k = vt.compile(getattr(kernels, name), args=args, constexprs=ce, num_warps=warps, num_stages=stages, arch=90)
    k.save(HERE / file)
    print(f"{file}: block {k.block}, shared {k.shared} bytes, {k.hidden} hidden parameters")
