"""Struct parameters passed by value (`.param .align 8 .b8 p[24]`), end to end through the CLI and the API.

A pointer field must behave exactly like a pointer parameter (buffers, bounds, races, null pointers) and a
number field like a scalar parameter; bad struct arguments are one-paragraph usage errors naming the parameter
and file:line:col. The examples are nvcc output (examples/*struct_params*); struct_edge.ptx is hand-written.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from volta.cli import run
from volta.launch import args as kernel_args, structargs
from volta.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
RACE = EX / "bug_struct_params_race"
AXPY = EX / "struct_params_axpy"
EDGE = str(Path(__file__).parent / "data" / "struct_edge.ptx")
PAIR_PTX = str(RACE / "kernel.sm80.ptx")
AXPY_PTX = str(AXPY / "kernel.sm80.ptx")
PAIR = ["--grid", "2", "--block", "64", "--buffer", "x=f32[128]", "--buffer", "out=f32[64]"]
AXPY_LAUNCH = ["--grid", "2", "--block", "64", "--buffer", "x=f32[300]:in", "--buffer", "y=f32[300]:inout"]


def _usage(capsys, argv, *needles):
    assert run(argv) == 2, argv
    captured = capsys.readouterr()
    err = captured.err
    assert "Traceback" not in err + captured.out
    for n in needles:
        assert n in err, (n, err)
    return err


# ---- races ------------------------------------------------------------------------------------------

def test_a_race_through_struct_pointer_fields(capsys):
    assert run(["races", str(RACE / "manifest.toml"), "-q"]) == 1
    out = capsys.readouterr().out
    assert "RACE" in out and "on `out`" in out and "kernel.cu:13" in out


def test_the_same_kernel_without_the_collision_is_clean(capsys):
    # fields by offset; out has room for every i / 2, and one thread per pair (n = 1) cannot collide
    assert run(["races", PAIR_PTX, *PAIR, "--args", "{0:x,8:out,16:1}", "-q"]) == 0
    assert "CLEAN" in capsys.readouterr().out


def test_a_pointer_field_is_bounds_checked_like_a_pointer_parameter(capsys):
    argv = ["races", AXPY_PTX, "--grid", "2", "--block", "64", "--buffer", "x=f32[300]", "--buffer", "y=f32[200]",
            "--args", "{300,0.5,x,y,128:s64}", "-q"]
    assert run(argv) == 1
    out = capsys.readouterr().out
    assert "OUT-OF-BOUNDS" in out and "past the end of `y`" in out and "`x`" not in out.split("verdict")[0]


def test_a_null_pointer_field_is_a_null_pointer(capsys):
    assert run(["races", AXPY_PTX, *AXPY_LAUNCH, "--args", "{300,0.5,x,null,128:s64}", "-q"]) == 1
    out = capsys.readouterr().out
    assert "NULL POINTER dereference of field +16 of struct parameter `axpy_struct_param_0` (argument 1)" in out


def test_the_struct_count_field_decides_the_trip_count(capsys):
    # n = 128 with 128 threads: every element once, clean; the 300-element run above is also clean
    assert run(["races", AXPY_PTX, *AXPY_LAUNCH, "--args", "{128,0.5,x,y,128:s64}", "-q"]) == 0
    # the stride field is a 64-bit number read with ld.param.u64: stride 64 makes two threads share elements
    assert run(["races", AXPY_PTX, *AXPY_LAUNCH, "--args", "{300,0.5,x,y,64:s64}", "-q"]) == 1
    assert "RACE" in capsys.readouterr().out


# ---- run ----------------------------------------------------------------------------------------------

def _run_axpy(tmp_path, args):
    x = np.arange(300, dtype=np.float32)
    y = np.full(300, 3.0, np.float32)
    np.savez(tmp_path / "in.npz", x=x, y=y)
    code = run(["run", AXPY_PTX, *AXPY_LAUNCH, "--args", args, "--inputs", str(tmp_path / "in.npz"),
                "--out", str(tmp_path / "out.npz")])
    return code, x, y, np.load(tmp_path / "out.npz")["y"] if code == 0 else None


def test_run_computes_with_the_struct_fields(tmp_path):
    code, x, y, out = _run_axpy(tmp_path, "{300,0.5,x,y,128:s64}")
    assert code == 0
    np.testing.assert_array_equal(out, np.float32(0.5) * x + y)
    # an untyped integer read by ld.param.f32 is that float, as for a scalar parameter
    code, x, y, out = _run_axpy(tmp_path, "{300,2,x,y,128:s64}")
    assert code == 0
    np.testing.assert_array_equal(out, 2 * x + y)
    # n = 100: only the first 100 elements change
    code, x, y, out = _run_axpy(tmp_path, "{100,0.5,x,y,128:s64}")
    np.testing.assert_array_equal(out[:100], np.float32(0.5) * x[:100] + y[:100])
    np.testing.assert_array_equal(out[100:], y[100:])


# ---- check over the reals ---------------------------------------------------------------------------

def test_check_pairs_with_struct_parameters(capsys, tmp_path):
    assert run(["check", str(EX / "eq_struct_params_axpy" / "manifest.toml"), "-q"]) == 0
    assert capsys.readouterr().out.startswith("EQUIVALENT")
    cex = tmp_path / "cex.json"
    neq = str(EX / "neq_struct_params_axpy" / "manifest.toml")
    assert run(["check", neq, "-q", "--save-counterexample", str(cex)]) == 1
    assert capsys.readouterr().out.startswith("NOT EQUIVALENT")
    assert run(["check", neq, "-q", "--replay", str(cex)]) == 1  # the counterexample re-executes
    assert "Traceback" not in capsys.readouterr().err


def test_check_option_form_with_a_struct_argument(capsys):
    ref = str(EX / "eq_struct_params_axpy" / "ref.sm80.ptx")
    opt = str(EX / "eq_struct_params_axpy" / "opt.sm80.ptx")
    common = ["--grid", "2", "--block", "128", "--buffer", "x=f32[200]:in", "--buffer", "y=f32[200]:inout",
              "--symbol", "a=f32", "--ref-args", "x,y,a,200", "-q"]
    assert run(["check", ref, opt, *common, "--opt-args", "{200,a,y,x}"]) == 0
    capsys.readouterr()
    # fields swapped: the struct's y is the plain kernel's x
    assert run(["check", ref, opt, *common, "--opt-args", "{200,a,x,y}"]) == 1
    assert capsys.readouterr().out.startswith("NOT EQUIVALENT")


# ---- bad input -------------------------------------------------------------------------------------

def test_too_many_fields_is_past_the_declared_size(capsys):
    _usage(capsys, ["races", PAIR_PTX, *PAIR, "--args", "{x,out,128,7,8}"],
           "pair_sum_param_0", "past the parameter's declared 24 bytes", "kernel.sm80.ptx:")


def test_too_few_fields_leave_a_read_uncovered(capsys):
    _usage(capsys, ["races", PAIR_PTX, *PAIR, "--args", "{x,out}"],
           "pair_sum_param_0", "reads 4 bytes at +16", "no field", "kernel.sm80.ptx:")


def test_overlapping_fields(capsys):
    _usage(capsys, ["races", PAIR_PTX, *PAIR, "--args", "{0:x,4:out,16:128}"], "overlaps", "pair_sum_param_0")


def test_a_number_where_the_kernel_reads_a_pointer(capsys):
    # the two 4-byte numbers at +8 and +12 are the 8 bytes the kernel uses as `out`
    _usage(capsys, ["races", PAIR_PTX, *PAIR, "--args", "{x,5:u32,0:s32,128}"], "pair_sum_param_0+8",
           "used as a pointer")


def test_part_of_a_pointer_field(capsys):
    # a 4-byte read at +16 of a field given as a pointer
    _usage(capsys, ["races", PAIR_PTX, *PAIR, "--args", "{x,out,out}"], "pointer of 8 bytes at +16")


def test_a_plain_entry_for_a_struct_and_a_struct_for_a_plain_parameter(capsys):
    _usage(capsys, ["races", PAIR_PTX, *PAIR, "--args", "x"], "is a struct passed by value", "pair_sum_param_0",
           "kernel.sm80.ptx:")
    _usage(capsys, ["races", str(EX / "vector_add" / "kernel.sm80.ptx"), "--grid", "4", "--block", "128",
                    "--buffer", "x=f32[500]", "--args", "{x},x,x,500"], "is a struct", "vector_add_param_0")


@pytest.mark.parametrize("args, needle", [
    ("{x,out,128", "never closed"), ("x,out}", "closes no"), ("{x,,128}", "bad field"),
    ("{x,out,128:u33}", "unknown type `u33`"), ("{x,out,z}", "neither a declared buffer"),
    ("{x,out,1.5:s32}", "not an integer"), ("{x:u32,out,1}", "pointer"), ("{x,out,{1}}", "nested struct"),
    ("{x,out,99999999999}", "does not fit"), ("{-8:x,out,1}", "negative offset"), ("{}", "no fields"),
])
def test_malformed_struct_entries(capsys, args, needle):
    _usage(capsys, ["races", PAIR_PTX, *PAIR, "--args", args], needle)


def test_a_kernel_reading_past_its_struct(capsys):
    _usage(capsys, ["races", EDGE, "--kernel", "read_past", "--grid", "2", "--block", "32", "--buffer", "x=u32[4]",
                    "--args", "{x,1,2}"], "read_past_param_0", "past its declared 24 bytes", "struct_edge.ptx:17:")


def test_a_struct_whose_address_is_taken_lives_in_parameter_memory(capsys):
    """`mov.u64 %rd3, p` then `ld.param.u64 %rd1, [%rd3]`: the pointer field read through the struct's address
    in the parameter state space is buffer x, so every thread storing 1 there is a benign race on `x`."""
    argv = ["races", EDGE, "--kernel", "address_taken", "--grid", "2", "--block", "32", "--buffer", "x=u32[4]",
            "--buffer", "y=u32[4]", "--args", "{x,y}", "-q"]
    assert run(argv) == 1
    out = capsys.readouterr().out
    assert "BENIGN RACE" in out and "benign race on `x`" in out
    assert run(argv[:-3] + ["--args", "{null,y}", "-q"]) == 1   # a null pointer field holds address 0
    assert "OUT OF BOUNDS" in capsys.readouterr().out


def test_a_symbol_field_of_an_addressed_struct_is_unsupported(capsys):
    argv = ["races", EDGE, "--kernel", "address_taken", "--grid", "2", "--block", "32", "--buffer", "x=u32[4]",
            "--symbol", "a=f32", "--args", "{x,a}", "-q"]
    assert run(argv) == 3
    assert "is a symbol: only concrete fields" in capsys.readouterr().out


@pytest.mark.parametrize("kernel, needle", [("wide_load", "16 bytes at once")])
def test_structs_that_cannot_be_split_are_unsupported(capsys, kernel, needle):
    argv = ["races", EDGE, "--kernel", kernel, "--grid", "2", "--block", "32", "--buffer", "x=u32[4]",
            "--buffer", "y=u32[4]", "--args", "{x,y}", "-q"]
    assert run(argv) == 3
    out = capsys.readouterr().out
    assert "UNSUPPORTED" in out and needle in out and "struct_edge.ptx:" in out


def test_manifest_struct_arguments_as_toml_arrays(capsys, tmp_path):
    text = (RACE / "manifest.toml").read_text().replace('args = ["{x,out,128}"]', 'args = [["x", "out", "128"]]')
    text = text.replace('ptx = "kernel.sm80.ptx"', f'ptx = "{RACE / "kernel.sm80.ptx"}"')
    text = text.replace('cuda = "kernel.cu"', f'cuda = "{RACE / "kernel.cu"}"')
    (tmp_path / "manifest.toml").write_text(text)
    assert run(["races", str(tmp_path / "manifest.toml"), "-q"]) == 1
    assert "RACE" in capsys.readouterr().out


# ---- layout and the API ----------------------------------------------------------------------------

def test_layout_is_c_natural_alignment():
    fields = kernel_args.struct("{1:u8,2:s16,3:s64,x,0.5,4:f64,44:7,null}", "t").fields
    placed = structargs.place(fields, 56, "t", None, {"x": object()}, {})
    assert [(f.offset, f.width) for f in placed] == [(0, 1), (2, 2), (8, 8), (16, 8), (24, 4), (32, 8), (44, 4),
                                                     (48, 8)]
    with pytest.raises(UsageError, match="overlaps"):
        structargs.place(kernel_args.struct("{x,4:1}", "t").fields, 16, "t", None, {"x": object()}, {})


def test_entries_split_at_top_level_commas_only():
    assert kernel_args.split_entries("x,{a,b,1},3") == ("x", "{a,b,1}", "3")
    assert [str(a) for a in kernel_args.entries("x,{a,b,1},3")] == ["x", "{a,b,1}", "3"]
    alpha = {"alpha": kernel_args.Number(0.5, "0.5")}
    given = kernel_args.with_numbers(kernel_args.entry("{x,8:alpha,1}"), alpha, {"alpha": "f64"})
    assert str(given) == "{x,8:0.5:f64,1}"
    assert [type(f.value) for f in given.fields] == [kernel_args.Name, kernel_args.Number, kernel_args.Number]


def test_api_struct_argument():
    import volta

    x, out = volta.Buffer("x", "f32", 128, "in"), volta.Buffer("out", "f32", 64, "inout")
    r = volta.races(PAIR_PTX, volta.Launch(grid=2, block=64, args=[volta.Struct(x, out, 128)]))
    assert r.exit_code == 1 and any(f.kind == "race" for f in r.findings), r.report()
    clean = volta.races(PAIR_PTX, volta.Launch(grid=2, block=64, args=[volta.Struct({0: x, 8: out, 16: (1, "s32")})]))
    assert clean.exit_code == 0, clean.report()
    with pytest.raises(volta.UsageError, match="pair_sum_param_0"):
        volta.races(PAIR_PTX, volta.Launch(grid=2, block=64, args=[volta.Struct(x, out)]))


# ---- field types from the CUDA source --------------------------------------------------------------

def _axpy_manifest(tmp_path, args: str) -> str:
    text = (AXPY / "manifest.toml").read_text().replace('args = ["{300,0.5,x,y,128:s64}"]', f'args = ["{args}"]')
    for name in ("kernel.sm80.ptx", "kernel.cu"):
        text = text.replace(f'"{name}"', f'"{AXPY / name}"')
    (tmp_path / "manifest.toml").write_text(text)
    return str(tmp_path / "manifest.toml")


def test_the_cuda_signature_types_positional_fields(capsys, tmp_path):
    # `long long stride` is 8 bytes: from the manifest's cuda = key, an untyped 128 fills it
    assert run(["races", _axpy_manifest(tmp_path, "{300,0.5,x,y,128}"), "-q"]) == 0
    assert "CLEAN" in capsys.readouterr().out
    # without the source the same entry is 4 bytes at +24 and the kernel's 8-byte read is refused
    assert run(["races", AXPY_PTX, *AXPY_LAUNCH, "--args", "{300,0.5,x,y,128}"]) == 2
    assert "reads 8 bytes at +24" in capsys.readouterr().err
    # a .cu input compiled by nvcc knows its source too
    assert run(["races", str(AXPY / "kernel.cu"), *AXPY_LAUNCH, "--args", "{300,2,x,y,128}", "-q"]) == 0


def test_the_cuda_signature_fixes_the_field_count(capsys, tmp_path):
    _usage(capsys, ["races", _axpy_manifest(tmp_path, "{300,0.5,x,y}")], "axpy_struct_param_0",
           "the CUDA source declares 5 fields (s32 n, f32 a, ptr x, ptr y, s64 stride) but the entry gives 4",
           "kernel.sm80.ptx:16:")
    _usage(capsys, ["races", _axpy_manifest(tmp_path, "{x,0.5,x,y,128}")], "field `n` is a s32 in the CUDA source")


def test_cuda_struct_fields_parser(tmp_path):
    from volta.launch.cudastruct import struct_fields

    cu = tmp_path / "k.cu"
    cu.write_text("// a comment { }\nstruct P { const float* __restrict__ in, *out; unsigned long long n; double d;"
                  " short s; };\nstruct Q { int v[4]; };\n"
                  'extern "C" __global__ void k(P p, int m) {}\nextern "C" __global__ void q(const Q s) {}\n')
    assert struct_fields(cu, "k", 0) == [("in", "ptr"), ("out", "ptr"), ("n", "u64"), ("d", "f64"), ("s", "s16")]
    assert struct_fields(cu, "k", 1) is None  # not a struct
    assert struct_fields(cu, "q", 0) is None  # an array field: the explicit rule applies
    assert struct_fields(cu, "missing", 0) is None


def test_signed_narrow_parameters_are_sign_extended(tmp_path):
    """nvcc reads a `char`/`short` field or parameter with ld.param.s8/.s16 into a 64-bit register."""
    import numpy as np

    ptx = str(Path(__file__).parent / "data" / "signed_params.ptx")
    for kernel, args, want in (("k", "{-1:s8,-2:s16,5:s64},out", 2), ("k2", "-2,out", -6)):
        out = tmp_path / f"{kernel}.npz"
        code = run(["run", ptx, "--kernel", kernel, "--grid", "1", "--block", "1", "--args", args,
                    "--buffer", "out=s64[1]:out", "--out", str(out), "-q"])
        assert code == 0 and int(np.load(out)["out"][0]) == want
