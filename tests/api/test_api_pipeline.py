"""Multi-kernel pipelines in the Python API: `volta.Pipeline` (or a list of (kernel, Launch) pairs) for
`volta.check` and `volta.races`, with the semantics of the CLI's repeatable --ref-launch/--opt-launch:
launches in order on shared buffers, a `temp` intermediate, one verdict for the sequence."""
from __future__ import annotations

import json
import shlex
from fractions import Fraction
from pathlib import Path

import pytest

import volta
from volta.cli import run as cli

EX = Path(__file__).resolve().parents[2] / "examples"
X = volta.Buffer("x", "f32", 1024, "in")
OUT = volta.Buffer("out", "f32", 1, "out")
PARTIAL = volta.Buffer("partial", "f32", 8, "temp")


def _sides(name, final="final_reduce"):
    d = EX / name
    ref = [(d / "ref.sm80.ptx", volta.Launch(2, 32, [X, OUT, 1024], kernel="sum_sequential"))]
    opt = volta.Pipeline([(d / "opt.sm80.ptx", volta.Launch(8, 128, [X, PARTIAL, 1024], kernel="block_sums")),
                          (d / "opt.sm80.ptx", volta.Launch(2, 32, [PARTIAL, OUT, 8], kernel=final))])
    return ref, opt


def _cli_args(name):
    d = EX / name
    return ["check", "--ref-launch", f"{d / 'ref.sm80.ptx'}:sum_sequential grid=2 block=32 args=x,out,1024",
            "--opt-launch", f"{d / 'opt.sm80.ptx'}:block_sums grid=8 block=128 args=x,partial,1024",
            "--opt-launch", f"{d / 'opt.sm80.ptx'}:final_reduce grid=2 block=32 args=partial,out,8",
            "--buffer", "x=f32[1024]:in", "--buffer", "out=f32[1]:out", "--buffer", "partial=f32[8]:temp", "-q"]


def test_equivalent_pipeline_matches_the_cli(capsys):
    r = volta.check(*_sides("eq_blocksum_two_kernels"))
    assert (r.verdict, r.exit_code, r.counterexample) == ("equivalent", 0, None)
    assert r.raw.kernels == {"ref": "sum_sequential", "opt": "block_sums → final_reduce"}
    assert cli(_cli_args("eq_blocksum_two_kernels")) == 0
    assert capsys.readouterr().out.splitlines()[0] == r.report().splitlines()[0]


@pytest.mark.slow
def test_not_equivalent_pipeline_counterexample_and_replay(tmp_path, capsys):
    saved = tmp_path / "cex.json"
    r = volta.check(*_sides("neq_blocksum_reduce_one_short"), save_counterexample=saved)
    assert (r.verdict, r.exit_code) == ("not-equivalent", 1)
    c = r.counterexample
    x = c.inputs["x"]
    # final_reduce drops the last block's partial: the difference is exactly the sum of x[896:1024]
    assert (c.buffer, c.index) == ("out", 0)
    assert c.ref_value - c.opt_value == sum((x[i] for i in range(896, 1024)), Fraction(0)) != 0
    assert "block_sums → final_reduce" in r.report()
    assert json.loads(r.report("json"))["verdict"] == "not-equivalent"
    # the replay command the report prints is a CLI pipeline command that reproduces the difference
    replay = shlex.split(r.report().split("replay: ", 1)[1].splitlines()[0])
    assert replay[:2] == ["volta", "check"] and replay.count("--opt-launch") == 2
    capsys.readouterr()
    assert cli(replay[1:] + ["-q"]) == 1
    assert capsys.readouterr().out.startswith("DIFFER: out[0]")
    assert cli(_cli_args("neq_blocksum_reduce_one_short")) == 1
    assert capsys.readouterr().out.splitlines()[0] == r.report().splitlines()[0]


@pytest.mark.slow
def test_a_list_of_pairs_is_a_pipeline_and_buffers_can_be_declared_apart():
    ref, opt = _sides("neq_blocksum_reduce_one_short")
    # the temp buffer named by a string in the args and declared once in buffers=
    d = EX / "neq_blocksum_reduce_one_short"
    listed = [(d / "opt.sm80.ptx", volta.Launch(8, 128, [X, "partial", 1024], kernel="block_sums")),
              (d / "opt.sm80.ptx", volta.Launch(2, 32, ["partial", OUT, 8], kernel="final_reduce"))]
    a = volta.check(ref, opt)
    b = volta.check(ref, listed, buffers=[PARTIAL])
    assert a.verdict == b.verdict == "not-equivalent"
    assert a.counterexample.ref_value == b.counterexample.ref_value
    assert a.counterexample.opt_value == b.counterexample.opt_value


def test_missing_kernel_name_is_a_usage_error_naming_the_kernels():
    ref, opt = _sides("eq_blocksum_two_kernels", final="final_reduc")
    with pytest.raises(volta.UsageError, match=r"no kernel named `final_reduc`.*final_reduce"):
        volta.check(ref, opt)
    with pytest.raises(volta.UsageError, match=r"no kernel named `final_reduc`"):
        volta.races(opt)


@pytest.mark.parametrize("make,message", [
    (lambda ref, opt: volta.check(EX / "eq_blocksum_two_kernels" / "ref.sm80.ptx", opt), "give ref as one too"),
    (lambda ref, opt: volta.check(ref, opt, volta.Launch(1, 1)), "drop the launch"),
    (lambda ref, opt: volta.check(ref, opt), "partial.*declared twice"),
    (lambda ref, opt: volta.Pipeline([]), "non-empty list"),
    (lambda ref, opt: volta.Pipeline([("k.ptx", 3)]), r"launch 1: expected a \(kernel, volta.Launch\) pair"),
    (lambda ref, opt: volta.check(ref, [(EX / "no-such.ptx", volta.Launch(1, 1, [X]))]), "no such file"),
    (lambda ref, opt: volta.races(opt, volta.Launch(1, 1)), "drop the launch"),
    (lambda ref, opt: volta.check(str(EX / "eq_blocksum_two_kernels" / "manifest.toml"), buffers=[X]),
     "drop buffers="),
])
def test_bad_pipelines_are_usage_errors(make, message):
    ref, opt = _sides("eq_blocksum_two_kernels")
    if "declared twice" in message:
        opt = volta.Pipeline(list(opt.launches[:1]) + [
            (EX / "eq_blocksum_two_kernels" / "opt.sm80.ptx",
             volta.Launch(2, 32, [volta.Buffer("partial", "f32", 16, "temp"), OUT, 8], kernel="final_reduce"))])
    with pytest.raises(volta.UsageError, match=message):
        make(ref, opt)


def test_races_on_a_pipeline_matches_the_manifest():
    _, opt = _sides("eq_blocksum_two_kernels")
    r = volta.races(opt)
    m = volta.races(str(EX / "eq_blocksum_two_kernels" / "manifest.toml"), role="opt")
    assert (r.verdict, r.exit_code) == (m.verdict, m.exit_code) == ("clean", 0)
    assert r.kernels[0].kernel == m.kernels[0].kernel == "block_sums → final_reduce"


def test_races_on_a_pipeline_finds_an_uninitialized_temp_read():
    # the reduce launched first reads the temp buffer before any launch wrote it
    _, opt = _sides("eq_blocksum_two_kernels")
    swapped = volta.Pipeline([opt.launches[1], opt.launches[0]])
    r = volta.races(swapped)
    assert (r.verdict, r.exit_code) == ("findings", 1)
    assert any(f.kind == "uninitialized-read" for f in r.findings), [f.kind for f in r.findings]
