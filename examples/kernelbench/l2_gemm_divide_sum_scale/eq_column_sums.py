import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# sum_j (x . w_j) / 2 * s = x . (sum_j w_j) * s / 2: the weight's column sums first (one kernel), then a dot
# product per row (a second kernel); an algebraic rewrite LLM candidates make, equal over the reals
src = r"""
#include <torch/extension.h>

__global__ void column_sum_kernel(const float* __restrict__ w, float* __restrict__ wsum, int hidden, int in) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= in) return;
    float s = 0.f;
    for (int j = 0; j < hidden; ++j) s += w[j * in + k];
    wsum[k] = s;
}

__global__ void row_dot_kernel(const float* __restrict__ x, const float* __restrict__ wsum, float* __restrict__ out,
                               int batch, int in, float factor) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    float acc = 0.f;
    for (int k = 0; k < in; ++k) acc += x[b * in + k] * wsum[k];
    out[b] = acc * factor;
}

torch::Tensor forward(torch::Tensor x, torch::Tensor w, double scaling) {
    const int batch = x.size(0), in = x.size(1), hidden = w.size(0);
    auto wsum = torch::empty({in}, x.options());
    auto out = torch::empty({batch, 1}, x.options());
    column_sum_kernel<<<(in + 63) / 64, 64>>>(w.data_ptr<float>(), wsum.data_ptr<float>(), hidden, in);
    row_dot_kernel<<<(batch + 63) / 64, 64>>>(x.data_ptr<float>(), wsum.data_ptr<float>(), out.data_ptr<float>(),
                                              batch, in, (float)(scaling / 2.0));
    return out;
}
"""

ext = load_inline(name="gemm_divide_sum", cpp_sources="torch::Tensor forward(torch::Tensor x, torch::Tensor w, double scaling);",
                  cuda_sources=src, functions=["forward"])


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, scaling_factor):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        return ext.forward(x, self.weight, self.scaling_factor)
