// One CUDA integer/SIMD intrinsic per output slot: tests/semantics/test_video.py runs this with `volta run`
// and compares every slot with a pure-Python model of the intrinsic.
#define N_OPS 24
extern "C" __global__ void intrinsics(unsigned *out, const unsigned *a, const unsigned *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned *o = out + i * N_OPS;
  o[0] = __vabsdiffu4(x, y);
  o[1] = __vsadu4(x, y);
  o[2] = __vadd4(x, y);
  o[3] = __vsub4(x, y);
  o[4] = __vcmpgtu4(x, y);
  o[5] = __vavgu4(x, y);
  o[6] = __vmaxu4(x, y);
  o[7] = __vmins4(x, y);
  o[8] = __vabsdiffs4(x, y);
  o[9] = __vabsdiffu2(x, y);
  o[10] = __vadd2(x, y);
  o[11] = __vmaxu2(x, y);
  o[12] = __byte_perm(x, y, 0x5410);
  o[13] = __byte_perm(x, y, y & 0xffff);
  o[14] = __funnelshift_l(x, y, y);
  o[15] = __funnelshift_rc(x, y, x);
  o[16] = __brev(x);
  o[17] = __popc(y);
  o[18] = __ffs((int)x);
  o[19] = __clz((int)y);
  o[20] = __usad(x, y, 7u);
  o[21] = __vsads4(x, y);
  o[22] = __vmaxs2(x, y);
  o[23] = __vcmpeq4(x, y & 0xff00ff00u | x & 0x00ff00ffu);
}
