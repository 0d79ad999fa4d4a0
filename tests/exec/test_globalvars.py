"""Launch spellings of values the host sets: `--global NAME=VALUE` (volta/launch/globalvars.py) and a buffer of
known contents `NAME=u32[N]:in:iota` (an index array), through races, check and run."""
import json

import numpy as np
import pytest
from hypothesis import given, strategies as st

from volta.cli import run
from volta.errors import UsageError
from volta.launch import globalvars
from volta.launch.spec import parse_buffer

# nvcc -ptx -arch=sm_80 -O3 of: __device__ unsigned LIMIT; __device__ float SCALE; __device__ unsigned TABLE[4];
# first_writers(out): if (t < LIMIT) out[0] = t + TABLE[t & 3];   scaled(x, out): out[t] = x[t] * SCALE;
# doubled(x, out): out[t] = x[t] * 2;   gather(x, idx, out): out[t] = x[idx[t]];   copy(x, idx, out): out[t] = x[t];
# scatter_half(x, idx, out): out[idx[t] / 2] = x[t]
PTX = """
.version 9.0
.target sm_80
.address_size 64
.global .align 4 .u32 LIMIT;
.global .align 4 .f32 SCALE;
.global .align 4 .b8 TABLE[16];
.visible .entry first_writers(
	.param .u64 first_writers_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<7>;
	ld.param.u64 	%rd1, [first_writers_param_0];
	mov.u32 	%r1, %tid.x;
	ld.global.u32 	%r2, [LIMIT];
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd2, %rd1;
	shl.b32 	%r3, %r1, 2;
	cvt.u64.u32 	%rd3, %r3;
	and.b64  	%rd4, %rd3, 12;
	mov.u64 	%rd5, TABLE;
	add.s64 	%rd6, %rd5, %rd4;
	ld.global.u32 	%r4, [%rd6];
	add.s32 	%r5, %r4, %r1;
	st.global.u32 	[%rd2], %r5;
$L__BB0_2:
	ret;
}
.visible .entry scaled(
	.param .u64 scaled_param_0,
	.param .u64 scaled_param_1
)
{
	.reg .f32 	%f<4>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [scaled_param_0];
	ld.param.u64 	%rd2, [scaled_param_1];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd6];
	ld.global.f32 	%f2, [SCALE];
	mul.f32 	%f3, %f1, %f2;
	add.s64 	%rd7, %rd3, %rd5;
	st.global.f32 	[%rd7], %f3;
	ret;
}
.visible .entry doubled(
	.param .u64 doubled_param_0,
	.param .u64 doubled_param_1
)
{
	.reg .f32 	%f<3>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [doubled_param_0];
	ld.param.u64 	%rd2, [doubled_param_1];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd6];
	add.f32 	%f2, %f1, %f1;
	add.s64 	%rd7, %rd3, %rd5;
	st.global.f32 	[%rd7], %f2;
	ret;
}
.visible .entry gather(
	.param .u64 gather_param_0,
	.param .u64 gather_param_1,
	.param .u64 gather_param_2
)
{
	.reg .f32 	%f<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<12>;
	ld.param.u64 	%rd1, [gather_param_0];
	ld.param.u64 	%rd2, [gather_param_1];
	ld.param.u64 	%rd3, [gather_param_2];
	cvta.to.global.u64 	%rd4, %rd3;
	cvta.to.global.u64 	%rd5, %rd1;
	cvta.to.global.u64 	%rd6, %rd2;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd7, %r1, 4;
	add.s64 	%rd8, %rd6, %rd7;
	ld.global.u32 	%r2, [%rd8];
	mul.wide.u32 	%rd9, %r2, 4;
	add.s64 	%rd10, %rd5, %rd9;
	ld.global.f32 	%f1, [%rd10];
	add.s64 	%rd11, %rd4, %rd7;
	st.global.f32 	[%rd11], %f1;
	ret;
}
.visible .entry copy(
	.param .u64 copy_param_0,
	.param .u64 copy_param_1,
	.param .u64 copy_param_2
)
{
	.reg .f32 	%f<2>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [copy_param_0];
	ld.param.u64 	%rd2, [copy_param_2];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd6];
	add.s64 	%rd7, %rd3, %rd5;
	st.global.f32 	[%rd7], %f1;
	ret;
}
.visible .entry scatter_half(
	.param .u64 scatter_half_param_0,
	.param .u64 scatter_half_param_1,
	.param .u64 scatter_half_param_2
)
{
	.reg .f32 	%f<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<12>;
	ld.param.u64 	%rd1, [scatter_half_param_0];
	ld.param.u64 	%rd2, [scatter_half_param_1];
	ld.param.u64 	%rd3, [scatter_half_param_2];
	cvta.to.global.u64 	%rd4, %rd3;
	cvta.to.global.u64 	%rd5, %rd2;
	cvta.to.global.u64 	%rd6, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd7, %r1, 4;
	add.s64 	%rd8, %rd6, %rd7;
	ld.global.f32 	%f1, [%rd8];
	add.s64 	%rd9, %rd5, %rd7;
	ld.global.u32 	%r2, [%rd9];
	shr.u32 	%r3, %r2, 1;
	mul.wide.u32 	%rd10, %r3, 4;
	add.s64 	%rd11, %rd4, %rd10;
	st.global.f32 	[%rd11], %f1;
	ret;
}
"""


@pytest.fixture
def ptx(tmp_path):
    path = tmp_path / "globals.ptx"
    path.write_text(PTX)
    return str(path)


def races(ptx, kernel, *extra, capsys):
    code = run(["races", ptx, "--kernel", kernel, "--grid", "1", "--block", "8", "-q", "--json", *extra])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else out


def kinds(report) -> set:
    return {f["kind"] for k in report["kernels"] for f in k["findings"]}


def test_a_global_decides_which_threads_write(ptx, capsys):
    base = ["--args", "out", "--buffer", "out=u32[1]:out"]
    code, report = races(ptx, "first_writers", *base, "--global", "LIMIT=1", capsys=capsys)
    assert code == 0 and not kinds(report)
    code, report = races(ptx, "first_writers", *base, "--global", "LIMIT=0x2", capsys=capsys)
    assert code == 1 and kinds(report) == {"nondeterministic-write"}   # threads 0 and 1 store 0 and 1 to out[0]


@pytest.mark.parametrize("spelling, says", [
    ("LIMIT=abc", "not a number"), ("LIMIT=-1", "does not fit"), ("LIMIT=4294967296", "does not fit"),
    ("LIMIT=1.5", "must be an integer"), ("TABLE=1", "array of 16 elements"), ("NOPE=1", "declare: LIMIT, SCALE"),
    ("=3", "expected NAME=VALUE"), ("LIMIT", "expected NAME=VALUE")])
def test_bad_globals_are_usage_errors(ptx, capsys, spelling, says):
    code = run(["races", ptx, "--kernel", "first_writers", "--grid", "1", "--block", "8", "--args", "out",
                "--buffer", "out=u32[1]:out", "--global", spelling, "-q"])
    assert code == 2 and says in capsys.readouterr().err


def test_a_global_given_twice_is_a_usage_error(ptx, capsys):
    code = run(["races", ptx, "--kernel", "first_writers", "--grid", "1", "--block", "8", "--args", "out",
                "--buffer", "out=u32[1]:out", "--global", "LIMIT=1", "--global", "LIMIT=2", "-q"])
    assert code == 2 and "given twice" in capsys.readouterr().err


def test_check_reads_a_float_global_in_its_type(ptx, capsys):
    pair = ["check", ptx, ptx, "--ref-kernel", "doubled", "--opt-kernel", "scaled", "--grid", "1", "--block", "8",
            "--args", "x,out", "--buffer", "x=f32[8]:in", "--buffer", "out=f32[8]:out", "-q"]
    assert run(pair + ["--global", "SCALE=2"]) == 0
    assert run(pair + ["--global", "SCALE=2", "--fp", "ieee"]) == 0
    capsys.readouterr()
    assert run(pair + ["--global", "SCALE=3"]) == 1 and "NOT EQUIVALENT" in capsys.readouterr().out


def test_a_manifest_launch_sets_globals(ptx, tmp_path):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(f"""
[ref]
ptx = "{ptx}"
name = "doubled"
grid = "1"
block = "8"
args = ["x", "out"]
[opt]
ptx = "{ptx}"
name = "scaled"
grid = "1"
block = "8"
args = ["x", "out"]
globals = {{ SCALE = 2 }}
[buffers]
x = "f32[8]:in"
out = "f32[8]:out"
""")
    assert run(["check", str(manifest), "-q"]) == 0
    assert run(["check", str(manifest), "-q", "--global", "SCALE=3"]) == 1   # the command line wins


def test_run_sets_a_global(ptx, tmp_path):
    out = tmp_path / "out.npz"
    assert run(["run", ptx, "--kernel", "scaled", "--grid", "1", "--block", "8", "--args", "x,out", "--buffer",
                "x=f32[8]:in", "--buffer", "out=f32[8]:out", "--global", "SCALE=0.5", "--out", str(out), "-q"]) == 0
    saved = np.load(out)
    assert np.array_equal(saved["out"], saved["input.x"] * np.float32(0.5))


@given(st.sampled_from([(".u8", 8, False), (".s16", 16, True), (".u32", 32, False), (".b32", 32, None),
                        (".s64", 64, True)]), st.data())
def test_encode_is_the_little_endian_value(kind, data):
    ptx_type, bits, signed = kind
    lo = -(1 << (bits - 1)) if signed in (True, None) else 0
    hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    value = data.draw(st.integers(lo, hi))
    raw = globalvars.encode("V", ptx_type, 1, str(value))
    assert len(raw) == bits // 8 and int.from_bytes(raw, "little", signed=value < 0) == value
    with pytest.raises(UsageError):
        globalvars.encode("V", ptx_type, 1, str(data.draw(st.sampled_from([lo - 1, hi + 1]))))


def test_an_iota_index_array_makes_a_gather_structured(ptx, capsys):
    buffers = ["--args", "x,idx,out", "--buffer", "x=f32[8]:in", "--buffer", "out=f32[8]:out"]
    code, report = races(ptx, "gather", *buffers, "--buffer", "idx=u32[8]:in:iota", capsys=capsys)
    assert code == 0 and report["kernels"][0]["verdict"] == "clean"   # a proof: idx is known
    code, report = races(ptx, "scatter_half", *buffers, "--buffer", "idx=u32[8]:in:iota", capsys=capsys)
    assert code == 1 and kinds(report) == {"nondeterministic-write"}   # idx[2k] / 2 == idx[2k+1] / 2
    code, report = races(ptx, "gather", *buffers, "--buffer", "idx=u32[8]:in", capsys=capsys)
    assert kinds(report) == {"out-of-bounds"}   # unknown ids: concrete trials read past x


def test_check_decides_a_gather_through_an_iota_array(ptx, capsys):
    argv = ["check", ptx, ptx, "--ref-kernel", "copy", "--opt-kernel", "gather", "--grid", "1", "--block", "8",
            "--args", "x,idx,out", "--buffer", "x=f32[8]:in", "--buffer", "idx=u32[8]:in:iota", "--buffer",
            "out=f32[8]:out", "-q", "--json"]
    assert run(argv) == 0 and json.loads(capsys.readouterr().out)["verdict"] == "equivalent"


@pytest.mark.parametrize("text, says", [
    ("x=f32[8]:in:iota", "integer dtype"), ("i=u32[8]:inout:iota", "role in"), ("i=u8[300]:in:iota", "holds 299"),
    ("i=u32[8]:iota", ":iota follows the role")])
def test_bad_iota_buffers(text, says):
    with pytest.raises(UsageError, match=says):
        parse_buffer(text)


def test_iota_values():
    assert parse_buffer("i=s16[5]:in:iota").known_values().tolist() == [0, 1, 2, 3, 4]
    assert parse_buffer("i=s16[5]:in").known_values() is None
