"""The Python API gives the CLI's verdicts and exit codes, with result objects: check, races, run, mma,
Launch/Buffer validation, PTX text, manifests, and a cheap `import volta`."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import volta
from volta.cli import run as cli

EX = Path(__file__).resolve().parents[2] / "examples"


def _saxpy_launch(opt_role="out"):
    x, y = volta.Buffer("x", "f32", 512, "in"), volta.Buffer("y", "f32", 512, "in")
    out = volta.Buffer("out", np.float32, 512, opt_role)
    return volta.Launch(grid=4, block=(128,), args=["alpha", x, y, out, 512], symbols={"alpha": "f32"})


def test_check_manifest_equivalent_matches_cli(capsys):
    r = volta.check(str(EX / "eq_gemm_naive_tiled" / "manifest.toml"))
    assert (r.verdict, r.exit_code, r.ok, r.counterexample, r.findings) == ("equivalent", 0, True, None, [])
    assert r.timings["total"] > 0 and "execute" in r.timings
    assert r.report().startswith("EQUIVALENT: gemm_naive vs gemm_tiled")
    assert cli(["check", str(EX / "eq_gemm_naive_tiled" / "manifest.toml"), "-q"]) == r.exit_code
    assert capsys.readouterr().out.splitlines()[0] == r.report().splitlines()[0]


def test_check_paths_and_launch_not_equivalent_with_counterexample(tmp_path):
    d = EX / "neq_saxpy_last_sign"
    r = volta.check(d / "ref.sm80.ptx", d / "opt.sm80.ptx", _saxpy_launch())
    assert r.verdict == "not-equivalent" and r.exit_code == 1
    c = r.counterexample
    assert (c.buffer, c.index) == ("out", 511) and c.ref_value != c.opt_value
    assert "out[511] differs" in r.report() and "x[511] = " in r.report()
    data = json.loads(r.report("json"))
    assert data["verdict"] == "not-equivalent"
    assert not list(tmp_path.iterdir()) and not Path("counterexample.json").exists()  # nothing written unasked
    saved = tmp_path / "cex.json"
    r = volta.check(d / "ref.sm80.ptx", d / "opt.sm80.ptx", _saxpy_launch(), save_counterexample=saved)
    assert saved.exists() and "--replay" in r.report()


def test_check_ptx_text_and_bits_mode():
    d = EX / "neq_saxpy_last_sign"
    ref_text = (d / "ref.sm80.ptx").read_text()
    r = volta.check(ref_text, d / "ref.sm80.ptx", _saxpy_launch(), fp="ampere", trials=1)
    assert (r.verdict, r.exit_code) == ("no-difference-found", 0) and r.report().startswith("NO BIT DIFFERENCE")
    with pytest.raises(volta.UsageError, match="reports as"):
        r.report("sarif")
    proved = volta.check(ref_text, d / "ref.sm80.ptx", _saxpy_launch(), fp="ampere", prove=True)
    assert (proved.verdict, proved.exit_code) == ("bit-identical", 0) and proved.report().startswith("BIT-IDENTICAL")
    assert '"mode": "bits-proof"' in proved.report("json")


def test_check_needs_roles_as_the_cli_does():
    d = EX / "neq_saxpy_last_sign"
    with pytest.raises(volta.UsageError, match="needs a role"):
        volta.check(d / "ref.sm80.ptx", d / "opt.sm80.ptx", _saxpy_launch(opt_role=None))


def test_races_manifest_findings_and_report():
    r = volta.races(str(EX / "bug_reduce_tree_nosync" / "manifest.toml"))
    assert (r.verdict, r.exit_code) == ("findings", 1)
    f = r.findings[0]
    assert f.kind == "race" and len(f.threads) == 2 and f.sites[0].cuda
    text = r.report()
    assert "RACE:" in text and "kernel.cu:12" in text
    assert json.loads(r.report("json"))["schema"] == "volta.races/1"
    assert "<testsuite" in r.report("junit")


def test_races_ptx_text_clean():
    va = (EX / "vector_add" / "kernel.sm80.ptx").read_text()
    bufs = [volta.Buffer(n, "f32", 500) for n in ("x", "y", "out")]
    r = volta.races(va, volta.Launch(grid=4, block=128, args=[*bufs, 500]))
    assert (r.verdict, r.exit_code, r.findings) == ("clean", 0, [])
    assert r.kernels[0].kernel == "vector_add"


def test_run_default_random_seeded_and_dict_inputs():
    launch = volta.Launch(4, 128, [volta.Buffer("x", "f32", 500, "in"), volta.Buffer("y", "f32", 500, "in"),
                                   volta.Buffer("out", "f32", 500, "out"), 500])
    ptx = EX / "vector_add" / "kernel.sm80.ptx"
    r = volta.run(ptx, launch, seed=4)
    assert r.verdict == "clean" and r.seed == 4 and "random from seed 4" in r.inputs_used
    assert np.array_equal(r.outputs["out"], r.inputs["x"] + r.inputs["y"])
    x = np.arange(500, dtype=np.float32)
    r2 = volta.run(ptx, launch, inputs={"x": x, "y": x})
    assert np.array_equal(r2.outputs["out"], 2 * x) and r2.seed is None
    assert "out: f32[500]" in r2.report() and json.loads(r2.report("json"))["findings"] == []
    assert volta.run(ptx, launch, inputs="zeros").outputs["out"].max() == 0


def test_run_misnamed_or_missing_inputs_raise_usage_error():
    launch = volta.Launch(4, 128, [volta.Buffer("x", "f32", 500, "in"), volta.Buffer("y", "f32", 500, "in"),
                                   volta.Buffer("out", "f32", 500, "out"), 500])
    ptx = EX / "vector_add" / "kernel.sm80.ptx"
    x = np.ones(500, np.float32)
    with pytest.raises(volta.UsageError, match="array `xx` names no buffer"):
        volta.run(ptx, launch, inputs={"xx": x, "y": x})
    with pytest.raises(volta.UsageError, match=r"no array for the input buffer\(s\) y"):
        volta.run(ptx, launch, inputs={"x": x})
    r = volta.run(ptx, launch, inputs={"x": x}, fill="zeros")
    assert np.array_equal(r.outputs["out"], x) and "zeros for y" in r.inputs_used


def test_run_manifest_findings():
    r = volta.run(str(EX / "bug_global_race_accum" / "manifest.toml"))
    assert r.verdict == "findings" and r.exit_code == 1 and r.findings


def test_mma_matches_cli(capsys):
    r = volta.mma("hopper", "bf16", [0x3F80, 0x3F80], [0x3F80, 0xBF80], 0)
    assert cli(["mma", "--arch", "hopper", "--in", "bf16", "--a", "3f80,3f80", "--b", "3f80,bf80", "--c", "0"]) == 0
    assert r.report() == capsys.readouterr().out.strip() and r.word == 0
    batch = volta.mma("ampere", "f16", np.array([[0x3C00], [0x4000]]), np.array([[0x3C00], [0x3C00]]), [0, 0])
    assert [int(w) for w in batch.words] == [0x3F800000, 0x40000000]


def test_mma_instruction_and_ptxas_choose_the_row():
    """Vector P1 (tests/numerics/test_mma_select.py): ptxas 12.4-12.6's summed HMMAs round up, the chained
    HMMAs of 12.8+ and wgmma's one group truncate; the result names the row."""
    a, b = [0x68, 0, 0x0C], [0x68, 0, 0x08]
    old = volta.mma("hopper", "e4m3", a, b, ptxas="12.6")
    assert old.word == 0x45800001 and old.row["toolkits"] == "ptxas 12.4-12.6" and old.row["ptxas"] == "12.6"
    assert volta.mma("hopper", "e4m3", a, b, ptxas="13.0").word == 0x45800000
    wg = volta.mma("hopper", "e4m3", a, b, inst="wgmma")
    assert wg.word == 0x45800000 and json.loads(wg.report("json"))["row"]["inst"] == "wgmma"
    with pytest.raises(volta.UsageError, match="cannot compile fp8 mma.sync"):
        volta.mma("hopper", "e4m3", a, b, ptxas="12")


def test_run_reports_the_rows_and_takes_ptxas():
    r = volta.run(str(EX / "gemm_mma_sync" / "manifest.toml"), fp="hopper", check_races=False, ptxas="12.6")
    (row,) = r.raw.tensor_cores
    assert row["name"] == "hopper mma.sync f16->f32, every ptxas" and row["ptxas_from"] == "--ptxas"
    assert "tensor cores: hopper mma.sync f16->f32" in r.report()


@pytest.mark.parametrize("make,message", [
    (lambda: volta.Launch(grid=(1, 2, 3, 4), block=1).options(), "one to three"),
    (lambda: volta.races(str(EX / "vector_add" / "kernel.sm80.ptx"), volta.Launch(4, 2048, [])), "at most 1024"),
    (lambda: volta.Buffer("x", "complex9", 4).option() and volta.races(
        str(EX / "vector_add" / "kernel.sm80.ptx"), volta.Launch(4, 128, [volta.Buffer("x", "complex9", 4)])),
     "unknown dtype"),
    (lambda: volta.Launch(1, 1, ["a,b"]).options(), "one entry per parameter"),
    (lambda: volta.check("no-such.ptx", "b.ptx", volta.Launch(1, 1)), "no such file"),
    (lambda: volta.check(str(EX / "vector_add" / "manifest.toml")), "no [ref] and [opt]"),
    (lambda: volta.check(str(EX / "eq_gemm_naive_tiled" / "manifest.toml"), str(EX / "vector_add" / "kernel.sm80.ptx"),
                         volta.Launch(1, 1)), "one manifest.toml alone"),
    (lambda: volta.races(str(EX / "vector_add" / "manifest.toml"), volta.Launch(1, 1)), "is a manifest"),
    (lambda: volta.mma("hopper", "bf16", [0x1FFFF], [0]), "does not fit"),
    (lambda: volta.run(str(EX / "vector_add" / "manifest.toml"), inputs="random:1", seed=2), "disagree"),
])
def test_bad_input_is_a_usage_error(make, message):
    with pytest.raises(volta.UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        make()


def test_import_volta_is_cheap_and_lazy():
    code = ("import sys, volta; assert 'volta.api' not in sys.modules; volta.Launch; volta.check; "
            "assert 'z3' not in sys.modules and 'volta.exec.machine' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert set(volta.__all__) >= {"check", "races", "run", "mma", "Launch", "Buffer"}
    with pytest.raises(AttributeError):
        volta.no_such_name  # noqa: B018


VA_PTX = str(EX / "vector_add" / "kernel.sm80.ptx")


def _va_launch():
    return volta.Launch(4, 128, [volta.Buffer("x", "f32", 500, "in"), volta.Buffer("y", "f32", 500, "in"),
                                 volta.Buffer("out", "f32", 500, "out"), 500])


@pytest.mark.parametrize("make,message", [
    (lambda: volta.Buffer("x", "f3", 10, "in"), "unknown dtype `f3`"),
    (lambda: volta.Buffer("x", "f32", 0), "count must be a positive int"),
    (lambda: volta.Buffer("x", "f32", 4, "output"), "role must be 'in', 'out', 'inout' or 'temp'"),
    (lambda: volta.Buffer("1x"), "name must be an identifier"),
    (lambda: volta.Buffer("x", "s32", 4, "out", range=(0, 3)), "applies to an input"),
    (lambda: volta.run(VA_PTX, _va_launch(), inputs=[1, 2]), "inputs is a dict of arrays"),
    (lambda: volta.run(VA_PTX, _va_launch(), inputs={"x": "abc", "y": "d"}), r"inputs\['x'\]: expected a numpy"),
    (lambda: volta.check(42, VA_PTX, _va_launch()), "a kernel is a .ptx or .cu path"),
    (lambda: volta.run(VA_PTX, _va_launch(), inputs="zeros", seed=3), "seed= applies to random inputs"),
    (lambda: volta.run(VA_PTX, _va_launch(), inputs={"x": np.ones(500, np.float32)}), 'fill="random"'),
    (lambda: volta.run(VA_PTX, volta.Launch(4, 128, ["x", "y", "out", 500])), "volta.Buffer x=DTYPE"),
])
def test_bad_python_input_is_a_usage_error_in_python_words(make, message):
    with pytest.raises(volta.UsageError, match=message) as info:
        make()
    assert "--" not in str(info.value)   # no command-line option named to a Python caller


def test_per_side_launches_and_list_inputs():
    launch = _va_launch()
    assert volta.check((VA_PTX, launch), (VA_PTX, launch)).verdict == "equivalent"   # (kernel, Launch) per side
    assert volta.check(VA_PTX, VA_PTX, launch, opt_launch=launch).verdict == "equivalent"
    r = volta.run(VA_PTX, launch, inputs={"x": list(range(500)), "y": [0.5] * 500})
    assert r.outputs["out"][:3].tolist() == [0.5, 1.5, 2.5]
