// Warp reductions, match, fns, dp4a/dp2a and the sm_90 DPX intrinsics (max3, relu min/max, packed 16-bit):
// tests/ptx/test_nvcc13_forms.py parses and runs the PTX nvcc 13 makes of it.
extern "C" __global__ void misc_k(unsigned *out, const unsigned *a, const unsigned *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = a[i], y = b[i];
  bool p;
  unsigned r = __reduce_add_sync(0xffffffffu, x) ^ __reduce_max_sync(0xffffffffu, y) ^ __reduce_or_sync(0xffffffffu, x);
  r += __match_any_sync(0xffffffffu, x & 3) ^ __fns(x, 0, 1) ^ __dp4a(x, y, 3u) ^ __dp2a_lo(x, y, 1u);
  r += __vimax3_s32((int)x, (int)y, 5) ^ __vimin_s32_relu((int)x, (int)y) ^ __vibmax_s32((int)x, (int)y, &p) ^ (unsigned)p;
  r += __viaddmax_s32((int)x, (int)y, 3) ^ __vimax_s16x2_relu(x, y) ^ __vimax3_u16x2(x, y, 9u);
  out[i] = r;
}
