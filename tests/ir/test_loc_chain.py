"""`.loc … inlined_at F L C` (PTX ISA §11.4 debugging directives): lowering keeps the call chain per instruction."""
from volta.ir.program import cuda_frames, cuda_text, lower
from volta.ptx.parser import parse_text

KERNEL = """
.version 8.0
.target sm_80
.address_size 64
.file 1 "kernel.cu"
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .loc 1 51 13
  mov.u32 %r1, 1;
  .loc 1 28 9, function_name $L__info_string0, inlined_at 1 51 13
  mov.u32 %r2, 2;
  .loc 1 18 5, function_name $L__info_string1, inlined_at 1 28 9
  mov.u32 %r3, 3;
  .loc 1 0 0
  add.u32 %r3, %r3, 1;
  .loc 1 60 2
  ret;
}
"""


def test_inlined_at_chain_follows_the_callers_loc():
    ops = lower(parse_text(KERNEL, "k.ptx")).ops
    assert cuda_frames(ops[0]) == (("kernel.cu", 51),)
    assert cuda_frames(ops[1]) == (("kernel.cu", 28), ("kernel.cu", 51))
    assert cuda_frames(ops[2]) == (("kernel.cu", 18), ("kernel.cu", 28), ("kernel.cu", 51))
    assert cuda_text(ops[2]) == "kernel.cu:18 (inlined at kernel.cu:28, kernel.cu:51)"
    assert cuda_frames(ops[3]) == cuda_frames(ops[2])  # line 0: the previous position stays
    assert cuda_text(ops[4]) == "kernel.cu:60"
