// One Adam optimizer step on a flat parameter vector (bias corrections precomputed on the host).
extern "C" __global__ void adam_step(float* __restrict__ param, const float* __restrict__ grad,
                                     float* __restrict__ m, float* __restrict__ v,
                                     float lr, float beta1, float beta2, float eps,
                                     float bc1, float bc2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float g = grad[i];
        float mi = beta1 * m[i] + (1.0f - beta1) * g;
        float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        float mhat = mi / bc1;
        float vhat = vi / bc2;
        param[i] -= lr * mhat / (sqrtf(vhat) + eps);
    }
}
