"""Findings name what the user needs: division by zero (PTX ISA §9.7.1.8 div: the quotient of a zero
divisor is unspecified, so it is a finding, not a number), uninitialized reads with the read's site, and
out-of-bounds accesses with the branch that admitted the lane."""
import pytest

from volta.exec import findings as F
from volta.launch.spec import from_options
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.ptx.parser import parse_text

HEADER = """
.version 8.0
.target sm_80
.address_size 64
"""

DIV = HEADER + """
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<5>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  sub.u32 %r2, %r1, 3;
  OP.u32 %r3, 100, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
"""


def _run(tmp_path, src, grid, block, args, buffers):
    path = tmp_path / "k.ptx"
    path.write_text(src)
    spec = from_options(path, None, grid, block, args, buffers)
    return Machine(lower(parse_text(src, str(path))), spec.launches["kernel"], spec.buffers, {}).run()


@pytest.mark.parametrize("op", ["div", "rem"])
def test_integer_division_by_zero_is_a_finding_naming_the_thread(tmp_path, op):
    m = _run(tmp_path, DIV.replace("OP", op), "1", "8", "out", ["out=u32[8]:out"])
    found = [f for f in m.findings if f.kind == F.DIV_BY_ZERO]
    assert len(found) == 1
    assert found[0].threads[0].thread == (3, 0, 0)
    assert found[0].sites[0].text.startswith(op)


def test_no_finding_without_a_zero_divisor(tmp_path):
    src = DIV.replace("OP", "div").replace("sub.u32 %r2, %r1, 3;", "add.u32 %r2, %r1, 3;")
    assert _run(tmp_path, src, "1", "8", "out", ["out=u32[8]:out"]).findings == []


OOB = HEADER + """
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [n];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  setp.gt.u32 %p1, %r1, %r2;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
DONE:
  ret;
}
"""


def test_out_of_bounds_names_the_branch_that_admitted_the_lane(tmp_path):
    m = _run(tmp_path, OOB, "1", "8", "out,4", ["out=u32[4]:out"])
    (f,) = [f for f in m.findings if f.kind == F.OUT_OF_BOUNDS]
    assert f.threads[0].thread == (4, 0, 0)
    assert [s.text for s in f.sites] == ["st.global.u32", "bra"]


UNINIT = HEADER + """
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 buf[32];
  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, buf;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  st.shared.u32 [%r4], %r1;
SKIP:
  bar.sync 0;
  ld.shared.u32 %r2, [%r4+4];
  add.u32 %r3, %r2, 1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
"""


def test_uninitialized_read_names_the_read_and_the_use(tmp_path):
    m = _run(tmp_path, UNINIT, "1", "4", "out", ["out=u32[4]:out"])
    (f,) = [f for f in m.findings if f.kind == F.UNINITIALIZED]
    assert [s.text for s in f.sites] == ["st.global.u32", "ld.shared.u32"]
    assert len(f.threads) == 2


SELP = HEADER + """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>; .reg .f32 %f<4>; .reg .b32 %r<3>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, LIMIT;
  selp.f32 %f1, 0f3F800000, %f2, %p1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
  ret;
}
"""


def test_selp_reads_only_the_arm_it_selects(tmp_path):
    """`selp r, 1.0, x, p` with x never written is defined wherever p holds (nvcc compiles a fill under a
    warp test to `selp f, 0, f, p`; the paper's FA1-TC was an UNINITIALIZED READ for it), and an uninitialized
    read in exactly the lanes where p fails."""
    clean = _run(tmp_path, SELP.replace("LIMIT", "4"), "1", "4", "out", ["out=f32[4]:out"])
    assert [f for f in clean.findings if f.kind == F.UNINITIALIZED] == []
    some = _run(tmp_path, SELP.replace("LIMIT", "2"), "1", "4", "out", ["out=f32[4]:out"])
    (f,) = [f for f in some.findings if f.kind == F.UNINITIALIZED]
    assert [t.thread[0] for t in f.threads] == [2], f.threads   # the first thread where p fails
