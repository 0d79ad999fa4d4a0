import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# cpp_sources declares swish_forward, cuda_sources defines swish_cuda: torch links, the import fails (ImportError); no fallback
swish_source = r"""
#include <torch/extension.h>

__global__ void swish_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v / (1.0f + expf(-v));
    }
}

torch::Tensor swish_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    swish_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

swish_cpp = "torch::Tensor swish_forward(torch::Tensor x);"

swish_ext = load_inline(
    name="swish_declared_not_defined_nofb",
    cpp_sources=swish_cpp,
    cuda_sources=swish_source,
    functions=["swish_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return swish_ext.swish_forward(x)
