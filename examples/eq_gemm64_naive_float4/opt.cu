// float4 SGEMM: one CTA of 512 threads, 64x64 output tile; every thread loads one float4 of the 64x32 A tile
// and one float4 of the 32x64 B tile (ld.global.v4, st.shared.v4), reads B rows from shared memory as float4
// (ld.shared.v4) and accumulates a 2x4 micro-tile. N and K must be multiples of 32 (16-byte aligned rows).
#define TK 32
extern "C" __global__ void sgemm64_float4(const float* __restrict__ A, const float* __restrict__ B,
                                          float* __restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float As[64][TK];
    __shared__ __align__(16) float Bs[TK][64];
    int t = threadIdx.x;
    int tx = t % 16, ty = t / 16;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    int ar = t / (TK / 4), ac = (t % (TK / 4)) * 4;   // A tile: 64 rows of 8 float4
    int br = t / 16, bc = (t % 16) * 4;               // B tile: 32 rows of 16 float4
    float4 acc[2];
    acc[0] = make_float4(0.f, 0.f, 0.f, 0.f);
    acc[1] = acc[0];
    for (int k0 = 0; k0 < K; k0 += TK) {
        *reinterpret_cast<float4*>(&As[ar][ac]) =
            *reinterpret_cast<const float4*>(&A[(row0 + ar) * K + k0 + ac]);
        *reinterpret_cast<float4*>(&Bs[br][bc]) =
            *reinterpret_cast<const float4*>(&B[(k0 + br) * N + col0 + bc]);
        __syncthreads();
        for (int k = 0; k < TK; ++k) {
            float4 b = *reinterpret_cast<const float4*>(&Bs[k][4 * tx]);
            for (int i = 0; i < 2; ++i) {
                float a = As[2 * ty + i][k];
                acc[i].x += a * b.x;
                acc[i].y += a * b.y;
                acc[i].z += a * b.z;
                acc[i].w += a * b.w;
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        *reinterpret_cast<float4*>(&C[(row0 + 2 * ty + i) * N + col0 + 4 * tx]) = acc[i];
}
