"""Bit mode tolerances: --ulp/--rtol/--atol and the ±0 policy (--signed-zero), through volta.check and the CLI."""
import json
from pathlib import Path

import pytest

import volta
from volta.cli import run as cli

ROOT = Path(__file__).resolve().parents[2]
T = ROOT / "examples" / "triton"
SUM = ROOT / "examples" / "eq_bits_reduce_seq_tree_f32" / "manifest.toml"


def _rowsum(**kw):
    # Triton rowsum BLOCK=256 vs BLOCK=512: the 512 padding adds +0.0, so a row of -0.0 sums to +0.0 instead of -0.0
    x, out = volta.Buffer("x", "f32", 1024, "in"), volta.Buffer("out", "f32", 4, "out")
    launch = volta.Launch(grid=4, block=128, args=[out, x, 256, 0, 0], shared_dynamic=16)
    return volta.check(T / "rowsum.b256.w4.sm80.ptx", T / "rowsum.b512.w4.sm80.ptx", launch, fp="ieee", trials=2, **kw)


def test_signed_zero_only_difference_is_named_and_the_policy_decides():
    r = _rowsum()
    assert r.verdict == "bits-differ" and r.exit_code == 1
    text = r.report()
    assert "differ only in the sign of zero" in text and "--signed-zero equal" in text
    eq = _rowsum(signed_zero="equal")
    assert eq.verdict == "no-difference-found" and eq.exit_code == 0
    assert "counted equal (--signed-zero equal)" in eq.report()
    # a numeric tolerance does not hide ±0 while the policy says they differ
    assert _rowsum(ulp=2).verdict == "bits-differ"
    data = json.loads(eq.report("json"))
    assert data["signed_zero_only"] == 8 and data["tolerance"]["signed_zero"] == "equal"


@pytest.mark.slow
def test_ulp_and_rtol_tolerances():
    exact = volta.check(SUM, fp="ieee", trials=1)
    assert exact.verdict == "bits-differ"
    loose = volta.check(SUM, fp="ieee", trials=1, ulp=1e9, signed_zero="equal")
    assert loose.verdict == "within-tolerance" and loose.exit_code == 0, loose.report()
    assert loose.report().startswith("NO DIFFERENCE BEYOND TOLERANCE FOUND")
    tight = volta.check(SUM, fp="ieee", trials=1, ulp=8, signed_zero="equal")
    assert tight.verdict == "bits-differ" and "beyond tolerance" in tight.report()
    data = json.loads(tight.report("json"))
    assert 0 < data["beyond_tolerance"] <= data["differing"] and data["tolerance"]["ulp"] == 8
    assert data["witness"]["ulps"] > 8  # the witness is an element beyond the tolerance


def test_tolerance_options_on_the_cli(capsys):
    assert cli(["check", str(SUM), "--fp", "ieee", "--trials", "1", "--ulp", "1e9", "--signed-zero", "equal"]) == 0
    assert "NO DIFFERENCE BEYOND TOLERANCE FOUND" in capsys.readouterr().out
    assert cli(["check", str(SUM), "--ulp", "2"]) == 2
    assert "give --fp ieee" in capsys.readouterr().err
    assert cli(["check", str(SUM), "--fp", "ieee", "--prove", "--rtol", "1e-3"]) == 2
    assert "--prove proves bit identity" in capsys.readouterr().err


@pytest.mark.parametrize("kw", [dict(ulp=-1), dict(rtol=float("nan")), dict(signed_zero="maybe"), dict(ulp=1, fp="real")])
def test_bad_tolerances_are_usage_errors(kw):
    kw = {"fp": "ieee", **kw}
    with pytest.raises(volta.UsageError):
        volta.check(SUM, trials=1, **kw)


def test_one_bit_is_singular():
    from volta.equiv.diverge import KernelDiagnosis, Site, Step

    def step(i, bits):
        return Step(i, 0, "add.f32", f"k.ptx:{i}", None, 1.0, 1.0, 0.0, bits, None)

    one = KernelDiagnosis("opt", Site(9, "st.global.f32", "k.ptx:9", None), first=step(3, 1), worst=step(3, 1),
                          sites=[Site(3, "add.f32", "k.ptx:3", None, 1, 1, 1)])
    assert "loses 1 bit;" in one.summary()
    two = KernelDiagnosis("opt", Site(9, "st.global.f32", "k.ptx:9", None), first=step(3, 1), worst=step(5, 1),
                          sites=[Site(3, "add.f32", "k.ptx:3", None, 1, 1, 1), Site(5, "add.f32", "k.ptx:5", None, 1, 1, 1)])
    assert "(1 bit)" in two.summary() and "(1 bits)" not in two.summary()
