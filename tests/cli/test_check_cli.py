"""`volta check` end to end: the option form, replays, formats, usage errors.

Every eq_/neq_ pair manifest goes through `volta check` in tests/equiv/test_lanepoly_path.py::test_example_pair
(its expected verdict from the manifest's `[expect] check`; a NOT EQUIVALENT with a saved counterexample whose
`--replay` re-executes both kernels and reproduces two different values), whose run is also the fast side of the
comparison with the per-lane path there: one execution of each pair for both.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from volta.cli import run

EX = Path(__file__).resolve().parents[2] / "examples"

SAXPY = EX / "neq_saxpy_last_sign"
SAXPY_OPTIONS = ["--grid", "4", "--block", "128", "--args", "alpha,x,y,out,512", "--buffer", "x=f32[512]:in",
                 "--buffer", "y=f32[512]:in", "--buffer", "out=f32[512]:out", "--symbol", "alpha=f32"]
VADD = EX / "vector_add" / "kernel.sm80.ptx"
VADD_BUG = EX / "bug_vector_add_offbyone" / "kernel.sm80.ptx"
VADD_OPTIONS = ["--grid", "4", "--block", "128", "--args", "x,y,out,500", "--buffer", "x=f32[500]:in",
                "--buffer", "y=f32[500]:in", "--buffer", "out=f32[500]:out"]


def _json(capsys, argv):
    code = run(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err   # (tests/cli/test_no_traceback.py)
    return code, json.loads(out)


def _usage_error(capsys, argv, needle):
    code = run(argv)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == ""
    assert "Traceback" not in err
    message = err.strip()
    assert "\n\n" not in message and message.count("\n") <= 1, message  # one paragraph
    assert needle in message, message
    return message


# ---- the option form, text report, replay command line ----------------------------------------------

def test_option_form_text_and_replay(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["check", str(SAXPY / "ref.sm80.ptx"), str(SAXPY / "opt.sm80.ptx"), "--ref-kernel", "saxpy",
            "--opt-kernel", "saxpy_neg_last", *SAXPY_OPTIONS]
    code = run(argv)
    out, err = capsys.readouterr()
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "NOT EQUIVALENT: out[511] differs: ref = 2, opt = 0; relative difference 1"
    assert "inputs (2 elements out[511] depends on; every other input element is 1):" in out
    assert "x[511] = 1  y[511] = 1" in out and "symbols: alpha = 1" in out
    assert "last written by block (3, 0, 0) thread (127, 0, 0)" in out
    # nothing is written unasked; the output says how to save it
    assert list(tmp_path.iterdir()) == [] and "saved to" not in out and "replay: " not in out
    assert "add --save-counterexample FILE" in out
    code = run(argv + ["--save-counterexample", "cex.json"])
    out, err = capsys.readouterr()
    assert code == 1 and (tmp_path / "cex.json").exists() and not (tmp_path / "counterexample.json").exists()
    assert "counterexample saved to cex.json" in out
    lines = out.splitlines()
    replay_line = next(line for line in lines if line.strip().startswith("replay: "))
    assert "--ref-kernel saxpy --opt-kernel saxpy_neg_last" in replay_line
    assert replay_line.endswith("--replay cex.json")
    assert "volta check:" in err  # progress on stderr
    # the printed command line replays (shlex-split, minus the leading `volta`)
    import shlex
    replay_argv = shlex.split(replay_line.split("replay: ", 1)[1])[1:]
    code = run(replay_argv + ["-q"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert out.strip() == "DIFFER: out[511] replayed from cex.json: ref = 2, opt = 0"


def test_option_form_equivalent_with_shared_options(capsys):
    ptx = str(EX / "eq_reduce_seq_tree" / "ref.sm80.ptx")
    opt = str(EX / "eq_reduce_seq_tree" / "opt.sm80.ptx")
    code = run(["check", ptx, opt, "--grid", "4", "--ref-block", "32", "--opt-block", "256", "--args",
                "x,partial,1000", "--buffer", "x=s32[1024]:in", "--buffer", "partial=s32[4]:out", "-q"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.startswith("EQUIVALENT: reduce_seq_s32 vs reduce_tree_s32")
    # each block's sum by its normal forms or as a proved block's over other inputs (which, depends on the order
    # the elements meet the screen in: symbolic/renaming.py); every one proved
    assert "4 output elements compared: " in out and "undecided" not in out


def test_sarif_and_junit(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = run(["check", str(SAXPY / "manifest.toml"), "-q", "--sarif", "--junit", "out.xml"])
    out, _ = capsys.readouterr()
    assert code == 1
    doc = json.loads(out)
    assert doc["version"] == "2.1.0"
    result = doc["runs"][0]["results"][0]
    assert result["ruleId"] == "not-equivalent" and result["level"] == "error"
    primary = result["locations"][0]["physicalLocation"]  # the CUDA line of opt's store; its PTX is related
    assert primary["artifactLocation"]["uri"].endswith("opt.cu") and primary["region"]["startLine"] == 8
    related = [r["physicalLocation"] for r in result["relatedLocations"]]
    assert related[0]["artifactLocation"]["uri"].endswith("opt.sm80.ptx") and related[0]["region"]["startLine"] == 70
    assert any(r["artifactLocation"]["uri"].endswith("ref.cu") for r in related)
    assert doc["runs"][0]["invocations"][0]["exitCode"] == 1
    suite = ET.parse(tmp_path / "out.xml").getroot().find("testsuite")
    case = suite.find("testcase")
    assert case.get("name") == "saxpy == saxpy_neg_last"
    assert case.find("failure").get("type") == "not-equivalent"


def test_findings_before_comparison(capsys):
    """An out-of-bounds kernel has no single output: the finding is the answer (exit 1)."""
    code = run(["check", str(VADD), str(VADD_BUG), *VADD_OPTIONS, "-q"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert out.startswith("OUT OF BOUNDS: vector_add vs vector_add_offbyone")
    assert "verdict: CLEAN" in out and "verdict: OUT OF BOUNDS" in out
    code, data = _json(capsys, ["check", str(VADD), str(VADD_BUG), *VADD_OPTIONS, "-q", "--json"])
    assert code == 1 and data["verdict"] == "findings"
    assert data["findings"]["ref"] == [] and data["findings"]["opt"][0]["kind"] == "out-of-bounds"


def test_unsupported_names_the_instruction(capsys):
    # an index from float data: no assignment of integer inputs fixes it (an int index is decided per
    # assignment instead: tests/equiv/test_fixed_inputs.py)
    gather = Path(__file__).parent / "data" / "float_index.ptx"
    argv = ["check", str(gather), str(gather), "--grid", "2", "--block", "32", "--args", "x,table,out,64",
            "--buffer", "x=f32[64]:in", "--buffer", "table=f32[64]:in", "--buffer", "out=f32[64]:out", "-q"]
    code = run(argv)
    out, _ = capsys.readouterr()
    assert code == 3
    assert out.startswith("UNSUPPORTED:")
    assert "float_index.ptx:" in out and "nothing is claimed" in out


def test_emit_smt_only_for_elements_not_identical(capsys, tmp_path):
    smt = tmp_path / "smt"
    code = run(["check", str(SAXPY / "manifest.toml"), "-q", "--emit-smt", str(smt),
                "--save-counterexample", str(tmp_path / "cex.json")])
    capsys.readouterr()
    assert code == 1
    assert [p.name for p in smt.glob("*.smt2")] == ["out_511.smt2"]  # 511 identical elements need none


# ---- usage errors: one paragraph, exit 2 -------------------------------------------------------------

def test_usage_one_ptx_file(capsys):
    _usage_error(capsys, ["check", str(SAXPY / "ref.sm80.ptx"), *SAXPY_OPTIONS], "two PTX files")


def test_usage_missing_role(capsys):
    argv = ["check", str(SAXPY / "ref.sm80.ptx"), str(SAXPY / "opt.sm80.ptx"), *SAXPY_OPTIONS]
    argv[argv.index("x=f32[512]:in")] = "x=f32[512]"
    _usage_error(capsys, argv, "needs a role")


def test_usage_bad_symbol(capsys):
    argv = ["check", str(SAXPY / "ref.sm80.ptx"), str(SAXPY / "opt.sm80.ptx"), *SAXPY_OPTIONS]
    argv[argv.index("alpha=f32")] = "alpha=int"
    _usage_error(capsys, argv, "bad --symbol `alpha=int`")


def test_usage_manifest_with_launch_options(capsys):
    _usage_error(capsys, ["check", str(SAXPY / "manifest.toml"), "--grid", "3"], "drop --grid")


def test_usage_single_kernel_manifest(capsys):
    _usage_error(capsys, ["check", str(EX / "vector_add" / "manifest.toml")], "[ref] and [opt]")


def test_usage_missing_grid_for_one_role(capsys):
    argv = ["check", str(VADD), str(VADD), "--ref-grid", "4", "--block", "128", "--args", "x,y,out,500",
            *VADD_OPTIONS[6:]]
    _usage_error(capsys, argv, "no grid for the opt kernel")


def test_usage_replay_file_of_another_pair(capsys, tmp_path):
    cex = tmp_path / "cex.json"
    assert run(["check", str(SAXPY / "manifest.toml"), "-q", "--save-counterexample", str(cex)]) == 1
    capsys.readouterr()
    other = EX / "eq_gemm_naive_tiled" / "manifest.toml"
    _usage_error(capsys, ["check", str(other), "--replay", str(cex)], "saved for another pair")


def test_usage_unreadable_replay_file(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    _usage_error(capsys, ["check", str(SAXPY / "manifest.toml"), "--replay", str(bad)], "cannot read")


# ---- launch sequences on the command line (--ref-launch / --opt-launch) ---------------------------------

BLOCKSUM = EX / "eq_blocksum_two_kernels"


def _blocksum_argv(nblocks=8):
    return ["check", "--ref-launch", f"{BLOCKSUM}/ref.sm80.ptx:sum_sequential grid=2 block=32 args=x,out,1024",
            "--opt-launch", f"{BLOCKSUM}/opt.sm80.ptx:block_sums grid=8 block=128 args=x,partial,1024",
            "--opt-launch", f"{BLOCKSUM}/opt.sm80.ptx:final_reduce grid=2 block=32 args=partial,out,{nblocks}",
            "--buffer", "x=f32[1024]:in", "--buffer", "out=f32[1]:out", "--buffer", "partial=f32[8]:temp", "-q"]


def test_launch_options_sequence_equivalent(capsys):
    code, data = _json(capsys, _blocksum_argv() + ["--json"])
    assert code == 0 and data["verdict"] == "equivalent"


def test_launch_options_sequence_counterexample_replays(capsys, tmp_path):
    cex = tmp_path / "c.json"
    code, data = _json(capsys, _blocksum_argv(7) + ["--json", "--save-counterexample", str(cex)])
    assert code == 1 and data["verdict"] == "not-equivalent"
    assert "--opt-launch" in data["counterexample"]["replay_command"]
    code, replay = _json(capsys, _blocksum_argv(7) + ["--json", "--replay", str(cex)])
    assert code == 1 and replay["differ"] is True


def test_usage_bad_launch_spec(capsys):
    argv = _blocksum_argv()
    argv[2] = argv[2].replace("grid=2", "grd=2")
    _usage_error(capsys, argv, "did you mean `grid`")


def test_usage_launch_spec_with_positional_files(capsys):
    _usage_error(capsys, _blocksum_argv() + ["--grid", "4"], "drop --grid")
