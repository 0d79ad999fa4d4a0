"""bar.red (PTX ISA §9.7.13.1 barrier): every arriving thread receives the CTA-wide reduction."""
import numpy as np
import pytest

from volta.launch.spec import from_options
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.ptx.parser import parse_text

KERNEL = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r4, %r3, %r4, %r1;
  setp.lt.u32 %p1, %r1, 10;
  bar.red.OP %r2, 0, %p1;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


@pytest.mark.parametrize("op, expected", [("popc.u32", 10), ("and.pred", 0), ("or.pred", 1)])
def test_bar_red_gives_every_thread_the_cta_reduction(tmp_path, op, expected):
    src = KERNEL.replace("OP", op)
    if op.endswith("pred"):  # the predicate forms write a predicate: widen it for the store
        src = src.replace("bar.red.%s %%r2" % op, "bar.red.%s %%p1" % op).replace(
            "st.global.u32 [%rd3], %r2;", "selp.u32 %r2, 1, 0, %p1;\n  st.global.u32 [%rd3], %r2;")
    path = tmp_path / "k.ptx"
    path.write_text(src)
    spec = from_options(path, None, "2", "64", "out", ["out=u32[128]:out"])
    launch = spec.launches["kernel"]
    m = Machine(lower(parse_text(src, str(path))), launch, spec.buffers, {}).run()
    assert m.findings == []
    out = m.buffer_regions["out"].data[0, :512].view(np.uint32)
    assert (out == expected).all()
