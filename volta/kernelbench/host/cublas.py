"""A cuBLAS GEMM that host code called, executed on the run's storages as the matrix product it defines.

cuBLAS is column-major: an `m x n` matrix with leading dimension `ld` holds element (i, j) at `i + j*ld`. A
GEMM computes, for each batch b, C_b = alpha op(A_b) op(B_b) + beta C_b, where op is the identity (`N`) or
the transpose (`T`, and `C`, the same for real types), op(A) is m x k, op(B) is k x n, and batch b's
operands start `b * stride` elements after the first. Each operand becomes a strided view of the storage the
pointer lies in (rows stride 1, columns stride ld), so a row-major candidate that passes its matrices
transposed (the usual `C^T = B^T A^T` trick) and one that gets a transpose or a leading dimension wrong both
compute exactly what the GPU would. With beta = 0, C is not read (cuBLAS's rule: a NaN there is not
propagated).

The math mode and compute type are kept as cuBLAS names them (`precision` says which allow the GPU to round
inputs below the data type: TF32, fp16, bf16); the product itself is taken over the reals here, and what a
reduced precision does to the result is the precision check's to say.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from volta.errors import Unsupported
from volta.kernelbench import dtypes as D
from volta.kernelbench.memory import ITEMSIZE, TORCH_TO_VOLTA, DeviceMemory
from volta.kernelbench.tensor import tensor_on_storage
from volta.symbolic import expr as E

MATH_MODES = {0: "CUBLAS_DEFAULT_MATH", 1: "CUBLAS_TENSOR_OP_MATH", 2: "CUBLAS_PEDANTIC_MATH",
              3: "CUBLAS_TF32_TENSOR_OP_MATH"}
DISALLOW_REDUCED_REDUCTION = 16
COMPUTE_TYPES = {64: "CUBLAS_COMPUTE_16F", 65: "CUBLAS_COMPUTE_16F_PEDANTIC", 68: "CUBLAS_COMPUTE_32F",
                 69: "CUBLAS_COMPUTE_32F_PEDANTIC", 74: "CUBLAS_COMPUTE_32F_FAST_16F",
                 75: "CUBLAS_COMPUTE_32F_FAST_16BF", 77: "CUBLAS_COMPUTE_32F_FAST_TF32", 70: "CUBLAS_COMPUTE_64F",
                 71: "CUBLAS_COMPUTE_64F_PEDANTIC", 72: "CUBLAS_COMPUTE_32I", 73: "CUBLAS_COMPUTE_32I_PEDANTIC"}
FLOATS = ("float16", "bfloat16", "float32", "float64")


@dataclass(frozen=True)
class GemmRecord:
    """One executed GEMM as the report lists it."""

    call: str
    m: int
    n: int
    k: int
    batch: int
    transa: str
    transb: str
    math_mode: str
    compute_type: str
    precision: str | None    # "tf32" | "fp16" | "bf16" | "fp16-accumulate" when the GPU may round below the type

    def describe(self) -> str:
        batch = f", batch {self.batch}" if self.batch != 1 else ""
        mode = self.math_mode + (f", {self.compute_type}" if self.compute_type != "CUBLAS_COMPUTE_32F" else "")
        reduced = f"; reduced precision: {self.precision}" if self.precision else ""
        return f"{self.call} {self.transa}{self.transb} m={self.m} n={self.n} k={self.k}{batch} ({mode}){reduced}"


def math_mode_name(math: int) -> str:
    name = MATH_MODES.get(math & ~DISALLOW_REDUCED_REDUCTION, f"cublasMath_t({math})")
    return name + (" | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION" if math & DISALLOW_REDUCED_REDUCTION else "")


def precision(g) -> str | None:
    """Which precision below its data types cuBLAS may compute `g` in (None: the data types' own)."""
    compute = COMPUTE_TYPES.get(g.compute, "")
    mode = g.math & ~DISALLOW_REDUCED_REDUCTION
    if compute.endswith("FAST_TF32"):
        return "tf32"
    if compute.endswith("FAST_16BF"):
        return "bf16"
    if compute.endswith("FAST_16F"):
        return "fp16"
    if compute == "CUBLAS_COMPUTE_16F" and g.c_type != "float16":
        return "fp16-accumulate"
    if compute == "CUBLAS_COMPUTE_32F" and g.a_type == "float32" and g.b_type == "float32":
        if mode == 3:
            return "tf32"
        if mode == 1:
            return "fp16"
    return None


def record(g) -> GemmRecord:
    return GemmRecord(g.call, g.m, g.n, g.k, g.batch, g.transa, g.transb, math_mode_name(g.math),
                      COMPUTE_TYPES.get(g.compute, f"cublasComputeType_t({g.compute})"), precision(g))


def _matrix(memory: DeviceMemory, session, address: int, dtype: str, rows: int, cols: int, ld: int, stride: int,
            batch: int, what: str, call: str):
    """Batch b's column-major rows x cols operand at `address`, as a view of its storage."""
    found = memory.locate(address)
    if found is None:
        raise Unsupported(f"{call}: {what} points at {address:#x}, in no storage this run knows")
    storage, offset = found
    volta_type = TORCH_TO_VOLTA[dtype]
    if storage.dtype != volta_type:
        raise Unsupported(f"{call}: {what} is declared {dtype} but points into a "
                          f"{D.BY_VOLTA[storage.dtype].torch_name} storage (a reinterpretation, not modelled)")
    size = ITEMSIZE[volta_type]
    if offset % size:
        raise Unsupported(f"{call}: {what} is not aligned to its {dtype} elements")
    first = offset // size + batch * stride
    try:
        return tensor_on_storage(storage, (rows, cols), session, (1, ld), first)
    except ValueError:
        raise Unsupported(f"{call}: batch {batch}'s {what} ({rows} x {cols}, ld {ld}) runs past the end of "
                          f"`{memory.name(storage)}` (cuBLAS would read or write out of bounds)") from None


def _zeros(session, rows: int, cols: int, volta_type: str):
    values = np.empty(rows * cols, object)
    values[:] = [E.const(0)] * (rows * cols)
    return tensor_on_storage(session.allocate(values, volta_type), (rows, cols), session)


def execute(g, memory: DeviceMemory, session) -> GemmRecord:
    """Run one recorded GEMM (host.trace.Gemm) on the run's storages; its record for the report."""
    if any(t not in FLOATS for t in (g.a_type, g.b_type, g.c_type)):
        raise Unsupported(f"{g.call} on {g.a_type}/{g.b_type}/{g.c_type} data: integer GEMMs are not modelled")
    if g.m and g.n:
        out_type = D.TORCH_NAMES[g.c_type]
        for b in range(g.batch):
            c = _matrix(memory, session, g.c, g.c_type, g.m, g.n, g.ldc, g.stride_c, b, "C", g.call)
            if g.k:
                a = _matrix(memory, session, g.a, g.a_type, *((g.m, g.k) if g.transa == "N" else (g.k, g.m)),
                            g.lda, g.stride_a, b, "A", g.call)
                bm = _matrix(memory, session, g.b, g.b_type, *((g.k, g.n) if g.transb == "N" else (g.n, g.k)),
                             g.ldb, g.stride_b, b, "B", g.call)
                product = (a if g.transa == "N" else a.t()).matmul(bm if g.transb == "N" else bm.t())
                if g.alpha != 1:
                    product = product * g.alpha
            else:      # an empty sum: zeros, whatever alpha is
                product = _zeros(session, g.m, g.n, out_type.volta)
            if g.beta != 0:
                product = product + (c if g.beta == 1 else c * g.beta)
            c.copy_(product.to(out_type) if product.dtype is not out_type else product)
    return record(g)
