"""`volta check` end to end on the real-number idioms (tests/equiv/data/real_idioms.cu, nvcc sm_80, no fast math):
full-precision expf, rsqrtf vs 1/sqrtf."""
import json
from pathlib import Path

from volta.cli import run

PTX = str(Path(__file__).parent / "data" / "real_idioms.ptx")
LAUNCH = ["--grid", "1", "--block", "32", "--args", "x,y,32", "--buffer", "x=f32[32]:in",
          "--buffer", "y=f32[32]:out", "-q"]


def _check(capsys, ref, opt, *extra):
    code = run(["check", PTX, PTX, "--ref-kernel", ref, "--opt-kernel", opt, *LAUNCH, *extra])
    return code, capsys.readouterr().out


def test_expf_against_itself_reports_the_checked_condition(capsys):
    code, out = _check(capsys, "silu_expf", "silu_expf", "--json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "equivalent"
    assert any("read as 2^n" in n and "normal range [1, 254]" in n for n in data["notes"]), data["notes"]


def test_expf_vs_fast_expf_are_one_function_exp(capsys):
    """expf multiplies by the split hi + lo of log2 e, __expf by hi = RN32(log2 e): read as the constant they
    round (volta/symbolic/constants.py), both are 2^(x·log2 e), and the report says which literals it read so."""
    code, out = _check(capsys, "silu_expf", "silu_fastexp", "--json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "equivalent", out
    (log2e,) = data["constants"]
    assert log2e["name"] == "log2 e" and {"0f3FB8AA3B", "lo 0f32A57060"} <= set(log2e["literals"])


def test_exact_constants_separates_expf_from_fast_expf(capsys):
    """--exact-constants reads every literal as its rational: expf is 2^(x·(hi+lo)), __expf is 2^(x·hi),
    different real functions. The outputs are irrational; certified interval arithmetic encloses both, the
    enclosures are disjoint, and the difference is replayed (NOT EQUIVALENT)."""
    code, out = _check(capsys, "silu_expf", "silu_fastexp", "--exact-constants")
    assert code == 1 and out.startswith("NOT EQUIVALENT"), out
    assert "certified" in out.splitlines()[0] and "enclosures disjoint" in out
    assert "constants read as exact reals" not in out


def test_exponent_field_without_bounds_is_unsupported(capsys):
    code, out = _check(capsys, "silu_expf", "pow2_bits")
    assert code == 3 and out.startswith("UNSUPPORTED"), out
    assert "normal range" in out


def test_rsqrt_vs_one_over_sqrt_is_equivalent(capsys):
    code, out = _check(capsys, "rms_rsqrt", "rms_div_sqrt")
    assert code == 0 and out.startswith("EQUIVALENT"), out
    assert "by equal normal forms" in out


def test_rsqrt_vs_sqrt_is_never_equivalent(capsys):
    code, out = _check(capsys, "rms_rsqrt", "rms_sqrt_wrong")
    assert code in (1, 3) and not out.startswith("EQUIVALENT"), out


def test_saturate_is_a_clamp_not_the_identity(capsys):
    code, out = _check(capsys, "saturate", "identity")
    assert code == 1 and out.startswith("NOT EQUIVALENT"), out
    code, out = _check(capsys, "saturate", "clamp01")
    assert code == 0 and out.startswith("EQUIVALENT"), out
