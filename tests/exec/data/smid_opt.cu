// y = x plus 1 where the CTA runs on an SM numbered above 3: a value the hardware picks, not the inputs
extern "C" __global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  if (i < n) y[i] = x[i] + (s > 3 ? 1.0f : 0.0f);
}
