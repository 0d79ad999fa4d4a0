"""The tensor-core GEMM example reproduces the scalar MMA model bit for bit (specs/numerics.md).

The kernel chains mma.sync m16n8k16 over K with one f32 accumulator starting at +0, so every output
element is the model's dot product over all of K, in K order, for the chosen architecture.
"""
from pathlib import Path

import numpy as np
import pytest

from volta.launch.spec import load_manifest
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.numerics.mma_model import mma_dot
from volta.numerics.mma_vec import mma
from volta.ptx.parser import parse_file

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gemm_mma_sync" / "manifest.toml"


@pytest.mark.parametrize("arch", ["ampere", "hopper"])
def test_mma_sync_gemm_is_the_scalar_model_bit_for_bit(arch):
    spec = load_manifest(EXAMPLE)
    launch = spec.launches["kernel"]
    M, N, K = (int(x.value) for x in launch.args[3:6])
    rng = np.random.default_rng(11)
    # wide exponent range and cancellation, so the models' alignment and truncation matter
    A = (rng.standard_normal((M, K)) * 2.0 ** rng.integers(-12, 12, (M, K))).astype(np.float16)
    B = (rng.standard_normal((K, N)) * 2.0 ** rng.integers(-12, 12, (K, N))).astype(np.float16)
    prog = lower(parse_file(str(launch.ptx)), launch.kernel)
    m = Machine(prog, launch, spec.buffers, {}, inputs={"A": A.reshape(-1), "B": B.reshape(-1)}, fp=arch).run()
    assert m.findings == []
    got = m.buffer_regions["C"].data[0, : 4 * M * N].view(np.uint32).reshape(M, N)
    a_words, b_words = A.view(np.uint16), B.view(np.uint16)
    model = mma(a_words, b_words, np.zeros((M, N), np.uint32), arch, "f16", "f32")
    assert np.array_equal(got, model)
    for i, j in [(0, 0), (5, 17), (M - 1, N - 1)]:  # the exact scalar oracle on a few elements
        word = mma_dot([int(w) for w in a_words[i]], [int(w) for w in b_words[:, j]], 0, arch, "f16", "f32")
        assert got[i, j] == word
