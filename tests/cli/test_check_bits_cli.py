"""`volta check --fp ieee|ARCH`: bit-level comparison of two kernels, and where their bits part."""
import json

from volta.cli import run


def test_bf16_downcast_is_reported_and_blamed_on_the_cvt(capsys):
    code = run(["check", "examples/eq_bits_bf16_store/manifest.toml", "--fp", "ieee", "--trials", "1"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("BITS DIFFER under --fp ieee")
    assert "cvt.rn.bf16.f32" in out.split("where the bits part:")[1]


def test_same_summation_order_is_bit_identical_on_hopper(capsys):
    code = run(["check", "examples/eq_gemm_naive_tiled/manifest.toml", "--fp", "hopper", "--trials", "1",
                "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["verdict"] == "no-difference-found" and data["differing"] == 0 and data["compared"] > 0


def test_unknown_fp_mode_is_a_usage_error(capsys):
    code = run(["check", "examples/eq_gemm_naive_tiled/manifest.toml", "--fp", "pentium"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown --fp" in err and "Traceback" not in err
