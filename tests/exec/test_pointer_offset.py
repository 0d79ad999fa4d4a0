"""`--args x+BYTES`: a pointer into a buffer at a byte offset (host code passing `x.data_ptr<float>() + k`)."""
import numpy as np
import pytest

import volta
from volta.cli import run
from volta.errors import UsageError
from volta.launch.spec import bind_args, KernelLaunch, Dim3, Buffer
from volta.launch.args import Name

PTX = "examples/vector_add/kernel.sm80.ptx"


def test_offset_pointer_reads_from_the_offset(tmp_path):
    np.savez(tmp_path / "in.npz", x=np.arange(8, dtype=np.float32), y=np.zeros(8, np.float32))
    code = run(["run", PTX, "--grid", "1", "--block", "32", "--args", "x+16,y,out,4", "--buffer", "x=f32[8]",
                "--buffer", "y=f32[8]", "--buffer", "out=f32[4]:out", "--inputs", str(tmp_path / "in.npz"),
                "--out", str(tmp_path / "out.npz"), "-q"])
    assert code == 0
    assert np.load(tmp_path / "out.npz")["out"].tolist() == [4.0, 5.0, 6.0, 7.0]


def test_offset_pointer_past_the_end_is_out_of_bounds():
    x, y, out = volta.Buffer("x", "f32", 8, "in"), volta.Buffer("y", "f32", 8, "in"), volta.Buffer("out", "f32", 8, "out")
    r = volta.races(PTX, volta.Launch(grid=1, block=32, args=["x+16", y, out, 8], kernel="vector_add"),
                    buffers=[x, y, out])
    assert r.verdict == "findings"
    assert {f.kind for f in r.findings} == {"out-of-bounds"}


def test_offset_on_a_scalar_parameter_is_a_usage_error():
    params = [("a", ".u32", 4)]
    with pytest.raises(UsageError, match="has type .u32"):
        bind_args(KernelLaunch(PTX, "k", Dim3(1), Dim3(1), (Name("x", 4),)), params, {"x": Buffer("x", "f32", 4)}, {})
