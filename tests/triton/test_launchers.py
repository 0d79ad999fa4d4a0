"""volta triton LAUNCHER.py:fn --ref REF.py:fn (issue 37): production-style launchers decided as their host code
launches them (examples/triton/launchers/cases.toml), and the pieces that make it: Triton's own specialisation,
libdevice calls kept as calls, usage errors with the user's file and line. Skipped without Triton."""
import json
import sys
import tomllib
from pathlib import Path

import importlib.util

import pytest

pytest.importorskip("triton")

import volta.triton as vt  # noqa: E402
from volta.cli import run  # noqa: E402

HERE = Path(__file__).resolve().parents[2] / "examples" / "triton" / "launchers"
CASES = tomllib.loads((HERE / "cases.toml").read_text())["case"]


def _cli(capsys, *argv):
    code = run(["triton", *argv, "--json", "-q"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else out


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c.get("slow") else c for c in CASES],
                         ids=lambda c: c["name"])
def test_case(case, capsys):
    sizes = [a for name, value in case.get("sizes", {}).items() for a in ("--size", f"{name}={value}")]
    code, data = _cli(capsys, str(HERE / case["launcher"]), "--ref", str(HERE / case["ref"]), *sizes)
    assert data["verdict"] == case["expect"], data
    assert code == {"equivalent": 0, "not-equivalent": 1, "findings": 1}[case["expect"]]
    kinds = {f["kind"] for launch in data["launches"] for f in launch["findings"]}
    for kind in case.get("listed", ()):
        assert kind in kinds, (kind, kinds)
    if case.get("race"):
        assert "race" in kinds and any(launch["blocking"] for launch in data["launches"])
    if case["expect"] == "equivalent":
        assert data["compared"] > 0 and not any(launch["blocking"] for launch in data["launches"])


@pytest.mark.slow   # 3.2 CPU s
def test_launch_is_specialised_as_triton_launches_it(capsys):
    code, data = _cli(capsys, str(HERE / "norms.py:layer_norm_fwd"), "--ref", str(HERE / "ref_layer_norm_nobias.py:"
                                                                                      "layer_norm_fwd"), "--size",
                      "cols=40", "--size", "rows=2")
    (launch,) = data["launches"]
    spec = {s["param"]: s for s in launch["specialization"]}
    assert spec["B"]["type"] == "constexpr" and spec["B"]["value"] is None        # the None optional pointer
    assert spec["BLOCK_SIZE"]["value"] == 64 and launch["num_warps"] == 4
    assert spec["n_cols"]["type"] == "i32" and not spec["n_cols"]["divisible_by_16"]   # 40
    assert spec["X_stride"]["type"] == "i32" and not spec["X_stride"]["divisible_by_16"]
    assert spec["X"]["divisible_by_16"] and "B" not in launch["args"]
    assert launch["at"]["line"] > 0 and launch["at"]["file"].endswith("norms.py")


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch (pip install torch==2.13.0)")
def test_value_one_is_a_constexpr_and_sixteen_a_hint():
    sys.path.insert(0, str(HERE))
    import activations

    from volta.kernelbench.torchsym import installed, new_run

    run_ = new_run()
    with installed(run_) as torch:
        a = torch.empty(1, 16)
        call = vt.compile_call(activations._geglu_tanh_fwd, (a, a, a, 16, 1), {"BLOCK_SIZE": 16, "num_warps": 1})
    spec = {p: (t, v) for p, t, v in call.specialization}
    assert spec["stride"] == ("i32", "D") and spec["n_cols"] == ("constexpr", 1)
    assert "n_cols" not in call.kernel.params and call.kernel.num_warps == 1


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch (pip install torch==2.13.0)")
def test_libdevice_calls_are_read_as_the_functions_they_name():
    sys.path.insert(0, str(HERE))
    import activations

    from volta.kernelbench.torchsym import installed, new_run

    with installed(new_run()) as torch:
        a = torch.empty(4, 64)
        k = vt.compile_call(activations._geglu_tanh_fwd, (a, a, a, 64, 64), {"BLOCK_SIZE": 64}).kernel
    assert k.functions == {"__nv_tanhf": "tanh"}
    assert "call.uni" in k.real_ptx and "__nv_tanhf" in k.real_ptx
    assert "call" not in k.ptx.split(".entry")[1] and "ex2.approx" in k.ptx   # the GPU's PTX inlines it


@pytest.mark.parametrize("argv, words", [
    (["norms.py"], "FILE.py:FUNCTION"),
    (["norms.py:nope", "--ref", "ref_rms_norm.py:rms_norm_fwd"], "no function `nope`"),
    (["norms.py:rms_norm_fwd", "--ref", "ref_rms_norm.py:rms_norm_fwd", "--size", "colz=3"], "colz"),
    (["norms.py:rms_norm_fwd", "--size", "cols=0"], "positive integer"),
    (["norms.py:rms_norm_fwd"], "get_inputs"),
])
def test_bad_input_is_a_usage_error(argv, words, capsys):
    argv = [str(HERE / argv[0])] + [str(HERE / a) if a.endswith(".py:rms_norm_fwd") else a for a in argv[1:]]
    assert run(["triton", *argv, "-q"]) == 2
    assert words in capsys.readouterr().err


def test_a_torch_error_in_the_launcher_names_its_line(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\n\n\ndef f(x, w, eps):\n    return x.view(3, 7)\n")
    assert run(["triton", f"{bad}:f", "--ref", str(HERE / "ref_rms_norm.py:rms_norm_fwd"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "bad.py:5" in err and "invalid for input of size 256" in err


LONE = """import torch
import triton
import triton.language as tl

n = 100


def get_inputs():
    return [torch.randn(n)]


@triton.jit
def _double(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, 2 * tl.load(X + offs, mask=offs < n), mask=offs {op} n)


def double(x):
    y = torch.empty_like(x)
    _double[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
    return y
"""


@pytest.mark.parametrize("op, code, verdict", [("<", 0, "CLEAN"), ("<=", 1, "OUT OF BOUNDS")])
def test_without_a_reference_the_launches_are_checked(op, code, verdict, tmp_path, capsys):
    launcher = tmp_path / "lone.py"
    launcher.write_text(LONE.format(op=op))
    assert run(["triton", f"{launcher}:double", "-q"]) == code
    assert verdict in capsys.readouterr().out
