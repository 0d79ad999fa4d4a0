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



def _fp8_pair(tmp_path):
    """The one-warp fp8 mma.sync kernel of test_run_cli as both sides of a pair."""
    from tests.cli.test_run_cli import FP8_MMA

    path = tmp_path / "fp8.ptx"
    path.write_text(FP8_MMA)
    return [str(path), str(path), "--grid", "1", "--block", "32", "--args", "A,B,C,D", "--buffer", "A=u32[128]:in",
            "--buffer", "B=u32[64]:in", "--buffer", "C=u32[128]:in", "--buffer", "D=u32[128]:out"]


def test_check_takes_the_ptxas_version(tmp_path, capsys):
    """--ptxas reaches the machines of the bit comparison: ptxas 12.2 cannot compile fp8 mma.sync (a usage
    error), 12.6 can; --ptxas without an architecture --fp is a usage error."""
    pair = _fp8_pair(tmp_path)
    assert run(["check", *pair, "--fp", "hopper", "--trials", "1", "--ptxas", "12.2"]) == 2
    assert "ptxas 12.2 cannot compile fp8 mma.sync" in capsys.readouterr().err
    assert run(["check", *pair, "--fp", "hopper", "--trials", "1", "--ptxas", "12.6"]) == 0
    capsys.readouterr()
    assert run(["check", *pair, "--fp", "ieee", "--ptxas", "12.8"]) == 2
    assert "give an architecture --fp" in capsys.readouterr().err
