"""Issue 8 §4: inputs that used to end in a Python traceback are one-paragraph usage errors (exit 2),
and every run is bounded (memory estimate, launch limits, --max-steps, --timeout)."""
from pathlib import Path

from volta.cli import run

ROOT = Path(__file__).resolve().parents[2]
VADD = str(ROOT / "examples" / "vector_add" / "kernel.sm80.ptx")
VADD_BUFS = ["--buffer", "x=f32[500]:in", "--buffer", "y=f32[500]:in", "--buffer", "out=f32[500]:out"]


def one_paragraph_error(capsys, code, *needles):
    cap = capsys.readouterr()
    assert code == 2, (code, cap.out, cap.err)
    assert "Traceback" not in cap.err and "Traceback" not in cap.out
    assert "\n\n" not in cap.err.strip() and cap.err.strip(), cap.err
    for n in needles:
        assert n in cap.err, (n, cap.err)
    return cap.err


def test_a_fraction_for_an_integer_parameter_is_a_usage_error(capsys):
    code = run(["races", VADD, "--grid", "4", "--block", "128", "--args", "x,y,out,500.5", *VADD_BUFS, "-q"])
    one_paragraph_error(capsys, code, "500.5", "vector_add_param_3", ".u32")


def test_an_integer_too_wide_for_its_parameter_is_a_usage_error(capsys):
    code = run(["races", VADD, "--grid", "4", "--block", "128", "--args", "x,y,out,99999999999", *VADD_BUFS, "-q"])
    one_paragraph_error(capsys, code, "does not fit", ".u32")


def test_an_integral_float_literal_is_the_integer(capsys):
    assert run(["races", VADD, "--grid", "4", "--block", "128", "--args", "x,y,out,5e2", *VADD_BUFS, "-q"]) == 0
