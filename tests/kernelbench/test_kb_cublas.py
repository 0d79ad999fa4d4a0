"""A recorded cuBLAS GEMM (volta/kernelbench/host/cublas.py) computes what cuBLAS defines, against numpy on
column-major operands: transposes, leading dimensions beyond the rows, batch strides, alpha and beta (C not
read when beta is 0); and the precision its math mode and compute type allow."""
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.equiv.check import _exact
from volta.kernelbench.elements import UNWRITTEN
from volta.kernelbench.host import cublas
from volta.kernelbench.host.trace import Gemm
from volta.kernelbench.memory import DeviceMemory
from volta.kernelbench.torchsym import new_run
from volta.symbolic import expr as E

BASES = (0x2000000000000000, 0x2000000100000000, 0x2000000200000000)


def colmajor(flat, first, rows, cols, ld):
    return np.array([[flat[first + i + j * ld] for j in range(cols)] for i in range(rows)], dtype=object)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(0, 3), st.sampled_from("NT"), st.sampled_from("NT"),
       st.integers(0, 2), st.integers(0, 2), st.integers(0, 2), st.integers(1, 2), st.integers(0, 3),
       st.sampled_from([0, 1, 2, Fraction(-1, 2)]), st.sampled_from([0, 1, Fraction(3, 2)]),
       st.data())
def test_gemm_is_the_column_major_product(m, n, k, ta, tb, xa, xb, xc, batch, gap, alpha, beta, data):
    ra, ca = (m, k) if ta == "N" else (k, m)
    rb, cb = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = max(1, ra) + xa, max(1, rb) + xb, m + xc
    sa, sb, sc = lda * ca + gap, ldb * cb + gap, ldc * n + gap
    sizes = [sa * batch + 1, sb * batch + 1, sc * batch + 1]
    flats = [data.draw(st.lists(st.integers(-4, 4), min_size=s, max_size=s)) for s in sizes]
    unread = beta == 0     # beta 0: C is not read (cuBLAS's rule), so C starts never written
    run = new_run()
    memory = DeviceMemory()
    storages = []
    for base, flat in zip(BASES, flats):
        values = np.empty(len(flat), object)
        values[:] = [UNWRITTEN if unread and base == BASES[2] else E.const(v) for v in flat]
        storages.append(run.session.allocate(values, "f32"))
        memory.add(base, storages[-1])
    g = Gemm("cublasSgemmStridedBatched", ta, tb, m, n, k, float(alpha), float(beta), BASES[0] + 4, lda, sa,
             BASES[1] + 4, ldb, sb, BASES[2] + 4, ldc, sc, batch, "float32", "float32", "float32", 68, 0, 0)
    record = cublas.execute(g, memory, run.session)
    assert record.precision is None and record.math_mode == "CUBLAS_DEFAULT_MATH"
    got = [None if v is UNWRITTEN else _exact(v) for v in storages[2].values]
    want = [None if unread else Fraction(v) for v in flats[2]]
    for b in range(batch):
        a = colmajor(flats[0], 1 + b * sa, ra, ca, lda)
        bm = colmajor(flats[1], 1 + b * sb, rb, cb, ldb)
        prod = (a if ta == "N" else a.T).dot(bm if tb == "N" else bm.T) if k else np.zeros((m, n), dtype=object)
        for i in range(m):
            for j in range(n):
                at = 1 + b * sc + i + j * ldc
                old = Fraction(0) if beta == 0 else Fraction(flats[2][at])
                want[at] = Fraction(alpha) * Fraction(int(prod[i, j])) + Fraction(beta) * old
    assert got == want


def test_precision_of_math_modes():
    def g(compute, math, a="float32", c="float32"):
        return Gemm("cublasGemmEx", "N", "N", 1, 1, 1, 1.0, 0.0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, a, a, c, compute,
                    math, 0)
    assert cublas.precision(g(68, 0)) is None
    assert cublas.precision(g(68, 3)) == "tf32"
    assert cublas.precision(g(68, 3 | 16)) == "tf32"
    assert cublas.precision(g(77, 0)) == "tf32"
    assert cublas.precision(g(75, 0)) == "bf16"
    assert cublas.precision(g(68, 2)) is None                                  # pedantic
    assert cublas.precision(g(68, 3, a="float16")) is None                     # TF32 mode: float32 data only
    assert cublas.precision(g(64, 0, a="float16", c="float32")) == "fp16-accumulate"
    assert cublas.record(g(68, 3)).math_mode == "CUBLAS_TF32_TENSOR_OP_MATH"
