"""`0` for a pointer parameter is a null pointer: skipping it behind `bias != nullptr` runs clean,
dereferencing it is an out-of-bounds finding naming the parameter (races, check and run alike)."""
from pathlib import Path

from volta.cli import run

ROOT = Path(__file__).resolve().parents[2]
NULLABLE = ROOT / "examples" / "bias_nullable"
ALWAYS = str(Path(__file__).parent / "data" / "bias_always.ptx")
LAUNCH = ["--grid", "3", "--block", "128", "--args", "x,0,out,8,48", "--buffer", "x=f32[384]:in",
          "--buffer", "out=f32[384]:out"]


def test_a_guarded_null_bias_is_clean(capsys):
    assert run(["races", str(NULLABLE / "manifest.toml"), "-q"]) == 0
    assert "CLEAN" in capsys.readouterr().out
    assert run(["run", str(NULLABLE / "manifest.toml")]) == 0
    assert "no races, deadlocks or out-of-bounds accesses" in capsys.readouterr().out
    ptx = str(NULLABLE / "kernel.sm80.ptx")
    assert run(["check", ptx, ptx, *LAUNCH, "-q"]) == 0
    assert capsys.readouterr().out.startswith("EQUIVALENT")


def test_dereferencing_a_null_pointer_is_a_finding(capsys):
    for argv in (["races", ALWAYS, *LAUNCH, "-q"], ["run", ALWAYS, *LAUNCH], ["check", ALWAYS, ALWAYS, *LAUNCH, "-q"]):
        assert run(argv) == 1, argv[0]
        out = capsys.readouterr().out
        assert "NULL POINTER dereference of parameter `bias_always_param_1` (argument 2)" in out, (argv[0], out)
        assert "OUT-OF-BOUNDS" in out and not out.startswith("EQUIVALENT")
        assert "UNINITIALIZED" not in out, "the faulting load must not leave a second, spurious finding"


def test_a_nonzero_scalar_for_a_pointer_is_still_a_usage_error(capsys):
    argv = ["races", ALWAYS, *LAUNCH, "-q"]
    argv[argv.index("x,0,out,8,48")] = "x,16,out,8,48"
    assert run(argv) == 2
    assert "used as a pointer" in capsys.readouterr().err
