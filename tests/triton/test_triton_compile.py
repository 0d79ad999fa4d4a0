"""volta.triton: compile @triton.jit functions without a GPU and check them in one call (skipped without Triton)."""
import sys
from pathlib import Path

import pytest

triton = pytest.importorskip("triton")

import volta  # noqa: E402
import volta.triton as vt  # noqa: E402

T = Path(__file__).resolve().parents[2] / "examples" / "triton"
E = T.parent
sys.path.insert(0, str(T))
import kernels  # noqa: E402

B = volta.Buffer


def _va(n=500):
    return B("x", "f32", n, "in"), B("y", "f32", n, "in"), B("out", "f32", n, "out")


def test_compile_builds_the_launch_triton_would():
    x, y, out = _va()
    k, launch = vt.launch(kernels.add_kernel, lambda m: (triton.cdiv(500, m["BLOCK"]),), [x, y, out, 500],
                          constexprs={"BLOCK": 256}, num_warps=2)
    assert k.name == "add_kernel" and k.params == ["x_ptr", "y_ptr", "out_ptr", "n"]
    assert k.signature["x_ptr"] == "*fp32" and k.signature["n"] == "i32" and k.signature["BLOCK"] == "constexpr"
    assert k.hidden == 2 and launch.args[-2:] == [0, 0]
    assert launch.grid == (2,) and launch.block == 64 and launch.shared_dynamic == k.shared == 0


def test_check_triton_vector_add_against_cuda_reference_in_one_call():
    x, y, out = _va()
    ref = volta.Launch(grid=4, block=128, args=[x, y, out, 500])
    r = vt.check(E / "vector_add" / "kernel.sm80.ptx", kernels.add_kernel, ref,
                 grid=lambda m: (triton.cdiv(500, m["BLOCK"]),), constexprs={"BLOCK": 256}, num_warps=2)
    assert r.verdict == "equivalent", r.report()
    assert "add_kernel" in r.report()


def test_races_finds_the_off_by_one_mask():
    x, y, out = _va()
    r = vt.races(kernels.add_kernel_offbyone, grid=(4,), args=[x, y, out, 500], constexprs={"BLOCK": 128})
    assert r.verdict == "findings"
    assert {f.offset for f in r.findings} == {2000}


def test_softmax_races_clean_with_dynamic_shared_memory():
    x, y = B("x", "f32", 1024, "in"), B("y", "f32", 1024, "out")
    k, launch = vt.launch(kernels.softmax_kernel, 8, [y, x, 128], constexprs={"BLOCK": 128}, num_warps=4)
    assert k.shared > 0 and launch.shared_dynamic == k.shared and launch.block == 128
    assert volta.races(k.path(), launch).verdict == "clean"


def test_matmul_num_stages_2_uses_cp_async_and_is_race_free():
    A, Bm, C = B("A", "f32", 1024, "in"), B("B", "f32", 1024, "in"), B("C", "f32", 1024, "out")
    ce = {"BM": 16, "BN": 16, "BK": 16}
    k = vt.compile(kernels.matmul_kernel, args=[A, Bm, C, 32, 32, 32], constexprs=ce, num_warps=4, num_stages=2)
    assert "cp.async" in k.ptx
    r = vt.races(kernels.matmul_kernel, grid=(2, 2), args=[A, Bm, C, 32, 32, 32], constexprs=ce, num_warps=4,
                 num_stages=2)
    assert r.verdict == "clean", r.report()


@pytest.mark.parametrize("kwargs, words", [
    (dict(constexprs={}), "constexpr `BLOCK`"),
    (dict(constexprs={"BLOCK": 128, "NOPE": 1}), "NOPE"),
    (dict(constexprs={"BLOCK": 128}, num_warps=3), "num_warps"),
    (dict(constexprs={"BLOCK": 100}), "Triton could not compile"),
])
def test_bad_input_is_a_usage_error(kwargs, words):
    x, y, out = _va()
    with pytest.raises(volta.UsageError, match=words):
        vt.compile(kernels.add_kernel, args=[x, y, out, 500], **kwargs)


def test_wrong_argument_count_and_bad_grid_function():
    x, y, out = _va()
    with pytest.raises(volta.UsageError, match="takes 4 non-constexpr"):
        vt.launch(kernels.add_kernel, 4, [x, y, out], constexprs={"BLOCK": 128})
    with pytest.raises(volta.UsageError, match="grid function"):
        vt.launch(kernels.add_kernel, lambda m: m["NOPE"], [x, y, out, 500], constexprs={"BLOCK": 128})


def test_not_a_jit_function():
    with pytest.raises(volta.UsageError, match="not a @triton.jit"):
        vt.compile(lambda: None, args=[])
