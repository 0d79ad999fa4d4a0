// Paths an uninitialized value can take before it reaches global memory (issue 8 §1).
// Each `*_undef` kernel lets never-written shared/local memory reach `out`; its `*_ok` twin
// initializes it first and computes the same thing over the reals. Regenerate: ./regenerate.sh
#include <cuda_pipeline.h>

extern "C" __global__ void vec4_undef(const float *x, float *out) {
    __shared__ float4 s[32];
    int t = threadIdx.x;
    if (t < 16) s[t] = make_float4(x[4 * t], x[4 * t + 1], x[4 * t + 2], x[4 * t + 3]);
    __syncthreads();
    float4 v = s[t];  // slots 16..31 were never written
    out[blockIdx.x * 32 + t] = v.x + v.y + v.z + v.w;
}

extern "C" __global__ void vec4_ok(const float *x, float *out) {
    __shared__ float4 s[32];
    int t = threadIdx.x;
    s[t] = t < 16 ? make_float4(x[4 * t], x[4 * t + 1], x[4 * t + 2], x[4 * t + 3]) : make_float4(0, 0, 0, 0);
    __syncthreads();
    float4 v = s[t];
    out[blockIdx.x * 32 + t] = v.x + v.y + v.z + v.w;
}

extern "C" __global__ void bytes_undef(const unsigned char *x, int *out) {
    __shared__ unsigned char s[64];
    int t = threadIdx.x;
    if (t < 16) s[t] = x[t];
    __syncthreads();
    out[blockIdx.x * 32 + t] = s[t] + s[t + 32];  // s[32..63] never written
}

extern "C" __global__ void bytes_ok(const unsigned char *x, int *out) {
    __shared__ unsigned char s[64];
    int t = threadIdx.x;
    s[t] = t < 16 ? x[t] : 0;
    s[t + 32] = 0;
    __syncthreads();
    out[blockIdx.x * 32 + t] = s[t] + s[t + 32];
}

extern "C" __global__ void shuffle_undef(const float *x, float *out) {
    __shared__ float s[32];
    int t = threadIdx.x;
    if (t < 16) s[t] = x[t];
    __syncwarp();
    float v = s[t];  // lanes 16..31 read never-written slots
    v += __shfl_down_sync(0xffffffff, v, 16);
    out[blockIdx.x * 32 + t] = v;
}

extern "C" __global__ void shuffle_ok(const float *x, float *out) {
    __shared__ float s[32];
    int t = threadIdx.x;
    s[t] = t < 16 ? x[t] : 0.0f;
    __syncwarp();
    float v = s[t];
    v += __shfl_down_sync(0xffffffff, v, 16);
    out[blockIdx.x * 32 + t] = v;
}

extern "C" __global__ void atomic_undef(const int *x, int *out) {
    __shared__ int total;  // DEFECT: never zeroed
    int t = threadIdx.x;
    __syncthreads();
    atomicAdd(&total, x[t]);
    __syncthreads();
    if (t == 0) out[blockIdx.x] = total;
}

extern "C" __global__ void atomic_ok(const int *x, int *out) {
    __shared__ int total;
    int t = threadIdx.x;
    if (t == 0) total = 0;
    __syncthreads();
    atomicAdd(&total, x[t]);
    __syncthreads();
    if (t == 0) out[blockIdx.x] = total;
}

extern "C" __global__ void redux_undef(const int *x, int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t != 5) s[t] = x[t];
    __syncwarp();
    out[blockIdx.x * 32 + t] = __reduce_add_sync(0xffffffff, s[t]);  // lane 5 brings an undefined value
}

extern "C" __global__ void cpasync_undef(const float *x, float *out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &x[t], sizeof(float));  // copies s[0..31] only
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 32 + t] = s[t] + s[t + 32];  // s[32..63] never written
}

extern "C" __global__ void local_undef(const float *x, float *out, int k) {
    float a[8];
    int t = threadIdx.x;
    for (int i = 0; i < k; i++) a[i] = x[t + i];  // k < 8: a[k..7] stay unwritten
    float sum = 0.0f;
    for (int i = 0; i < 8; i++) sum += a[i];
    out[blockIdx.x * 32 + t] = sum;
}
