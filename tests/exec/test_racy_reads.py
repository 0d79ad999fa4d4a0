"""Racing reads whose values never reach an output (volta/exec/races/racy_reads.py): a benign-read-race only when the
second run gave the racing load fresh leaves and none of them landed in a global buffer.

tests/exec/data/racy_reads: `replica` (two blocks hold the same elements, only block 0 stores; with `leak`
block 1 also stores what it loaded), `two_writes` (a read racing the first of two writes by one thread, ordered
before the second). examples/bug_gemm_tiled_nosync: a shared-memory race, whose loads the second run does not
replace, stays a RACE.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.cli import run
from volta.equiv.check import execute
from volta.exec import findings as F
from volta.exec.races import racy_reads
from volta.launch.spec import load_manifest
from volta.session.races import CLEAN, FINDINGS, RacesOptions, analyze

DATA = Path(__file__).resolve().parent / "data" / "racy_reads"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _races(capsys, ptx, grid, block, args, *buffers, extra=()):
    argv = ["races", str(DATA / ptx), "--grid", grid, "--block", block, "--args", args, "-q", *extra]
    for b in buffers:
        argv += ["--buffer", b]
    code = run(argv)
    return code, capsys.readouterr().out


def test_a_masked_replicas_racing_load_is_a_benign_read_race(capsys):
    code, out = _races(capsys, "replica.ptx", "2", "32", "x,out,0", "x=f32[32]:inout", "out=f32[32]:out")
    assert code == 1 and out.splitlines()[1].startswith("BENIGN-READ-RACE: benign read race on `x`")
    assert "never reaches an output" in out and "RACE: read-write" not in out
    code, out = _races(capsys, "replica.ptx", "2", "32", "x,out,0", "x=f32[32]:inout", "out=f32[32]:out",
                       extra=["--allow-benign-races"])
    assert code == 0


def test_a_racing_value_stored_elsewhere_stays_a_race(capsys):
    code, out = _races(capsys, "replica.ptx", "2", "32", "x,out,1", "x=f32[32]:inout", "out=f32[32]:out")
    assert code == 1 and out.splitlines()[1].startswith("RACE: read-write race on `x`")
    assert "benign read race on `x`" not in out   # (the replicas' equal stores to out are a benign-race)


def test_a_read_racing_an_earlier_write_of_the_last_writer_stays_a_race(capsys):
    # the final shadow shows thread 0's write after the barrier only; the read raced the one before it
    code, out = _races(capsys, "two_writes.ptx", "1", "64", "x,out", "x=f32[1]:inout", "out=f32[1]:out")
    assert code == 1 and out.splitlines()[1].startswith("RACE: write-read race on `x`")
    assert "BENIGN" not in out


def test_a_shared_memory_race_is_never_settled_as_unused():
    report = analyze(load_manifest(str(EXAMPLES / "bug_gemm_tiled_nosync" / "manifest.toml")))
    assert report.verdict == FINDINGS and report.findings
    assert all(f.kind == F.RACE for f in report.findings)
    assert analyze(load_manifest(str(EXAMPLES / "bug_gemm_tiled_nosync" / "manifest.toml")),
                   options=RacesOptions(allow_benign_races=True)).verdict == FINDINGS


@pytest.mark.parametrize("leak, kind", [(0, F.BENIGN_READ), (1, F.RACE)])
def test_the_kind_in_the_report(tmp_path, leak, kind):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(f'[kernel]\nptx = "{DATA / "replica.ptx"}"\ngrid = 2\nblock = 32\nargs = ["x", "out", {leak}]\n'
                        '[buffers]\nx = "f32[32]:inout"\nout = "f32[32]:out"\n')
    report = analyze(load_manifest(str(manifest)), "kernel")
    assert [f.kind for f in report.findings if f.buffer == "x"] == [kind]
    assert analyze(load_manifest(str(manifest)), "kernel", options=RacesOptions(allow_benign_races=True)).verdict == (
        CLEAN if kind == F.BENIGN_READ else FINDINGS)


def test_races_on_shared_memory_only_need_no_second_run():
    """The second run gives fresh leaves to loads of global buffers only, so a kernel whose read races are all
    on shared memory is never run again (the Volta paper's Conv2D opt: a whole second execution, per lane, to
    keep its RACE)."""
    spec = load_manifest(str(EXAMPLES / "neq_conv2d_wmma_nosyncwarp" / "manifest.toml"))
    m = execute(spec, "opt")
    found = racy_reads.reads(m.findings)
    assert found and all(f.buffer.endswith("Cs") for f in found)

    def rerun(racing):
        raise AssertionError("a second run for races on shared memory")
    assert racy_reads.settle(m, m.findings, rerun) == m.findings
