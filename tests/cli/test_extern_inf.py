"""--define-fn on an extern hook fed a concrete ±INFINITY (the causal mask of flash attention), and a
concrete float argument passed through `.param .b32`: exact where the extended reals say so, else UNSUPPORTED."""
from pathlib import Path

from volta.cli import run

PTX = str(Path(__file__).parent / "data" / "extern_inf.ptx")
LAUNCH = ["--grid", "2", "--block", "32", "--args", "x,y,64", "--buffer", "x=f32[64]:in",
          "--buffer", "y=f32[64]:out", "-q", "--define-fn", "__symexpf=exp"]


def test_exp_of_minus_infinity_is_zero(capsys):
    # ref: exp(i >= n/2 ? -INFINITY : x[i]); opt: i >= n/2 ? 0 : exp(x[i])
    code = run(["check", PTX, PTX, "--ref-kernel", "ref", "--opt-kernel", "opt", *LAUNCH])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("EQUIVALENT"), out


def test_exp_of_plus_infinity_is_unsupported_not_a_crash(capsys):
    code = run(["check", PTX, PTX, "--ref-kernel", "ref", "--opt-kernel", "posinf", *LAUNCH])
    out = capsys.readouterr().out
    assert code == 3 and out.startswith("UNSUPPORTED"), out
    assert "applied to +inf" in out and "extern_inf.ptx:" in out


def test_a_concrete_minus_infinity_is_never_read_as_the_integer_of_its_bits(capsys):
    # before the fix -INFINITY (0xFF800000, passed as .b32) became exp(4286578688): ref and opt differed
    code = run(["check", PTX, PTX, "--ref-kernel", "opt", "--opt-kernel", "ref", *LAUNCH])
    assert code == 0, capsys.readouterr().out
