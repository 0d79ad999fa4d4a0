"""shfl.sync (PTX ISA §9.7.9.6 "shfl.sync"): up/down/bfly/idx with the clamp (c[4:0]) and segment mask (c[12:8]),
run as tiny kernels through the executor. Out-of-range sources return the lane's own value and clear the
predicate. Expected values are written out by hand from the mode's definition, not computed by the formula."""
from __future__ import annotations

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
.visible .entry k(.param .u64 out, .param .u64 pred, .param .u32 b, .param .u32 c)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [pred];
  ld.param.u32 %r1, [b];
  ld.param.u32 %r2, [c];
  mov.u32 %r3, %tid.x;
  mul.lo.u32 %r4, %r3, 10;
  shfl.sync.MODE.b32 %r5|%p1, %r4, %r1, %r2, -1;
  selp.u32 %r6, 1, 0, %p1;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.u32 %rd4, %r3, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r5;
  cvta.to.global.u64 %rd6, %rd2;
  add.s64 %rd7, %rd6, %rd4;
  st.global.u32 [%rd7], %r6;
  ret;
}
"""


def shfl(mode: str, b: int, c: int):
    """(source lane per lane, predicate per lane) for one warp: values are 10 × lane."""
    prog = lower(parse_text(KERNEL.replace("MODE", mode), "shfl.ptx"))
    spec = from_options("shfl.ptx", None, "1", "32", f"out,pred,{b},{c}", ["out=u32[32]:out", "pred=u32[32]:out"])
    m = Machine(prog, spec.launches["kernel"], spec.buffers, {}, structured=False).run()
    assert m.findings == []
    out = m.buffer_regions["out"].data[0, :128].view(np.uint32)
    pred = m.buffer_regions["pred"].data[0, :128].view(np.uint32)
    return [int(v) // 10 for v in out], [int(p) for p in pred]


def test_down_full_warp():
    src, p = shfl("down", 1, 0x1F)
    assert src[:31] == list(range(1, 32)) and p[:31] == [1] * 31
    assert src[31] == 31 and p[31] == 0  # lane 31 + 1 is past the clamp: own value, predicate false


def test_up_full_warp():
    src, p = shfl("up", 2, 0)
    assert src[:2] == [0, 1] and p[:2] == [0, 0]
    assert src[2:] == list(range(0, 30)) and p[2:] == [1] * 30


def test_bfly():
    src, p = shfl("bfly", 1, 0x1F)
    assert src[:4] == [1, 0, 3, 2] and all(p)
    src, _ = shfl("bfly", 16, 0x1F)
    assert src[0] == 16 and src[16] == 0


def test_idx_broadcast_and_out_of_range():
    src, p = shfl("idx", 5, 0x1F)
    assert src == [5] * 32 and all(p)
    src, p = shfl("idx", 5, 0x3)  # clamp 3: source lane 5 is out of range for every lane
    assert src == list(range(32)) and not any(p)


def test_segments_of_eight():
    seg8 = (0x18 << 8) | 0x1F  # segment mask 24 (width 8), clamp 31
    src, p = shfl("down", 1, seg8)
    assert src[:8] == [1, 2, 3, 4, 5, 6, 7, 7] and p[:8] == [1] * 7 + [0]
    assert src[8:16] == [9, 10, 11, 12, 13, 14, 15, 15]
    src, p = shfl("idx", 2, seg8)  # lane 2 of each segment
    assert src == [2] * 8 + [10] * 8 + [18] * 8 + [26] * 8 and all(p)
    src, p = shfl("up", 1, 0x18 << 8)  # up: clamp 0 within each segment
    assert src[8:11] == [8, 8, 9] and p[8:11] == [0, 1, 1]
    src, p = shfl("bfly", 4, seg8)
    assert src[:8] == [4, 5, 6, 7, 0, 1, 2, 3] and src[8] == 12


@pytest.mark.parametrize("mode", ["up", "down", "bfly", "idx"])
def test_bfly_and_friends_never_cross_warps(mode):
    src, _ = shfl(mode, 31, 0x1F)
    assert all(0 <= s < 32 for s in src)


def test_reading_a_lane_outside_the_member_mask_names_both_lanes_and_the_mask():
    """Lanes 0-7 shuffle down by 16 with member mask 0xff: lane 0 would read lane 16, which takes no part (the
    value is undefined on a GPU), so the finding says who reads whom and which lanes take part."""
    text = KERNEL.replace("shfl.sync.MODE.b32 %r5|%p1, %r4, %r1, %r2, -1;",
                          "setp.lt.u32 %p1, %r3, 8;\n  @!%p1 bra DONE;\n"
                          "  shfl.sync.down.b32 %r5, %r4, %r1, %r2, 255;\nDONE:")
    prog = lower(parse_text(text, "shfl.ptx"))
    spec = from_options("shfl.ptx", None, "1", "32", "out,pred,16,31", ["out=u32[32]:out", "pred=u32[32]:out"])
    m = Machine(prog, spec.launches["kernel"], spec.buffers, {}, structured=False).run()
    messages = [f.message for f in m.findings]
    assert any("lane 0 reads lane 16, outside the lanes taking part (lanes 0-7; membermask 0x000000ff)" in s
               for s in messages), messages
