"""Ordering races (volta/exec/races/shadow.py, ordering.py): morally strong accesses that nothing orders, after the PTX
memory model; benign read races; the kinds kept apart in text, JSON and SARIF (docs/races.md)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from volta.cli import run as main
from volta.launch.spec import from_options, load_manifest
from volta.session.races import CLEAN, CLEAN_FOR_INPUTS, FINDINGS, RacesOptions, analyze

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# A volatile store by thread 0 of every block: the block index (different values) or 7 (equal values).
STORES = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry volatile_stores(.param .u64 p, .param .u32 same)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<3>;
  .reg .pred %q<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [same];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r4, %tid.x;
  setp.ne.u32 %q1, %r4, 0;
  @%q1 bra DONE;
  setp.ne.u32 %q2, %r1, 0;
  selp.u32 %r3, 7, %r2, %q2;
  st.volatile.global.u32 [%rd2], %r3;
DONE:
  ret;
}
"""


def _spec(case):
    return load_manifest(EXAMPLES / case / "manifest.toml")


def _ordering(report):
    return [f for f in report.findings if f.kind == "ordering-race"]


def test_message_passing_without_a_fence():
    report = analyze(_spec("bug_mp_volatile_grid_nofence"))
    assert report.verdict == FINDINGS
    (f,) = report.findings                   # the payload only: the flag's polling read is what the loop is for
    assert f.kind == "ordering-race" and f.buffer == "data"
    assert [str(t) for t in f.threads] == ["block (0, 0, 0) thread (0, 0, 0)", "block (1, 0, 0) thread (0, 0, 0)"]
    assert ("thread (0, 0, 0) of block (1, 0, 0) reads `data[0]` at kernel.cu:13 concurrently with the write at "
            "kernel.cu:7 by thread (0, 0, 0) of block (0, 0, 0); the accesses are volatile, so not undefined "
            "behaviour, but no fence or barrier orders them: the value read depends on the schedule") in f.message


@pytest.mark.parametrize("case, verdict", [("mp_volatile_grid_fenced", CLEAN_FOR_INPUTS),
                                           ("mp_release_acquire_grid", CLEAN_FOR_INPUTS),
                                           ("mp_volatile_block_fenced", CLEAN),
                                           ("flag_between_warps", CLEAN), ("flag_handshake_fenced", CLEAN_FOR_INPUTS)])
def test_fenced_message_passing_stays_clean(case, verdict):
    report = analyze(_spec(case))
    assert report.verdict == verdict and not report.findings


def test_a_block_scope_fence_between_blocks_is_named():
    (f,) = _ordering(analyze(_spec("bug_mp_volatile_grid_block_fence")))
    assert "the fence between them orders only within a block" in f.message


def test_warp_synchronous_volatile_code_needs_syncwarp():
    found = _ordering(analyze(_spec("bug_reduce_warp_nosyncwarp")))
    assert found and all("no __syncwarp()" in f.message for f in found)
    assert all(f.threads[0].block == f.threads[1].block for f in found)
    assert analyze(_spec("bug_reduce_warp_nosyncwarp"), options=RacesOptions(lockstep_warps=True)).verdict == CLEAN


def test_volatile_read_modify_write_sequences_interleave():
    found = _ordering(analyze(_spec("bug_counter_volatile_rmw")))
    assert any("writes `count[0]` at kernel.cu:10 concurrently with the read at kernel.cu:9" in f.message
               for f in found)


def test_allow_ordering_races_lists_them_without_counting():
    report = analyze(_spec("bug_mp_volatile_block_nofence"), options=RacesOptions(allow_ordering_races=True))
    assert report.verdict == CLEAN and report.exit_code == 0 and _ordering(report)
    report = analyze(_spec("bug_mp_volatile_grid_nofence"), options=RacesOptions(allow_ordering_races=True))
    assert report.verdict == CLEAN_FOR_INPUTS and _ordering(report)


@pytest.mark.parametrize("same, expect", [(0, 1), (1, 0)])
def test_strong_writes_of_different_values_race_equal_ones_do_not(tmp_path, same, expect):
    ptx = tmp_path / "stores.ptx"
    ptx.write_text(STORES)
    report = analyze(from_options(str(ptx), "volatile_stores", "3", "32", f"p,{same}", ["p=u32[1]:out"]))
    assert len(_ordering(report)) == expect and report.verdict == (FINDINGS if expect else CLEAN)
    if expect:
        assert "a different value" in _ordering(report)[0].message
        assert "the value that remains depends on the schedule" in _ordering(report)[0].message


def test_a_scoped_release_acquire_pair_between_blocks_is_a_data_race():
    report = analyze(_spec("bug_mp_release_acquire_cta_scope"))
    assert any(f.kind == "race" and f.buffer == "flag" for f in report.findings)


def test_benign_read_race():
    report = analyze(_spec("bug_benign_read_same_value"))
    kinds = {f.kind for f in report.findings}
    assert kinds == {"benign-race", "benign-read-race"} and report.verdict == FINDINGS
    allowed = RacesOptions(allow_benign_races=True)
    assert analyze(_spec("bug_benign_read_same_value"), options=allowed).verdict == CLEAN


def test_kinds_apart_in_json_and_sarif(capsys):
    case = str(EXAMPLES / "bug_benign_read_same_value" / "manifest.toml")
    assert main(["races", case, "-q", "--json"]) == 1
    kinds = {f["kind"] for f in json.loads(capsys.readouterr().out)["kernels"][0]["findings"]}
    assert kinds == {"benign-race", "benign-read-race"}
    assert main(["races", str(EXAMPLES / "bug_mp_volatile_block_nofence" / "manifest.toml"), "-q", "--sarif"]) == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    rules = {r["id"]: r["fullDescription"]["text"] for r in run["tool"]["driver"]["rules"]}
    assert "morally strong" in rules["ordering-race"] and "not undefined" not in rules["ordering-race"]
    assert {r["ruleId"] for r in run["results"]} == {"ordering-race"}
