"""main.cpp's precompiled <torch/extension.h> (host/build.py): gcc uses it, and it changes nothing in the object
file — the same bytes as a compile that reads the header as text, which is what makes it only a saving."""
import pytest

from volta import cuda
from volta.kernelbench.host import build, extract

needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")

CPP = """torch::Tensor scale(torch::Tensor x, double a);
torch::Tensor shifted(torch::Tensor x) { return scale(x, 2.0); }"""


@needs_nvcc
def test_main_cpp_compiles_to_the_same_object_with_the_precompiled_header(tmp_path):
    ext = extract.from_load_inline((), {"name": "pch_probe", "cpp_sources": CPP, "functions": ["shifted"]}, None)
    nvcc = build._nvcc()
    defines = [f"-DTORCH_EXTENSION_NAME={ext.name}", "-DTORCH_API_INCLUDE_EXTENSION_H"]
    pch = build.precompiled_header(nvcc, build.runtime_library(), defines[1:])
    assert pch is not None and (pch / f"{build.PCH_HEADER}.gch").is_file()
    (tmp_path / "main.cpp").write_text(ext.main_cpp)
    assert ext.main_cpp.startswith(f"#include <{build.PCH_HEADER}>")   # what torch writes first: the PCH applies
    objects = {}
    for name, includes, flags in (("text", [f"-I{build.INCLUDE}"], ()),
                                  ("pch", [f"-I{pch}", f"-I{build.INCLUDE}"], ("-Xcompiler", "-H"))):
        proc = build._run(build._main_cpp_command(nvcc, defines, includes, flags, "main.cpp", f"{name}.o"), tmp_path)
        assert proc.returncode == 0, proc.stderr
        objects[name] = (tmp_path / f"{name}.o").read_bytes()
        if name == "pch":   # gcc -H marks a precompiled header it used with "!", one it rejected with "x"
            assert f"! {pch / build.PCH_HEADER}.gch" in proc.stderr, proc.stderr[:2000]
    assert objects["pch"] == objects["text"]


@needs_nvcc
def test_a_failed_header_is_remembered_and_builds_go_on_without(tmp_path, monkeypatch):
    runtime = tmp_path / "runtime" / "libvoltahost.so"    # only its folder is used
    runtime.parent.mkdir()
    bad = ["-DTORCH_API_INCLUDE_EXTENSION_H", "-DVOLTA_NO_SUCH_OPTION", "-Xcompiler", "-fno-such-option"]
    assert build.precompiled_header(build._nvcc(), runtime, bad) is None
    assert list(runtime.parent.glob("pch-*.failed"))
    monkeypatch.setattr(build, "_run", lambda *a: pytest.fail("a remembered failure ran a compiler again"))
    assert build.precompiled_header(build._nvcc(), runtime, bad) is None
