"""The API's launch modes — `globals`, `ctas`, `out_init` on `volta.check/races/run` — are the CLI's `--global`,
`--ctas` and `--out-init`: the same verdict and exit code on the same input, and Python words in their errors."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import volta
from volta.cli import run as cli

EX = Path(__file__).resolve().parents[2] / "examples"
DOT = str(EX / "eq_dot_shared_atomic" / "manifest.toml")   # atomicAdd into `out`, which nothing zeroes
GEMM = str(EX / "eq_gemm_naive_tiled" / "manifest.toml")

# nvcc -ptx -arch=sm_80 -O3 of: __device__ unsigned COUNT; __device__ float GAIN;
# tally(out): if (t < COUNT) out[0] = t;   gained(x, out): out[t] = x[t] * GAIN;   tripled(x, out): out[t] = x[t] * 3
PTX = """
.version 9.0
.target sm_80
.address_size 64
.global .align 4 .u32 COUNT;
.global .align 4 .f32 GAIN;
.visible .entry tally(
	.param .u64 tally_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [tally_param_0];
	mov.u32 	%r1, %tid.x;
	ld.global.u32 	%r2, [COUNT];
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd2], %r1;
$L__BB0_2:
	ret;
}
.visible .entry gained(
	.param .u64 gained_param_0,
	.param .u64 gained_param_1
)
{
	.reg .f32 	%f<4>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [gained_param_0];
	ld.param.u64 	%rd2, [gained_param_1];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd6];
	ld.global.f32 	%f2, [GAIN];
	mul.f32 	%f3, %f1, %f2;
	add.s64 	%rd7, %rd3, %rd5;
	st.global.f32 	[%rd7], %f3;
	ret;
}
.visible .entry tripled(
	.param .u64 tripled_param_0,
	.param .u64 tripled_param_1
)
{
	.reg .f32 	%f<3>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [tripled_param_0];
	ld.param.u64 	%rd2, [tripled_param_1];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd6];
	mul.f32 	%f2, %f1, 0f40400000;
	add.s64 	%rd7, %rd3, %rd5;
	st.global.f32 	[%rd7], %f2;
	ret;
}
"""


@pytest.fixture
def ptx(tmp_path):
    path = tmp_path / "globals.ptx"
    path.write_text(PTX)
    return str(path)


def _tally(count):
    return volta.Launch(1, 8, [volta.Buffer("out", "u32", 1, "out")], kernel="tally"), \
        ["--kernel", "tally", "--grid", "1", "--block", "8", "--args", "out", "--buffer", "out=u32[1]:out",
         "--global", f"COUNT={count}"]


@pytest.mark.parametrize("count, verdict", [(1, "clean"), (2, "findings")])
def test_races_globals_decide_as_the_cli(ptx, capsys, count, verdict):
    launch, argv = _tally(count)
    result = volta.races(ptx, launch, globals={"COUNT": count})
    assert result.verdict == verdict
    assert cli(["races", ptx, *argv, "-q"]) == result.exit_code


@pytest.mark.parametrize("gain, code", [(3, 0), (2.5, 1)])
def test_check_globals_decide_as_the_cli(ptx, gain, code):
    x, out = volta.Buffer("x", "f32", 8, "in"), volta.Buffer("out", "f32", 8, "out")
    result = volta.check(ptx, ptx, volta.Launch(1, 8, [x, out], kernel="tripled"),
                         opt_launch=volta.Launch(1, 8, [x, out], kernel="gained"), globals={"GAIN": gain})
    assert result.exit_code == code
    assert cli(["check", ptx, ptx, "--ref-kernel", "tripled", "--opt-kernel", "gained", "--grid", "1", "--block",
                "8", "--args", "x,out", "--buffer", "x=f32[8]:in", "--buffer", "out=f32[8]:out",
                "--global", f"GAIN={gain}", "-q"]) == code


def test_run_sets_a_global_as_the_cli(ptx, tmp_path):
    x, out = volta.Buffer("x", "f32", 8, "in"), volta.Buffer("out", "f32", 8, "out")
    result = volta.run(ptx, volta.Launch(1, 8, [x, out], kernel="gained"), globals={"GAIN": 0.5}, seed=1)
    assert np.array_equal(result.outputs["out"], result.inputs["x"] * np.float32(0.5))
    path = tmp_path / "cli.npz"
    assert cli(["run", ptx, "--kernel", "gained", "--grid", "1", "--block", "8", "--args", "x,out", "--buffer",
                "x=f32[8]:in", "--buffer", "out=f32[8]:out", "--global", "GAIN=0.5", "--seed", "1", "--out",
                str(path), "-q"]) == 0
    assert np.array_equal(np.load(path)["out"], result.outputs["out"])


@pytest.mark.parametrize("given, says", [
    ({"COUNT": "3"}, "must be an int or a float"), ({"COUNT": True}, "must be an int or a float"),
    ({"NOPE": 1}, "globals NOPE=1: no launched module declares"), ({"COUNT": -1}, "does not fit"),
    ({"COUNT": 1.5}, "must be an integer"), ({"1x": 1}, "is not a variable name")])
def test_bad_globals_are_usage_errors_in_python_words(ptx, given, says):
    launch, _ = _tally(1)
    with pytest.raises(volta.UsageError, match=says) as err:
        volta.races(ptx, launch, globals=given)
    assert "--global" not in err.value.message


def test_ctas_select_as_the_cli(capsys):
    result = volta.races(str(EX / "bug_gemm_tiled_nosync" / "manifest.toml"), ctas="1x1")
    assert cli(["races", str(EX / "bug_gemm_tiled_nosync" / "manifest.toml"), "--ctas", "1x1", "-q"]) \
        == result.exit_code == 1
    assert json.loads(result.report("json"))["kernels"][0]["ctas"].startswith("1 of 4 CTAs: (1, 1, 0)")
    checked = volta.check(GEMM, ctas="1x0")
    capsys.readouterr()
    assert cli(["check", GEMM, "--ctas", "1x0", "-q", "--json"]) == checked.exit_code == 0
    cli_json, api_json = json.loads(capsys.readouterr().out), json.loads(checked.report("json"))
    assert api_json["verdict_text"] == cli_json["verdict_text"] == "EQUIVALENT ON THE SELECTED CTAS"
    assert api_json["coverage"] == cli_json["coverage"] and api_json["compared"] == cli_json["compared"] == 256
    ran = volta.run(GEMM, role="ref", ctas="0")
    assert any(n.startswith("--ctas: only 1 of") for n in ran.notes)


def test_bad_ctas_are_usage_errors_in_python_words():
    with pytest.raises(volta.UsageError, match="ctas applies to the check over the reals .fp='real'"):
        volta.check(GEMM, ctas="0", fp="ieee")
    with pytest.raises(volta.UsageError, match="CTA 9 is outside the grid"):
        volta.check(GEMM, ctas="9")
    with pytest.raises(volta.UsageError, match="ctas is a string"):
        volta.races(GEMM, ctas=[0])


def test_out_init_undefined_as_the_cli():
    assert volta.check(DOT).exit_code == 0
    for command, call in (("check", lambda: volta.check(DOT, out_init="undefined")),
                          ("races", lambda: volta.races(DOT, out_init="undefined")),
                          ("run", lambda: volta.run(DOT, role="opt", out_init="undefined"))):
        result = call()
        assert result.exit_code == 1
        assert cli([command, DOT, *(["--kernel", "opt"] if command == "run" else []), "-q", "--out-init",
                    "undefined"]) == 1
    with pytest.raises(volta.UsageError, match="unknown out_init `nothing`"):
        volta.races(DOT, out_init="nothing")
