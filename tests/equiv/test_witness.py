"""Witnesses a user believes (issue 28 §2, volta/equiv/witness.py) through `volta check`: values of each buffer's
dtype, the relative difference on the headline, the .npz a GPU run takes as it stands, and its replay."""
from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np

from volta.cli import run
from volta.session.replay import load_npz
from volta.symbolic.domain import FORMATS, round_to

EX = Path(__file__).resolve().parents[2] / "examples"
REAL_IDIOMS = str(Path(__file__).parent / "data" / "real_idioms.ptx")
EXPF_PAIR = ["check", REAL_IDIOMS, REAL_IDIOMS, "--ref-kernel", "silu_expf", "--opt-kernel", "silu_fastexp",
             "--grid", "1", "--block", "32", "--args", "x,y,32", "--buffer", "x=f32[32]:in",
             "--buffer", "y=f32[32]:out", "-q"]


def _json(capsys, argv):
    code = run(argv + ["--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_sentinel_witness_is_f32_and_parts_clearly(capsys, tmp_path):
    """Running max from -1e20f: the solver's `-1e20f - 1` is no f32; the witness is an f32 window below the
    sentinel, scaled until the outputs part by half, and the .npz holds it as float32 that replays."""
    cex_file = tmp_path / "cex.npz"
    code, data = _json(capsys, ["check", str(EX / "neq_maxpool_sentinel_1e20" / "manifest.toml"), "-q",
                                "--save-counterexample", str(cex_file)])
    assert code == 1 and data["verdict"] == "not-equivalent"
    cex = data["counterexample"]
    values = [Fraction(v) for v in cex["inputs"]["x"].values()]
    assert all(round_to(v, FORMATS["f32"]) == v and v < -10 ** 20 for v in values)
    assert cex["relative_difference"] >= 0.5 and cex["below_resolution"] is None
    arrays = load_npz(cex_file)   # what `volta run --inputs` reads
    assert arrays["x"].dtype == np.float32 and arrays["x"].shape == (256,)
    assert json.loads(str(arrays["__counterexample__"])) == {"buffer": cex["buffer"], "index": cex["index"]}
    code = run(["check", str(EX / "neq_maxpool_sentinel_1e20" / "manifest.toml"), "-q", "--replay", str(cex_file)])
    assert code == 1 and capsys.readouterr().out.startswith("DIFFER")


def test_a_difference_below_f32_resolution_says_so(capsys):
    """logf against log2f·RN(ln 2): two libdevice polynomials, equal to f32 rounding; still exit 1."""
    code, data = _json(capsys, ["check", str(EX / "neq_logf_vs_log2f_ln2" / "manifest.toml"), "-q"])
    assert code == 1 and data["counterexample"]["below_resolution"] == "f32"
    assert data["counterexample"]["relative_difference"] < 2 ** -23
    code = run(["check", str(EX / "neq_logf_vs_log2f_ln2" / "manifest.toml"), "-q"])
    first = capsys.readouterr().out.splitlines()[0]
    assert code == 1 and "below f32 resolution: an approximation choice, not a lost term?" in first, first


def test_a_tiny_difference_is_scaled_up_where_it_grows(capsys):
    """expf against __expf read as rationals (--exact-constants) part by x·lo·ln 2 relative: the witness is
    scaled up until that shows (|x| * 1.9e-8), with both outputs still normal f32 values."""
    code, data = _json(capsys, EXPF_PAIR + ["--exact-constants"])
    cex = data["counterexample"]
    assert code == 1 and cex["relative_difference"] > 1e-7
    x = abs(Fraction(cex["inputs"]["x"]["0"]))
    assert x > 3 and round_to(x, FORMATS["f32"]) == x


def test_a_real_bug_is_the_witness_not_the_constant(capsys):
    """__expf(W x) against expf(W^T x): the exp forms are one function, so the outputs part by a large relative
    amount (the transposition), not by 1e-8 (the last digits of log2 e)."""
    code, data = _json(capsys, ["check", str(EX / "neq_expf_linear_transposed" / "manifest.toml"), "-q"])
    assert code == 1 and data["counterexample"]["relative_difference"] > 0.5
    assert data["constants"][0]["name"] == "log2 e"


def test_the_screen_decides_gelu_erf_against_tanh_over_a_dot_product(capsys):
    code, data = _json(capsys, ["check", str(EX / "neq_gelu_erf_tanh_dot32" / "manifest.toml"), "-q"])
    assert code == 1 and data["verdict"] == "not-equivalent"
    assert data["counterexample"]["relative_difference"] > 1e-4
    values = [Fraction(v) for vals in data["counterexample"]["inputs"].values() for v in vals.values()]
    assert all(round_to(v, FORMATS["f32"]) == v for v in values)


def test_bf16_witnesses_are_saved_as_words_and_replay(capsys, tmp_path):
    ptx = tmp_path / "k.ptx"
    ptx.write_text(""".version 8.0
.target sm_80
.address_size 64
.visible .entry scale(.param .u64 px, .param .u64 py)
{
    .reg .b16 %h<2>;
    .reg .b32 %r<2>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [px];
    ld.param.u64 %rd2, [py];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 2;
    add.s64 %rd6, %rd3, %rd5;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.b16 %h1, [%rd6];
    cvt.f32.bf16 %f1, %h1;
    mul.f32 %f2, %f1, 0f40400000;
    st.global.f32 [%rd7], %f2;
    ret;
}
.visible .entry scale_add(.param .u64 px, .param .u64 py)
{
    .reg .b16 %h<2>;
    .reg .b32 %r<2>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [px];
    ld.param.u64 %rd2, [py];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 2;
    add.s64 %rd6, %rd3, %rd5;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.b16 %h1, [%rd6];
    cvt.f32.bf16 %f1, %h1;
    add.f32 %f2, %f1, %f1;
    add.f32 %f2, %f2, %f2;
    st.global.f32 [%rd7], %f2;
    ret;
}
""")
    argv = ["check", str(ptx), str(ptx), "--ref-kernel", "scale", "--opt-kernel", "scale_add", "--grid", "1",
            "--block", "4", "--args", "x,y", "--buffer", "x=bf16[4]:in", "--buffer", "y=f32[4]:out", "-q"]
    cex_file = tmp_path / "cex.npz"
    code = run(argv + ["--save-counterexample", str(cex_file)])
    capsys.readouterr()
    assert code == 1
    arrays = load_npz(cex_file)
    assert arrays["x"].dtype == np.uint16   # bf16 as its words, as `volta run --inputs` takes them
    assert run(argv + ["--replay", str(cex_file)]) == 1
    assert capsys.readouterr().out.startswith("DIFFER")
    json_file = tmp_path / "cex.json"
    assert run(argv + ["--save-counterexample", str(json_file)]) == 1
    capsys.readouterr()
    assert run(argv + ["--replay", str(json_file)]) == 1


def test_exact_constants_in_a_manifest(capsys, tmp_path):
    case = tmp_path / "pair"
    shutil.copytree(EX / "eq_expf_fast_expf", case)
    manifest = case / "manifest.toml"
    text = manifest.read_text()
    assert run(["check", str(manifest), "-q"]) == 0
    manifest.write_text("exact_constants = true\n" + text.replace('check = "equivalent"', 'check = "not-equivalent"'))
    capsys.readouterr()
    assert run(["check", str(manifest), "-q"]) == 1
    manifest.write_text('exact_constants = "yes"\n' + text)
    capsys.readouterr()
    assert run(["check", str(manifest), "-q"]) == 2
    assert "exact_constants" in capsys.readouterr().err
