"""Issue 28 §5: host steps between the launches of a pipeline — `memset BUF BYTE` and `copy SRC DST`
(volta/launch/hoststeps.py) — through `volta check`, `races` and `run`, the manifest, the options and the API.

A memset writes known bytes (a `temp` buffer is written from then on; the bytes, not a fill kernel's guess, are
the value); a copy moves each element's value (over the reals its expression: an input stays that input's
variable); both run where they stand among the launches.
"""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import volta
from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples" / "eq_rowsum_memset_atomic_copy"
MANIFEST = str(EX / "manifest.toml")
REF = f"{EX / 'ref.sm80.ptx'}:row_sums grid=2 block=32 args=x,out,48,40"
SPLIT = f"{EX / 'opt.sm80.ptx'} grid=2x3 block=32 args={{src}},acc,48,40,16"
BUFFERS = ["--buffer", "x=f32[1920]:in", "--buffer", "out=f32[48]:out", "--buffer", "acc=f32[48]:temp",
           "--buffer", "xc=f32[1920]:temp"]


def cli(capsys, argv):
    code = run(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, err
    return code, out, err


def check(capsys, *opt, src="x"):
    """`volta check` of the row sums against the split kernel, with the opt side's steps in the order given."""
    items = []
    for step in opt:
        items += ["--opt-launch", SPLIT.format(src=src)] if step == "split" else ["--opt-step", step]
    return cli(capsys, ["check", "--ref-launch", REF, *items, *BUFFERS, "-q"])


def test_the_example_through_check_races_and_run(capsys, tmp_path):
    code, out, _ = cli(capsys, ["check", MANIFEST, "-q"])
    assert code == 0 and out.startswith("EQUIVALENT: row_sums vs memset acc 0 → row_sums_split → copy acc out"), out
    code, out, _ = cli(capsys, ["races", MANIFEST, "-q", "--json"])
    doc = json.loads(out)
    assert code == 0 and [k["kernel"] for k in doc["kernels"]] == ["row_sums",
                                                                    "memset acc 0 → row_sums_split → copy acc out"]
    outs = {}
    for role in ("ref", "opt"):
        npz = tmp_path / f"{role}.npz"
        code, _, _ = cli(capsys, ["run", MANIFEST, "--kernel", role, "--out", str(npz), "-q"])
        assert code == 0
        outs[role] = np.load(npz)["out"]
    assert np.allclose(outs["ref"], outs["opt"], rtol=1e-5, atol=1e-5)


def test_without_the_memset_the_atomics_update_never_written_memory(capsys):
    code, out, _ = check(capsys, "split", "copy acc out")
    assert code == 1 and out.startswith("UNINITIALIZED READ"), out
    assert "`atom.global.add.f32` updates never-written bytes of global buffer `acc`" in out


def test_a_memset_stores_bytes(capsys):
    """cudaMemset(acc, 1, …) makes every f32 0x01010101 = 2.369e-38, not 1.0: the accumulator starts there."""
    code, out, _ = check(capsys, "memset acc 1", "split", "copy acc out")
    assert code == 1 and out.startswith("NOT EQUIVALENT"), out
    assert "≈ 2.36942783e-38" in out


def test_steps_run_where_they_stand(capsys):
    # the copy before the launch moves the zeroed accumulator into out: out stays 0
    code, out, _ = check(capsys, "memset acc 0", "copy acc out", "split")
    assert code == 1 and out.startswith("NOT EQUIVALENT: out[0] differs: ref = 40, opt = 0"), out
    assert "memset acc 0 → copy acc out → row_sums_split" in out
    # before the memset, the copy reads the never-written accumulator
    code, out, _ = check(capsys, "copy acc out", "memset acc 0", "split")
    assert code == 1 and "stored to global buffer `out`" in out, out


def test_a_copy_moves_the_inputs_values(capsys):
    """The kernel reads a copy of x: over the reals the copy holds x's own variables, so the sums are equal."""
    code, out, _ = check(capsys, "copy x xc", "memset acc 0", "split", "copy acc out", src="xc")
    assert code == 0 and out.startswith("EQUIVALENT"), out


@pytest.mark.parametrize("step, needle", [
    ("memset acc 256", "must be 0..255"),
    ("memset nope 0", "`nope` is not a declared buffer"),
    ("fill acc 0", 'expected "memset BUF VALUE"'),
    ("copy acc", 'expected "memset BUF VALUE"'),
    ("copy x out", "is smaller than"),
])
def test_a_bad_step_is_a_usage_error(capsys, step, needle):
    code, _, err = check(capsys, "memset acc 0", "split", step)
    assert code == 2 and needle in err and err.count("\n") == 1, err


def test_manifest_step_tables(capsys, tmp_path):
    case = tmp_path / "case"
    shutil.copytree(EX, case)
    text = (case / "manifest.toml").read_text()
    (case / "manifest.toml").write_text(text.replace('step = "memset acc 0"', 'step = "memset acc 0"\nname = "x"'))
    code, _, err = cli(capsys, ["check", str(case / "manifest.toml")])
    assert code == 2 and "is a host step (`step = ...`) and has the key `name`" in err, err
    (case / "manifest.toml").write_text(text.replace('step = "memset acc 0"', 'step = "memset acc 0"\nstpe = 1'))
    code, _, err = cli(capsys, ["check", str(case / "manifest.toml")])
    assert code == 2 and "did you mean `step`" in err, err


def test_the_api_pipeline_takes_steps():
    x, out, acc = (volta.Buffer("x", "f32", 1920, "in"), volta.Buffer("out", "f32", 48, "out"),
                   volta.Buffer("acc", "f32", 48, "temp"))
    ref = [(str(EX / "ref.sm80.ptx"), volta.Launch(2, 32, [x, out, 48, 40], kernel="row_sums"))]
    split = (str(EX / "opt.sm80.ptx"), volta.Launch((2, 3), 32, [x, acc, 48, 40, 16]))
    assert volta.check(ref, volta.Pipeline(["memset acc 0", split, "copy acc out"])).verdict == "equivalent"
    assert volta.check(ref, [split, "copy acc out"]).verdict == "findings"
    assert volta.races(["memset acc 0", split, "copy acc out"], buffers=[out]).verdict == "clean"
    with pytest.raises(volta.UsageError, match="host steps only"):
        volta.Pipeline(["memset acc 0"])


def test_a_sequence_header_names_the_cuda_kernels_and_the_users_ptx(capsys):
    # the header of each side's findings names the kernels by their .cu names and the user's PTX, never the
    # cache file a host step runs as; a sequence's step names are demangled (`_Z4normPfi` reads `norm`)
    from volta.exec.drivers.pipeline import step_name
    from volta.launch.spec import parse_launch

    code, out, _ = check(capsys, "memset xc 0", "split", "copy acc out")   # acc never zeroed: a finding
    assert code == 1 and out.startswith("UNINITIALIZED READ"), out
    opt_header = next(line for line in out.splitlines() if line.lstrip().startswith("races opt"))
    assert "host-steps" not in opt_header and "opt.sm80.ptx" in opt_header, opt_header
    launch = parse_launch(f"{EX / 'opt.sm80.ptx'} grid=1 block=32", "--opt-launch")
    assert step_name(launch, "_Z4normPfi") == "norm" and step_name(launch, "row_sums_split") == "row_sums_split"
