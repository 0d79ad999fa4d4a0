import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# the candidate writes its own PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) and passes no functions=
swish_cuda_source = r"""
#include <torch/extension.h>

__global__ void swish_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] / (1.0f + __expf(-x[i]));
}

torch::Tensor swish_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    swish_kernel<<<(n + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

swish_cpp_source = r"""
#include <torch/extension.h>
torch::Tensor swish_forward(torch::Tensor x);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &swish_forward, "swish forward (CUDA)");
}
"""

swish = load_inline(name="swish_own_module", cpp_sources=swish_cpp_source, cuda_sources=swish_cuda_source,
                    verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return swish.forward(x)
