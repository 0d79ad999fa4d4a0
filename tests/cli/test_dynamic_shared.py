"""`extern __shared__` memory has the size the launch gives it (--shared-dynamic): without it every access is
out of bounds, and the finding says where that size comes from."""
from pathlib import Path

from volta.cli import run

PTX = str(Path(__file__).parent / "data" / "dynamic_shared.ptx")
LAUNCH = ["--ref-kernel", "copy", "--opt-kernel", "copy_dyn", "--grid", "2", "--block", "32", "--args", "x,y,64",
          "--buffer", "x=f32[64]:in", "--buffer", "y=f32[64]:out"]


def test_without_dynamic_shared_bytes_the_finding_names_the_option(capsys):
    code = run(["check", PTX, PTX, *LAUNCH])
    out = capsys.readouterr().out
    assert code != 0 and "OUT-OF-BOUNDS" in out, out
    assert "dynamic shared memory: the launch gives it 0 bytes, set by --shared-dynamic" in out, out


def test_with_them_the_pair_is_decided(capsys):
    code = run(["check", PTX, PTX, *LAUNCH, "--shared-dynamic", "128"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("EQUIVALENT"), out
