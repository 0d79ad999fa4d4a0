"""examples/probes/replay_examples.py without a GPU: a stand-in `cupy` runs the `gpu` step, so the plan's
parameter packing and the supervisor (a hung case killed, a failed case skipped, the rest kept) are tested."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "probes" / "replay_examples.py"

FAKE_CUPY = '''
import os, time
import numpy as np


class _Array:
    def __init__(self, a):
        self.a = np.array(a)
        self.data = type("Pointer", (), {"ptr": 4096})()


def asarray(a):
    return _Array(a)


def asnumpy(x):
    return x.a


class _Kernel:
    def __init__(self, name):
        self.name = name

    def __call__(self, grid, block, args, shared_mem=0):
        assert all(isinstance(x, (_Array, np.generic)) for x in args), [type(x) for x in args]
        if self.name == os.environ.get("FAKE_HANG"):
            time.sleep(600)
        if self.name == os.environ.get("FAKE_FAIL"):
            raise RuntimeError("CUDA_ERROR_ILLEGAL_ADDRESS (stand-in)")


class RawModule:
    def __init__(self, path=None, code=None):
        assert path is None or os.path.exists(path), path

    def get_function(self, name):
        return _Kernel(name)


class _Device:
    def synchronize(self):
        pass


class cuda:
    Device = _Device
'''


@pytest.mark.slow
def test_plan_and_a_gpu_run_with_a_hang_and_a_failure(tmp_path):
    plan = tmp_path / "plan"
    subprocess.run([sys.executable, str(SCRIPT), "plan", "--out", str(plan)], check=True, capture_output=True)
    cases = {c["id"]: c for c in json.loads((plan / "plan.json").read_text())["cases"]}
    struct = cases["struct_params_axpy/kernel"]["launches"][0]["params"][0]
    assert struct["struct"] == 32 and [f[0] for f in struct["fields"]] == [0, 4, 8, 16, 24]  # offsets, C layout
    assert struct["fields"][0][2] == 300 and struct["fields"][1][2] == 0x3F000000  # {300, 0.5f, …}: 0.5f's bits

    fake = tmp_path / "fake"
    (fake / "cupy").mkdir(parents=True)
    (fake / "cupy" / "__init__.py").write_text(FAKE_CUPY)
    env = {**os.environ, "PYTHONPATH": str(fake), "FAKE_HANG": "saxpy", "FAKE_FAIL": "vector_add"}
    out = tmp_path / "gpu.npz"
    res = subprocess.run([sys.executable, str(SCRIPT), "gpu", "--plan", str(plan), "--out", str(out), "--timeout", "2",
                          "--only", "^(saxpy|vector_add|relu_fmax|struct_params_axpy)/"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    status = json.loads(out.with_suffix(".json").read_text())
    assert status["saxpy/kernel"].startswith("hang")
    assert status["vector_add/kernel"].startswith("fail: RuntimeError")
    assert status["relu_fmax/kernel"] == "ok" and status["struct_params_axpy/kernel"] == "ok"
    with np.load(out) as z:  # the cases after the hang and the failure ran, in fresh workers
        assert "relu_fmax/kernel::x" in z.files and "struct_params_axpy/kernel::y" in z.files
        assert "saxpy/kernel::x" not in z.files
