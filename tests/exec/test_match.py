"""match.sync (PTX ISA §9.7.13.5): lanes of a warp grouped by equal values."""
import numpy as np

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
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  MATCH
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
"""


def _run(tmp_path, match):
    src = KERNEL.replace("MATCH", match)
    path = tmp_path / "k.ptx"
    path.write_text(src)
    spec = from_options(path, None, "1", "32", "out", ["out=u32[32]:out"])
    m = Machine(lower(parse_text(src, str(path))), spec.launches["kernel"], spec.buffers, {}).run()
    assert m.findings == []
    return m.buffer_regions["out"].data[0, :128].view(np.uint32)


def test_match_any_groups_lanes_with_equal_values(tmp_path):
    out = _run(tmp_path, "match.any.sync.b32 %r3, %r2, -1;")
    for lane in range(32):  # lanes with equal tid & 3: every fourth lane
        assert out[lane] == sum(1 << j for j in range(32) if j % 4 == lane % 4)


def test_match_all_is_zero_unless_every_member_agrees(tmp_path):
    assert (_run(tmp_path, "match.all.sync.b32 %r3|%p1, %r2, -1;") == 0).all()
    assert (_run(tmp_path, "match.all.sync.b32 %r3|%p1, %r2, 0x11111111;") == 0x11111111).all()
