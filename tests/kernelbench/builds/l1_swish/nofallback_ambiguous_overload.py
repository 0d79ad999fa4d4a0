import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# a call that matches two of the candidate's own overloads (size_t argument, int and long parameters); no fallback
swish_source = r"""
#include <torch/extension.h>

__global__ void swish_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v / (1.0f + expf(-v));
    }
}

static int blocks_for(int n, int b) { return (n + b - 1) / b; }
static long blocks_for(long n, long b) { return (n + b - 1) / b; }

torch::Tensor swish_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    size_t n = x.numel();
    swish_kernel<<<blocks_for(x.numel(), 256), 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), (int)n);
    return y;
}
"""

swish_cpp = "torch::Tensor swish_cuda(torch::Tensor x);"

swish_ext = load_inline(
    name="swish_ambiguous_overload_nofb",
    cpp_sources=swish_cpp,
    cuda_sources=swish_source,
    functions=["swish_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return swish_ext.swish_cuda(x)
