"""The Triton source of to_int.triton.ptx (Triton 3.9, no GPU): `ld.global.b32 { %r1 }` then `cvt.rzi.s32.f32 %r2, %r1`
on a .b32 register, a float read as a float. Produced with
    volta.triton.compile(to_int, args=[Buffer("x", "f32", 8, "in"), Buffer("out", "s32", 8, "out"), 8],
                         constexprs={"BLOCK": 8}, num_warps=1).path()
"""
import triton
import triton.language as tl


@triton.jit
def to_int(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = off < n
    a = tl.load(x_ptr + off, mask=m)
    tl.store(o_ptr + off, a.to(tl.int32), mask=m)
