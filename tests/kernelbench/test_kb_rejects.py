"""Which build failures are torch's own (volta/kernelbench/host/rejects.py), on generated sources and compiler
output as g++, nvcc's front end and ld print them; and the bindings torch generates (host/extract.py)."""
import pytest

from volta.kernelbench.host import extract, rejects


def ext(cpp="torch::Tensor f(torch::Tensor x);", cuda="__global__ void k() {}", functions=("f",), **kw):
    return extract.from_load_inline((), {"name": "m", "cpp_sources": cpp, "cuda_sources": cuda,
                                         "functions": list(functions) if functions is not None else None, **kw},
                                    None)


def test_generated_sources_are_torchs():
    e = extract.from_load_inline((), {"name": "m", "cpp_sources": ["int a();", "int b();"], "cuda_sources": "x",
                                      "functions": {"a": "first", "b": "second"}}, None)
    assert e.main_cpp.split("\n") == [
        "#include <torch/extension.h>", "int a();", "int b();", "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {",
        'm.def("a", torch::wrap_pybind_function(a), "first");', 'm.def("b", torch::wrap_pybind_function(b), "second");',
        "}"]
    assert e.cuda_cu.split("\n") == ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>", "x"]
    plain = ext(with_pytorch_error_handling=False, no_implicit_headers=True)
    assert 'm.def("f", f, "f");' in plain.main_cpp and "#include" not in plain.main_cpp + plain.cuda_cu


@pytest.mark.parametrize("bad,error", [
    ({"functions": ("f",)}, ValueError),            # torch takes a list or a dict, not a tuple
    ({"extra_cuda_flags": ["-O3"]}, extract.CandidateTypeError),
])
def test_calls_torch_refuses(bad, error):
    args = {"name": "m", "cpp_sources": "int f();", "functions": ["f"], **bad}
    with pytest.raises(error):
        extract.from_load_inline((), args, None)


@pytest.mark.parametrize("cpp,rejected", [
    ("__global__ void k(float* x);", True),
    ("// __global__ in a comment\nint f();", False),
    ('const char* s = "__device__";', False),
    ("#include <cuda_runtime.h>\n__global__ void k(float* x);", False),
    ("#include <ATen/cuda/CUDAContext.h>\n__device__ int g;", False),
    ("int f();\n__shared__ float s[4];", True),
    ("int my__global__thing();", False),
    ("#include <vector>\n#include <torch/torch.h>\n__global__ void k();", True),
    ('#include "my_helpers.h"\n__global__ void k();', False),         # an unknown header may define it
    ("#ifdef __CUDACC__\n__global__ void k();\n#endif", False),       # hidden from the host compiler
    ("#define HD __host__ __device__\nint f();", False),
])
def test_cuda_keywords_in_main_cpp(cpp, rejected):
    assert (rejects.host_cuda_keyword(ext(cpp=cpp)) is not None) == rejected


def test_first_error_formats():
    gcc = "main.cpp: In function 'x':\nmain.cpp:4:51: error: 'k' was not declared in this scope\n  4 | m.def(...)"
    assert rejects.first_error(gcc)[:3] == ("main.cpp", 4, "'k' was not declared in this scope")
    edg = 'cuda.cu(21): error: more than one instance of overloaded function "b" matches\n  function "b(int)"'
    assert rejects.first_error(edg)[:2] == ("cuda.cu", 21)
    header_first = "/x/include/volta/bind.h:91:29: error: static assertion failed\nmain.cpp:4:6: error: later"
    assert rejects.first_error(header_first) is None


def test_errors_in_the_generated_bindings_are_torchs():
    e = ext()
    binding = e.main_cpp.split("\n").index('m.def("f", torch::wrap_pybind_function(f), "f");') + 1
    assert rejects.of_compile(e, f"main.cpp:{binding}:40: error: 'f' was not declared in this scope")
    # the same message on a line of the candidate's own source is not decided here
    assert rejects.of_compile(e, "main.cpp:2:1: error: 'g' was not declared in this scope") is None


@pytest.mark.parametrize("header,rejected", [
    ("swish_utils.cuh", True), ("THC/THC.h", True), ("cudnn.h", False), ("cutlass/gemm/gemm.h", False),
    ("nccl.h", False),
])
def test_missing_headers(header, rejected):
    out = f"cuda.cu:4:10: fatal error: {header}: No such file or directory"
    assert (rejects.of_compile(ext(), out) is not None) == rejected


def test_missing_header_with_extra_include_paths_is_undecided():
    out = "cuda.cu:4:10: fatal error: swish_utils.cuh: No such file or directory"
    assert rejects.of_compile(ext(extra_include_paths=["/opt/mine/include"]), out) is None


def test_missing_torch_header_is_looked_up_in_the_installed_torch(monkeypatch, tmp_path):
    (tmp_path / "ATen").mkdir()
    (tmp_path / "ATen" / "Real.h").write_text("")
    monkeypatch.setattr(rejects, "_torch_include", lambda: [tmp_path])
    out = "cuda.cu:4:10: fatal error: ATen/{}: No such file or directory"
    assert rejects.of_compile(ext(), out.format("Real.h")) is None        # torch has it: the stand-in lacks it
    assert rejects.of_compile(ext(), out.format("Invented.h")) is not None
    monkeypatch.setattr(rejects, "_torch_include", lambda: [])
    assert rejects.of_compile(ext(), out.format("Invented.h")) is None    # no torch to ask: not decided


def test_ambiguity_only_among_the_candidates_own_functions():
    e = extract.from_load_inline((), {"name": "m", "cpp_sources": "int f();", "functions": ["f"],
                                      "cuda_sources": "int b(int);\nlong b(long);\nint c = b(1u);"}, "/nonexistent.py")
    e.chunks["cuda.cu"] = [extract.Chunk(1, 10, "cand.py", 5)]
    own = 'cuda.cu(6): error: more than one instance of overloaded function "b" matches:\n  function "b(int)"'
    assert rejects.of_compile(e, own) is not None
    torchs = own + '\n  function "at::b(at::Tensor)"'
    assert rejects.of_compile(e, torchs) is None


def test_link_failures():
    e = ext(cpp="torch::Tensor f(torch::Tensor x);", cuda="torch::Tensor g(torch::Tensor x) { return x; }")
    twice = "cuda.cudafe1.cpp:(.text+0x1): multiple definition of `PyInit_m'; main.o: first defined here"
    assert rejects.of_link(e, twice).exception == "RuntimeError"
    undefined = "main.cpp:(.text+0x6942): undefined reference to `f(at::Tensor)'"
    assert rejects.of_link(e, undefined).exception == "ImportError"
    stand_in_gap = undefined + "\nmain.cpp:(.text+0x7): undefined reference to `at::native::gelu(at::Tensor)'"
    assert rejects.of_link(e, stand_in_gap) is None


def test_outcome_raises_what_torch_raises():
    built_badly = rejects.BuildOutcome("m", False, None, "why", "main.cpp:4: error: x")
    err = built_badly.error()
    assert isinstance(err, RuntimeError) and str(err).startswith("Error building extension 'm': main.cpp:4")
    assert err.volta_build is built_badly
    assert isinstance(rejects.BuildOutcome("m", False, None, "u", exception="ImportError").error(), ImportError)
    assert isinstance(rejects.BuildOutcome("m", False, None, "k", exception="TypeError").error(), TypeError)
