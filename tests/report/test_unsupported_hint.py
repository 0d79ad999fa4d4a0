"""An UNSUPPORTED check that stopped at a NaN (no real number) names the mode that can say more: --fp ieee runs
IEEE floats, NaN included, and shows where the bits part (llm.c's online softmax with fewer columns than lanes
makes 0·expf(−inf + inf) = NaN for its empty lanes)."""
from volta.cli import run

KERNEL = """.version 8.0
.target sm_80
.address_size 64
.visible .entry {name}(.param .u64 px, .param .u64 py)
{{
  .reg .b32 %r<2>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<7>;
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd2, [py];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  cvta.to.global.u64 %rd4, %rd1;
  add.s64 %rd5, %rd4, %rd3;
  ld.global.f32 %f1, [%rd5];
  {body}
  cvta.to.global.u64 %rd4, %rd2;
  add.s64 %rd6, %rd4, %rd3;
  st.global.f32 [%rd6], %f3;
  ret;
}}
"""


def test_a_nan_meeting_symbolic_data_points_at_fp_ieee(tmp_path, capsys):
    ref, opt = tmp_path / "ref.ptx", tmp_path / "opt.ptx"
    ref.write_text(KERNEL.format(name="plain", body="mov.f32 %f2, 0f3F800000;\n  add.f32 %f3, %f1, %f2;"))
    opt.write_text(KERNEL.format(name="nan", body="mov.f32 %f2, 0f7FC00000;\n  add.f32 %f3, %f1, %f2;"))
    code = run(["check", str(ref), str(opt), "--grid", "1", "--block", "4", "--args", "x,y",
                "--buffer", "x=f32[4]:in", "--buffer", "y=f32[4]:out", "-q"])
    out = capsys.readouterr().out
    assert code == 3 and out.startswith("UNSUPPORTED") and "NaN" in out
    assert "hint: --fp ieee runs both kernels on IEEE floats" in out
    code = run(["check", str(ref), str(opt), "--grid", "1", "--block", "4", "--args", "x,y",
                "--buffer", "x=f32[4]:in", "--buffer", "y=f32[4]:out", "--fp", "ieee", "-q"])
    assert code == 1 and "BITS DIFFER" in capsys.readouterr().out
