"""Issue 28 §5: coshf under --use_fast_math and libdevice erfcf through `volta check`.

Both build 2^j in a float's exponent field (`shl.b32 r, bits(j + 0x4B40007D), 23`) after an exp range reduction
whose j = trunc(t) is clamped by `|j| > 126 ? copysign(126, j) : j`. The interval bounds now read the clamp
(volta/semantics/intervals.py), so the exponent field is proved normal and the instruction is read as 2^n, as for
expf; without the clamp it stays UNSUPPORTED. The examples eq_gelu_backward_coshf_fastmath and
eq_normal_cdf_erfcf_float4 run through tests/cli/test_check_cli.py.
"""
from pathlib import Path

import pytest

from volta.cli import run

DATA = Path(__file__).parent / "data"
FAST = str(DATA / "cosh_erfc.fastmath.ptx")
FULL = str(DATA / "cosh_erfc.ptx")
LAUNCH = ["--grid", "1", "--block", "32", "--args", "x,y,32", "--buffer", "x=f32[32]:in",
          "--buffer", "y=f32[32]:out", "-q"]


def check(capsys, ptx, ref, opt, *extra, ref_ptx=None):
    code = run(["check", ref_ptx or ptx, ptx, "--ref-kernel", ref, "--opt-kernel", opt, *LAUNCH, *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out


@pytest.mark.parametrize("ptx", [FAST, FULL], ids=["fast-math", "libdevice"])
@pytest.mark.parametrize("kernel", ["cosh_lib", "erfc_lib"])
def test_the_exponent_field_is_proved_normal(capsys, ptx, kernel):
    code, out = check(capsys, ptx, kernel, kernel)
    assert code == 0 and out.startswith("EQUIVALENT"), out
    assert "read as 2^n; checked by interval bounds" in out


@pytest.mark.parametrize("ptx", [FAST, FULL], ids=["fast-math", "libdevice"])
def test_erfc_twice_minus_once(capsys, ptx):
    code, out = check(capsys, ptx, "erfc_lib", "erfc_twice")
    assert code == 0 and out.startswith("EQUIVALENT"), out


def test_without_the_clamp_the_shift_stays_unsupported(capsys, tmp_path):
    """The same coshf with j left unclamped: j = trunc(|x| log2 e) is unbounded above, so its exponent field may
    overflow; the bounds do not prove it and nothing is assumed."""
    text = Path(FAST).read_text()
    clamp = "selp.f32 \t%f9, %f8, %f5, %p2;"
    assert clamp in text
    unclamped = tmp_path / "unclamped.ptx"
    unclamped.write_text(text.replace(clamp, "mov.f32 \t%f9, %f5;"))
    code, out = check(capsys, str(unclamped), "cosh_lib", "cosh_lib")
    assert code == 3 and out.startswith("UNSUPPORTED") and "normal range [1, 254]" in out, out


def test_coshf_against_its_formula(capsys):
    """Fast-math coshf reduces by j·ln 2 (hi + lo) and scales by log2 e: 2^((|x| − j·ln 2)·log2 e)·2^(j−2). With
    ln 2 and log2 e read as the named constants (ln 2 = 1/log2 e) j cancels, and coshf is 0.5·(2^(|x|·log2 e) +
    2^(−|x|·log2 e)), the formula's value."""
    code, out = check(capsys, FAST, "cosh_formula", "cosh_lib")
    assert code == 0 and out.startswith("EQUIVALENT"), out
    assert "ln 2 (0fBF317218, lo 0f3102E308; opt only)" in out


def test_coshf_against_its_formula_exact_constants(capsys):
    """Read as the rationals they are, 2^(j·(1 − ln2'·log2e')) remains: never EQUIVALENT."""
    code, out = check(capsys, FAST, "cosh_formula", "cosh_lib", "--exact-constants")
    assert code == 1 and out.startswith("NOT EQUIVALENT"), out


def test_coshf_with_ln2_one_ulp_off_is_not_equivalent(capsys, tmp_path):
    """0fBF317219 is not RN(−ln 2): it stays a literal, j no longer cancels, and the difference is replayed."""
    off = tmp_path / "cosh_off.ptx"
    off.write_text(Path(FAST).read_text().replace("0fBF317218", "0fBF317219"))
    code, out = check(capsys, str(off), "cosh_formula", "cosh_lib", ref_ptx=FAST)
    assert code == 1 and out.startswith("NOT EQUIVALENT"), out
    assert "ln 2" not in out.split("constants read as exact reals")[-1].split("--exact-constants")[0], out
