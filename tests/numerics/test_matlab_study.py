"""The MATLAB-tensor-core study's H100/H200 fp8 data sets, whole, through volta's rows (issue 34 §2).

Needs a checkout of the study (north-numerical-computing/MATLAB-tensor-core) at $VOLTA_MATLAB_TENSOR_CORE or
/work/ext/MATLAB-tensor-core; skipped without one (tests/cli/test_mma_cli.py replays the committed sample).
Each data set is 5,000 dot products; the counts below are the words each setting reproduces.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "probes"))

import matlab_study  # noqa: E402

CHECKOUT = matlab_study.DEFAULT_CHECKOUT
pytestmark = pytest.mark.skipif(not (CHECKOUT / "model_validation" / "H200").is_dir(),
                                reason=f"no MATLAB-tensor-core checkout at {CHECKOUT}")

# (format, output, candidate label) -> words of 5,000 reproduced, the same on the H100 and the H200
EXPECTED = {
    ("e4m3", "f32", "wgmma"): 5000,
    ("e5m2", "f32", "wgmma"): 5000,
    ("e4m3", "f32", "mma.sync, ptxas 12.8+ (CUDA 13 default)"): 2011,
    ("e5m2", "f32", "mma.sync, ptxas 12.8+ (CUDA 13 default)"): 3203,
    ("e4m3", "f32", "mma.sync, ptxas 12.4-12.6"): 2011,
    ("e5m2", "f32", "mma.sync, ptxas 12.4-12.6"): 3203,
    ("e4m3", "f16", "mma.sync, ptxas 12.8+"): 5000,
    ("e5m2", "f16", "mma.sync, ptxas 12.8+"): 5000,
}


@pytest.fixture(scope="module")
def table():
    return matlab_study.table(CHECKOUT)


def test_every_set_is_reproduced_word_for_word_by_its_setting(table):
    counts = {(gpu, fmt, acc, label): ok for gpu, fmt, acc, label, ok, total in table}
    assert all(total == 5000 for *_, total in table)
    for gpu in matlab_study.GPUS:
        for (fmt, acc, label), want in EXPECTED.items():
            assert counts[(gpu, fmt, acc, label)] == want, (gpu, fmt, acc, label)
        # with the accumulator from c_GPU_fp32.txt no f32 row fits: the f32 sets were taken without c
        assert counts[(gpu, "e4m3", "f32", "wgmma, c from the file")] <= 2
        # the f16 sets were taken with c: without it almost nothing fits
        assert counts[(gpu, "e4m3", "f16", "mma.sync, ptxas 12.8+, zero c")] < 10


def test_the_committed_sample_is_what_the_study_gives(tmp_path):
    matlab_study.write_fixture(CHECKOUT, tmp_path)
    committed = ROOT / "examples" / "probes" / "matlab_study"
    for made in sorted(tmp_path.iterdir()):
        assert made.read_text() == (committed / made.name).read_text(), made.name
