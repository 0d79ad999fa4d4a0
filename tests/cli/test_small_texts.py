"""The small texts that misled a newcomer (issue 32 §10), each said as it is now."""
from __future__ import annotations

from pathlib import Path

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"
HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n"
FILL = HEADER + """
.visible .entry fill(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r1;
    ret;
}
"""
VA = [str(EX / "vector_add" / "kernel.sm80.ptx"), "--grid", "4", "--block", "128", "--args", "x,y,out,500"]


def test_a_file_with_no_kernel_says_so(tmp_path, capsys):
    empty = tmp_path / "empty.ptx"
    empty.write_text(HEADER)
    assert run(["races", str(empty), "--grid", "1", "--block", "1", "--args", "x", "--buffer", "x=f32[1]"]) == 2
    err = capsys.readouterr().err
    assert "has no kernel (no .entry with a body)" in err and "0 kernels" not in err and "--kernel" not in err


def test_a_refused_launch_is_not_announced_as_executing(capsys):
    code = run(["races", *VA[:1], "--grid", "2147483647", "--block", "1024", "--args", "x,y,out,500",
                "--buffer", "x=f32[500]:in", "--buffer", "y=f32[500]:in", "--buffer", "out=f32[500]:out"])
    err = capsys.readouterr().err
    assert code == 2 and "more than the limit" in err and "executing" not in err


def test_no_input_buffers_is_not_random_for_no_input_buffers(tmp_path, capsys):
    ptx = tmp_path / "fill.ptx"
    ptx.write_text(FILL)
    assert run(["run", str(ptx), "--grid", "1", "--block", "32", "--args", "out", "--buffer", "out=u32[32]:out",
                "-q", "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert "seed 1, no input to draw (no in/inout buffer or symbol)" in err and "for no input buffers" not in err
    assert run(["run", str(ptx), "--grid", "1", "--block", "32", "--args", "out", "--buffer", "out=u32[32]:out",
                "-q", "--inputs", "zeros"]) == 0
    assert "zeros for nothing (no in/inout buffer or symbol)" in capsys.readouterr().err


def test_one_element_is_singular_and_a_pipeline_shows_every_launch(capsys):
    manifest = str(EX / "eq_blocksum_two_kernels" / "manifest.toml")
    assert run(["check", manifest, "-q"]) == 0
    out = capsys.readouterr().out
    assert "  1 output element compared:" in out and "1 output elements" not in out
    assert "opt block_sums → final_reduce (" in out and "grid 8 → 2, block 128 → 32" in out
    assert run(["run", manifest, "--kernel", "opt", "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ran block_sums → final_reduce (") and "grid 8 → 2 block 128 → 32" in out


def test_a_manifest_buffer_typo_names_the_file_and_key(tmp_path, capsys):
    text = (EX / "vector_add" / "manifest.toml").read_text().replace('"f32[500]:in"', '"f3[500]:in"', 1)
    text = text.replace('ptx = "kernel.sm80.ptx"', f'ptx = "{EX / "vector_add" / "kernel.sm80.ptx"}"')
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(text)
    assert run(["races", str(manifest)]) == 2
    err = capsys.readouterr().err
    assert f"{manifest}: [buffers] x = 'f3[500]:in': unknown dtype `f3`" in err and "--buffer" not in err


def test_out_of_bounds_says_how_many_threads_and_labels_the_branch(capsys):
    code = run(["races", *VA, "--buffer", "x=f32[500]:in", "--buffer", "y=f32[400]:in",
                "--buffer", "out=f32[500]:out", "-q"])
    out = capsys.readouterr().out
    assert code == 1 and "OUT-OF-BOUNDS: read of 4 bytes past the end of `y` (by 100 threads)" in out
    assert "  last branch before it:  bra  " in out


def test_sarif_labels_the_branch_too(capsys):
    import json

    assert run(["races", *VA, "--buffer", "x=f32[500]:in", "--buffer", "y=f32[400]:in",
                "--buffer", "out=f32[500]:out", "-q", "--sarif"]) == 1
    texts = [r["message"]["text"] for r in json.loads(capsys.readouterr().out)["runs"][0]["results"][0]
             ["relatedLocations"]]
    assert "PTX of the last branch before it: bra" in texts and not any("second access" in t for t in texts)
