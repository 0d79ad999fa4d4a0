"""cuRAND XORWOW per-thread state through the PTX nvcc makes of curand_kernel.h (examples/curand_uniform,
examples/bug_curand_shared_slot): global constant tables with initializers (precalc_xorwow_matrix), local
arrays for the state, 64-bit arithmetic. `volta run` must give exactly the numbers the xorwow algorithm
gives (tests/exec/xorwow_reference.py computes them without cuRAND's tables), and `volta races` the labels.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from volta.cli import run

sys.path.insert(0, str(Path(__file__).parent))
import xorwow_reference as X  # noqa: E402

CASE = Path(__file__).resolve().parents[2] / "examples" / "curand_uniform"
PTX = str(CASE / "kernel.sm80.ptx")


def _volta_run(tmp_path, seed: int, n: int) -> np.ndarray:
    out = tmp_path / "out.npz"
    code = run(["run", PTX, "--kernel", "curand_uniform_kernel", "--grid", "2", "--block", str(n // 2),
                "--args", f"out,{seed},{n}",
                "--buffer", f"out=f32[{n}]:out", "--no-races", "-q", "--out", str(out)])
    assert code == 0
    return np.load(out)["out"]


@pytest.mark.parametrize("seed", [1234, 0x0123456789ABCDEF])  # the second fills both halves of the seed
def test_run_gives_the_xorwow_numbers(tmp_path, capsys, seed):
    got = _volta_run(tmp_path, seed, 64)
    want = X.first_uniforms(seed, 64)
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), np.flatnonzero(got != want)[:8]
    assert 0.0 < got.min() and got.max() <= 1.0 and len(set(got.tolist())) == 64


@pytest.mark.parametrize("offset", [0, 5, 37])
def test_run_gives_the_xorwow_numbers_after_an_offset(tmp_path, capsys, offset):
    n, per = 16, 3
    out = tmp_path / "out.npz"
    code = run(["run", PTX, "--kernel", "curand_offset_kernel", "--grid", "2", "--block", str(n // 2),
                "--args", f"out,987654321,{offset},{per},{n}", "--buffer", f"out=u32[{n * per}]:out",
                "--no-races", "-q", "--out", str(out)])
    assert code == 0
    got = np.load(out)["out"]
    jumps = X.subsequence_jumps(n)
    want = []
    for tid in range(n):
        v, d = X.init(987654321, tid, jumps, offset)
        for _ in range(per):
            x, v, d = X.next_u32(v, d)
            want.append(x)
    assert got.tolist() == want


def test_reference_subsequences_really_skip(capsys):
    """The skip-ahead matters: thread t's number is not subsequence 0's number for seed t (the test above
    could not pass with a reference that ignored the subsequence)."""
    v, d = X.init(1234, 0)
    v3, d3 = X.init(1234, 3)
    assert d == d3 and v != v3
    assert X.uniform(X.next_u32(v, d)[0]) != X.uniform(X.next_u32(v3, d3)[0])


def test_reference_one_step_matrix_is_the_step():
    """J^1 with 2^0 steps (the bare transition matrix) agrees with stepping the words directly."""
    rng = np.random.default_rng(0)
    v = [int(w) for w in rng.integers(0, 2 ** 32, 5, dtype=np.uint64)]
    assert X._words((X._transition() @ X._bits(v)) & 1) == X._step(v)


@pytest.mark.slow
@pytest.mark.parametrize("case, code, word", [("curand_uniform", 0, "CLEAN"), ("bug_curand_shared_slot", 1, "RACE")])
def test_races_labels(capsys, case, code, word):
    manifest = CASE.parent / case / "manifest.toml"
    assert run(["races", str(manifest), "-q"]) == code
    assert word in capsys.readouterr().out
