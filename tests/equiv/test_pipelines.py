"""Multi-kernel pipelines: [[ref.launch]] / [[opt.launch]] sequences over shared buffers, role temp.

The launches of one side run in order on the same buffers (a launch boundary orders everything), so
`volta check` compares the final outputs of the whole sequence, `volta races` analyzes each launch with the
memory the earlier ones left, and `volta run` runs the sequence on concrete inputs. A temp buffer starts
never-written: reading it before a launch wrote it is an uninitialized read.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import volta
from volta.cli import run
from volta.errors import UsageError
from volta.launch.spec import load_manifest

EX = Path(__file__).resolve().parents[2] / "examples"
BLOCKSUM = EX / "eq_blocksum_two_kernels"


def _manifest(tmp_path, opt_launches: str, buffers='x = "f32[1024]:in"\nout = "f32[1]:out"\npartial = "f32[8]:temp"\n',
              extra_opt=""):
    ptx = BLOCKSUM / "opt.sm80.ptx"
    ref = BLOCKSUM / "ref.sm80.ptx"
    text = f'''description = "test"
[ref]
ptx = "{ref}"
name = "sum_sequential"
grid = "2"
block = "32"
args = ["x", "out", "1024"]
{extra_opt}
{opt_launches.replace("PTX", str(ptx))}
[buffers]
{buffers}
'''
    p = tmp_path / "manifest.toml"
    p.write_text(text)
    return p


BLOCK_SUMS = '''[[opt.launch]]
ptx = "PTX"
name = "block_sums"
grid = "8"
block = "128"
args = ["x", "partial", "1024"]
'''
FINAL = '''[[opt.launch]]
ptx = "PTX"
name = "final_reduce"
grid = "2"
block = "32"
args = ["partial", "out", "8"]
'''


def test_manifest_sequence_loads_in_order():
    spec = load_manifest(BLOCKSUM / "manifest.toml")
    assert [x.kernel for x in spec.sequences["opt"]] == ["block_sums", "final_reduce"]
    assert spec.launches["opt"].kernel == "block_sums" and "ref" not in spec.sequences
    assert spec.buffers["partial"].role == "temp"


def test_check_sequence_equivalent_and_races_clean(capsys):
    code = run(["check", str(BLOCKSUM / "manifest.toml"), "-q", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["verdict"] == "equivalent"
    # block_sums writes partial[b] in one launch, final_reduce reads it in the next: ordered, not a race
    r = volta.races(str(BLOCKSUM / "manifest.toml"))
    assert r.verdict == "clean", r.report()
    opt = [x for x in r.kernels if x.role == "opt"][0]
    assert opt.kernel == "block_sums → final_reduce" and opt.thread_instructions > 0


def test_reading_temp_before_it_is_written_is_uninitialized(tmp_path, capsys):
    path = _manifest(tmp_path, FINAL + BLOCK_SUMS)   # the reduce runs first: partial was never written
    code = run(["check", str(path), "-q", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["verdict"] == "findings", data
    assert "uninitialized-read" in {f["kind"] for f in data["findings"]["opt"]}
    r = volta.races(str(path))
    assert r.verdict == "findings" and "uninitialized-read" in r.report().lower().replace(" ", "-"), r.report()


def test_run_sequence_concretely(tmp_path):
    x = np.linspace(-1, 1, 1024, dtype=np.float32)
    r_opt = volta.run(str(BLOCKSUM / "manifest.toml"), role="opt", inputs={"x": x})
    r_ref = volta.run(str(BLOCKSUM / "manifest.toml"), role="ref", inputs={"x": x})
    assert not r_opt.findings
    partial = np.asarray(r_opt.outputs["partial"])
    assert np.allclose(partial, x.reshape(8, 128).astype(np.float64).sum(axis=1), atol=1e-4)
    assert np.isclose(float(r_opt.outputs["out"][0]), float(x.astype(np.float64).sum()), atol=1e-4)
    assert np.isclose(float(r_opt.outputs["out"][0]), float(r_ref.outputs["out"][0]), atol=1e-4)


def test_run_sequence_exact(tmp_path):
    x = np.arange(1024, dtype=np.float32) / 8
    r = volta.run(str(BLOCKSUM / "manifest.toml"), role="opt", inputs={"x": x}, fp="real")
    assert float(r.outputs["out"][0]) == float(x.astype(np.float64).sum())


@pytest.mark.parametrize("body, needle", [
    (BLOCK_SUMS.replace('grid = "8"', 'gird = "8"'), "did you mean `grid`"),
    ("[opt]\nlaunch = 3\n", "array of tables"),
])
def test_bad_sequence_tables_are_usage_errors(tmp_path, capsys, body, needle):
    path = _manifest(tmp_path, body + (FINAL if "[[" in body else ""))
    code = run(["check", str(path), "-q"])
    out, err = capsys.readouterr()
    assert code == 2 and needle in err and "Traceback" not in err, err


def test_sequence_with_other_keys_in_its_table_is_a_usage_error(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text('description = "x"\n[opt]\ngrid = "2"\n[[opt.launch]]\nptx = "a.ptx"\ngrid = "1"\nblock = "1"\n'
                    '[ref]\nptx = "a.ptx"\ngrid = "1"\nblock = "1"\n[buffers]\nx = "f32[4]:out"\n')
    with pytest.raises(UsageError, match="inside its own"):
        load_manifest(path)


def test_defective_sequence_counterexample_replays(tmp_path, capsys):
    case = EX / "neq_blocksum_reduce_one_short" / "manifest.toml"
    cex = tmp_path / "cex.json"
    code = run(["check", str(case), "-q", "--json", "--save-counterexample", str(cex)])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["verdict"] == "not-equivalent"
    c = data["counterexample"]
    # the dropped partial is block 7's: 128 inputs at their default 1 each
    from fractions import Fraction
    assert Fraction(c["ref_value"]) - Fraction(c["opt_value"]) == sum(
        Fraction(v) for k, v in json.loads(cex.read_text())["inputs"]["x"].items() if int(k) >= 896)
    code = run(["check", str(case), "-q", "--json", "--replay", str(cex)])
    assert code == 1 and json.loads(capsys.readouterr().out)["differ"] is True


def test_races_data_dependent_sequence_runs_on_concrete_inputs(tmp_path):
    """A launch that leaves the structured class (a gather) sends the whole sequence to concrete trials; the
    second launch reads what the first gathered (out is its input table here)."""
    gather = EX / "embedding_gather" / "kernel.sm80.ptx"
    path = tmp_path / "m.toml"
    path.write_text(f'''description = "gather twice"
[[kernel.launch]]
ptx = "{gather}"
name = "embedding_gather"
grid = "2"
block = "32x8"
args = ["idx", "table", "mid", "16", "50"]
[[kernel.launch]]
ptx = "{gather}"
name = "embedding_gather"
grid = "2"
block = "32x8"
args = ["idx", "mid", "out", "16", "16"]
[buffers]
idx = "s32[16]:in"
table = "f32[1600]:in"
mid = "f32[1600]:temp"
out = "f32[512]:out"
''')
    r = volta.races(str(path), inputs="zeros,random:1")
    # mid holds 16 gathered rows of 32; the second gather reads rows idx clamped to 16: all written ones
    assert r.verdict == "clean-for-inputs", r.report()
    assert r.kernels[0].thread_instructions > 0 and len(r.kernels[0].inputs) == 2

    # the second gather clamped to 50 rows reads rows of mid no launch wrote: an uninitialized read
    path.write_text(path.read_text().replace('args = ["idx", "mid", "out", "16", "16"]',
                                             'args = ["idx", "mid", "out", "16", "50"]'))
    r = volta.races(str(path), inputs="random:1")
    assert r.verdict == "findings" and "uninitialized-read" in {f.kind for f in r.kernels[0].findings}, r.report()


@pytest.mark.parametrize("argv", [["--fp", "ieee"], ["--fp", "ieee", "--prove"]])
def test_bit_modes_refuse_sequences(capsys, argv):
    # the bit modes run one launch per side: on a sequence they would compare the first launch's outputs
    code = run(["check", str(BLOCKSUM / "manifest.toml"), "-q"] + argv)
    out, err = capsys.readouterr()
    assert code == 2 and "does not run launch sequences" in err and "Traceback" not in err, err


def test_run_refuses_launch_options_on_a_sequence(capsys):
    code = run(["run", str(BLOCKSUM / "manifest.toml"), "--kernel", "opt", "--grid", "4", "-q"])
    out, err = capsys.readouterr()
    assert code == 2 and "[[opt.launch]]" in err, err


def test_repointing_the_first_launch_at_another_file_moves_the_whole_side():
    """The mutation harnesses replace launches["opt"].ptx with a mutant: every launch of that file follows
    (here the defective pipeline re-pointed at the correct PTX becomes EQUIVALENT)."""
    import dataclasses

    from volta.equiv.check import check
    from volta.launch.spec import sequence

    spec = load_manifest(EX / "neq_blocksum_reduce_one_short" / "manifest.toml")
    fixed = BLOCKSUM / "opt.sm80.ptx"
    moved = dataclasses.replace(spec, launches={**spec.launches,
                                                "opt": dataclasses.replace(spec.launches["opt"], ptx=fixed)})
    assert [x.ptx for x in sequence(moved, "opt")] == [fixed, fixed]
    assert check(spec).verdict == "not-equivalent" and check(moved).verdict == "equivalent"
    other = dataclasses.replace(spec, launches={**spec.launches,
                                                "opt": dataclasses.replace(spec.launches["opt"], kernel="x")})
    with pytest.raises(UsageError, match="launch sequence"):
        sequence(other, "opt")
