"""Calls to device functions with no body in the PTX are uninterpreted: equal arguments, equal results."""
from pathlib import Path

from volta.cli import run

PTX = str(Path(__file__).parent / "data" / "extern_call.ptx")
LAUNCH = ["--grid", "2", "--block", "64", "--args", "x,y,100", "--buffer", "x=f32[100]:in",
          "--buffer", "y=f32[100]:out", "-q"]


def test_same_uninterpreted_calls_are_equivalent(capsys):
    assert run(["check", PTX, PTX, "--ref-kernel", "ref", "--opt-kernel", "opt", *LAUNCH]) == 0
    assert capsys.readouterr().out.startswith("EQUIVALENT")


def test_different_arguments_are_never_called_equivalent(capsys):
    # f(x[i]) + f(x[n-1-i]) differs from 2 f(x[i]) for some f; without an interpretation of f the
    # difference cannot be replayed exactly, so nothing is claimed either way
    code = run(["check", PTX, PTX, "--ref-kernel", "ref", "--opt-kernel", "bad", *LAUNCH])
    out = capsys.readouterr().out
    assert code in (1, 3) and not out.startswith("EQUIVALENT")


def test_races_treats_the_result_as_data(capsys):
    assert run(["races", PTX, "--kernel", "opt", *LAUNCH]) == 0


def test_a_concrete_run_refuses_to_guess_the_value(capsys, tmp_path):
    code = run(["run", PTX, "--kernel", "ref", "--grid", "2", "--block", "64", "--args", "x,y,100",
                "--buffer", "x=f32[100]", "--buffer", "y=f32[100]"])
    assert code == 3


EXP = str(Path(__file__).parent / "data" / "extern_exp.ptx")
EXP_LAUNCH = ["--ref-kernel", "ref", "--opt-kernel", "opt", "--grid", "1", "--block", "32", "--args", "x,y,32",
              "--buffer", "x=f32[32]:in", "--buffer", "y=f32[32]:out", "-q"]


def test_define_fn_gives_exp_its_meaning(capsys):
    """myexp(x)·myexp(x) = myexp(2x) holds for exp, not for an arbitrary function."""
    assert run(["check", EXP, EXP, *EXP_LAUNCH]) == 3  # uninterpreted: undecided, nothing claimed
    capsys.readouterr()
    assert run(["check", EXP, EXP, *EXP_LAUNCH, "--define-fn", "myexp=exp"]) == 0
    assert capsys.readouterr().out.startswith("EQUIVALENT")


def test_define_fn_rejects_unknown_meanings(capsys):
    assert run(["check", EXP, EXP, *EXP_LAUNCH, "--define-fn", "myexp=cosh"]) == 2
    assert "bad --define-fn" in capsys.readouterr().err


def test_a_mangled_name_says_which_parameters_are_floats():
    """`st.param.b32 [p], 0f40400000` passes 3.0 to `_Z11__volta_powff`: read as the float 3, never as the
    integer 1077936128 of its bits (a pow reading then built x**1077936128 and ran out of memory)."""
    from volta.exec.handlers.dispatch import mangled_floats
    assert mangled_floats("_Z11__volta_powff", 2) == [True, True]
    assert mangled_floats("_Z12__volta_tanhd", 1) == [True]
    assert mangled_floats("_Z3mixfid", 3) == [True, False, True]
    assert mangled_floats("_Z3ptrPfi", 2) == [False, False]      # a pointer: not one-letter builtins throughout
    assert mangled_floats("expf", 1) == [False]                    # extern "C": the declared .param type stays
    assert mangled_floats("_Z3badf", 2) == [False, False]          # a count that does not match
