"""A candidate's erff/tanhf: bodiless `__volta_erf`/`__volta_tanh` calls in the build a check over the reals
uses (read as the real functions), and libdevice's own code in a `libdevice=True` build, so a concrete
bit-exact replay runs what the GPU would run."""
import re

import pytest

from volta import cuda
from volta.kernelbench.host import build, extract

needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")

CUDA = r"""
__global__ void gelu_pair(const float* x, float* y, float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678f)); z[i] = tanhf(x[i]); }
}
torch::Tensor run(torch::Tensor x) {
    auto y = torch::empty_like(x), z = torch::empty_like(x);
    int n = x.numel();
    gelu_pair<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), z.data_ptr<float>(), n);
    return y;
}
"""


def _ptx(libdevice: bool) -> str:
    ext = extract.from_load_inline((), {"name": "libdevice_probe", "cpp_sources": "torch::Tensor run(torch::Tensor x);",
                                        "cuda_sources": CUDA, "functions": ["run"]}, None)
    return build.build(ext, libdevice=libdevice).ptx.read_text()


@needs_nvcc
def test_the_real_check_build_calls_the_opaque_functions():
    ptx = _ptx(libdevice=False)
    assert re.search(r"\.extern \.func[^;]*__volta_erf", ptx.replace("\n", " "))
    assert re.search(r"\.extern \.func[^;]*__volta_tanh", ptx.replace("\n", " "))


@needs_nvcc
def test_the_libdevice_build_runs_libdevices_code():
    ptx = _ptx(libdevice=True)
    assert "__volta_" not in ptx
    assert ".extern .func" not in ptx        # nothing bodiless left: erff and tanhf are inlined libdevice code
    assert ptx.count("fma.rn.f32") >= 8      # their polynomials
