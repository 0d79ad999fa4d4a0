"""`volta races` beyond the structured class: concrete inputs, spin-waits, scopes, fences, benign races."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from volta.cli import run as main
from volta.errors import UsageError
from volta.launch.spec import from_options, load_manifest
from volta.session.races import CLEAN, CLEAN_FOR_INPUTS, FINDINGS, RacesOptions, analyze, trial_modes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _spec(case):
    return load_manifest(EXAMPLES / case / "manifest.toml")


def _cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---- input modes ---------------------------------------------------------------------------------

def test_trial_modes():
    assert trial_modes(None, None) == ["random:0", "zeros", "equal", "colliding"]
    assert trial_modes(None, 2) == ["random:0", "zeros"]
    assert trial_modes(None, 6) == ["random:0", "zeros", "equal", "colliding", "random:1", "random:2"]
    assert trial_modes("random:5", 3) == ["random:5", "random:6", "random:7"]
    assert trial_modes("zeros,colliding", None) == ["zeros", "colliding"]
    for bad, trials in (("bogus", None), ("random:x", None), ("zeros,equal", 3), ("", None), (None, 0)):
        with pytest.raises(UsageError):
            trial_modes(bad, trials)


@pytest.mark.parametrize("argv, needle", [
    (["--inputs", "bogus"], "bad --inputs `bogus`"),
    (["--trials", "0"], "--trials 0"),
    (["--structured-only", "--inputs", "zeros"], "--structured-only never runs"),
    (["--inputs", "missing.npz"], "no such inputs file"),
])
def test_bad_concrete_options_exit_2(capsys, argv, needle):
    code, out, err = _cli(["races", str(EXAMPLES / "embedding_gather" / "manifest.toml"), "-q", *argv], capsys)
    assert code == 2 and out == "" and "Traceback" not in err and needle in err
    assert "\n\n" not in err.strip()


# ---- concrete mode ---------------------------------------------------------------------------------

def test_data_dependent_kernel_runs_on_concrete_inputs(capsys):
    report = analyze(_spec("embedding_gather"))
    assert report.verdict == CLEAN_FOR_INPUTS and report.exit_code == 3
    assert len(report.inputs) == 4 and "zeros" in report.inputs[1] and "colliding" in report.inputs[3]
    assert report.data_dependence is not None and "depends on tensor data" in report.data_dependence.message
    code, out, _ = _cli(["races", str(EXAMPLES / "embedding_gather" / "manifest.toml"), "-q"], capsys)
    assert code == 3
    assert "concrete mode: the all-inputs run stopped" in out
    assert out.strip().splitlines()[-1].startswith("verdict: NO FINDING ON THESE INPUTS")
    assert "these inputs only" in out and "CLEAN" not in out.split("verdict:")[-1]
    code, out, _ = _cli(["races", str(EXAMPLES / "embedding_gather" / "manifest.toml"), "-q", "--json"], capsys)
    data = json.loads(out)
    assert data["verdict"] == "clean-for-inputs" and data["exit_code"] == 3
    k = data["kernels"][0]
    assert len(k["inputs"]) == 4 and k["data_dependence"]["line"] == 64 and k["unsupported"] is None


def test_inputs_force_concrete_runs_for_a_structured_kernel():
    report = analyze(_spec("vector_add"), options=RacesOptions(inputs="random:3", trials=2))
    assert report.verdict == CLEAN_FOR_INPUTS and len(report.inputs) == 2 and report.data_dependence is None
    assert "seed 3" in report.inputs[0] and "seed 4" in report.inputs[1]
    assert analyze(_spec("vector_add")).verdict == CLEAN  # without --inputs: the all-inputs answer


def test_findings_say_which_inputs_show_them():
    report = analyze(_spec("bug_scatter_colliding"))
    assert report.verdict == FINDINGS
    races = [f for f in report.findings if f.kind == "race"]
    assert races and all(f.details["inputs"] for f in races)
    assert 3 in races[0].details["inputs"]  # the colliding pattern shows it
    # all-zero inputs: every colliding write stores 0.0, a benign race only
    zeros = analyze(_spec("bug_scatter_colliding"), options=RacesOptions(inputs="zeros"))
    assert {f.kind for f in zeros.findings} == {"benign-race"} and zeros.verdict == FINDINGS
    allowed = analyze(_spec("bug_scatter_colliding"),
                      options=RacesOptions(inputs="zeros", allow_benign_races=True))
    assert allowed.verdict == CLEAN_FOR_INPUTS and allowed.findings


def test_npz_inputs_and_spin_deadlock(tmp_path):
    """A lock that starts held is never released: every block spins, nothing can change it."""
    path = tmp_path / "held.npz"
    np.savez(path, lock=np.array([1], np.int32), counter=np.array([0], np.int32))
    report = analyze(_spec("lock_cas_fenced"), options=RacesOptions(inputs=str(path)))
    assert report.verdict == FINDINGS
    (f,) = report.findings
    assert f.kind == "deadlock" and "spin-wait deadlock" in f.message and f.details["inputs"] == [0]
    assert report.inputs == [f"from {path} (counter, lock)"]
    assert analyze(_spec("lock_cas_fenced")).verdict == CLEAN_FOR_INPUTS


# ---- scopes, fences, spinning -----------------------------------------------------------------------

SCOPED = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd2, [q];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra DONE;
    mov.u32 %r2, %ctaid.x;
    atom.global.SCOPE.exch.b32 %r3, [%rd1], %r2;
    mov.u32 %r4, %envreg3;
    mov.u32 %r5, %reserved_smem_offset_begin;
    add.u32 %r4, %r4, %r5;
    mov.u32 %r5, %warpsz;
    add.u32 %r4, %r4, %r5;
    mov.u32 %r5, %pm0;
    add.u32 %r4, %r4, %r5;
    st.global.u32 [%rd2], %r4;
DONE:
    ret;
}
"""


def _scoped(tmp_path, scope):
    ptx = tmp_path / f"{scope}.ptx"
    ptx.write_text(SCOPED.replace("SCOPE", scope))
    return from_options(ptx, "k", "2", "32", "p,q", ["p=s32[1]:out", "q=s32[1]:out"])


def test_cta_scoped_exch_by_two_blocks_is_a_race(tmp_path):
    report = analyze(_scoped(tmp_path, "cta"))
    races = [f for f in report.findings if f.buffer == "p"]
    assert races and races[0].kind == "race" and ".cta-scoped" in races[0].message
    assert {t.block for t in races[0].threads} == {(0, 0, 0), (1, 0, 0)}
    gpu = analyze(_scoped(tmp_path, "gpu"))
    assert not [f for f in gpu.findings if f.buffer == "p"]  # gpu scope: morally strong, no race
    # every block stores 32 (envreg3, reserved offset and %pm0 are 0, %warpsz is 32) to q[0]: benign race
    assert [f.kind for f in gpu.findings if f.buffer == "q"] == ["benign-race"]
    assert analyze(_scoped(tmp_path, "gpu"), options=RacesOptions(allow_benign_races=True)).verdict == CLEAN


FLAG = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry flag(.param .u64 f, .param .u64 d, .param .u64 o)
{
    .reg .pred %p<4>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [f];
    ld.param.u64 %rd2, [d];
    ld.param.u64 %rd3, [o];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    setp.ne.s32 %p1, %r2, 0;
    @%p1 bra DONE;
    setp.ne.s32 %p2, %r1, 0;
    @%p2 bra CONSUMER;
    st.global.u32 [%rd2], 7;
    RELEASE
    st.volatile.global.u32 [%rd1], 1;
    bra DONE;
CONSUMER:
SPIN:
    ld.volatile.global.u32 %r3, [%rd1];
    setp.eq.s32 %p3, %r3, 0;
    @%p3 bra SPIN;
    ACQUIRE
    ld.global.u32 %r4, [%rd2];
    st.global.u32 [%rd3], %r4;
DONE:
    ret;
}
"""


@pytest.mark.parametrize("release, acquire, race", [
    ("fence.sc.gpu;", "fence.sc.gpu;", False),
    ("fence.acq_rel.gpu;", "fence.acq_rel.gpu;", False),
    ("membar.gl;", "membar.gl;", False),
    ("membar.cta;", "membar.cta;", True),       # .cta fences do not order threads of two blocks
    ("fence.sc.gpu;", "", True),                # no acquire side
    ("", "fence.sc.gpu;", True),                # no release side
])
def test_flag_handshake_fences(tmp_path, release, acquire, race):
    ptx = tmp_path / "flag.ptx"
    ptx.write_text(FLAG.replace("RELEASE", release).replace("ACQUIRE", acquire))
    spec = from_options(ptx, "flag", "2", "32", "f,d,o", ["f=s32[1]:out", "d=s32[1]:out", "o=s32[1]:out"])
    report = analyze(spec, options=RacesOptions(inputs="zeros"))
    kinds = {(f.kind, f.buffer) for f in report.findings}
    assert (("race", "d") in kinds) == race, report.findings
    assert ("race", "f") not in kinds  # volatile flag accesses are strong: no race on the flag itself
    assert not any(f.kind == "deadlock" for f in report.findings)  # block 1 spun while block 0 ran


def test_flag_never_set_is_a_spin_deadlock(tmp_path):
    ptx = tmp_path / "never.ptx"
    text = FLAG.replace("RELEASE", "").replace("ACQUIRE", "").replace("st.volatile.global.u32 [%rd1], 1;", "")
    ptx.write_text(text)
    spec = from_options(ptx, "flag", "2", "32", "f,d,o", ["f=s32[1]:out", "d=s32[1]:out", "o=s32[1]:out"])
    report = analyze(spec, options=RacesOptions(inputs="zeros"))
    dead = [f for f in report.findings if f.kind == "deadlock"]
    assert dead and "spin-wait deadlock" in dead[0].message and dead[0].threads[0].block == (1, 0, 0)


def test_lockstep_warps_option(capsys):
    case = str(EXAMPLES / "bug_reduce_warp_nosyncwarp" / "manifest.toml")
    code, out, _ = _cli(["races", case, "-q"], capsys)
    assert code == 1 and "ORDERING-RACE" in out and "no __syncwarp()" in out
    code, out, _ = _cli(["races", case, "-q", "--allow-ordering-races"], capsys)   # listed, not counted
    assert code == 0 and "ORDERING-RACE" in out
    code, out, _ = _cli(["races", case, "-q", "--lockstep-warps"], capsys)
    assert code == 0 and out.strip().splitlines()[-1].startswith("verdict: CLEAN")
    # lock step does not hide races between warps or blocks
    code, _, _ = _cli(["races", str(EXAMPLES / "bug_reduce_tree_nosync" / "manifest.toml"), "-q", "--lockstep-warps"],
                      capsys)
    assert code == 1


def test_allow_benign_races_exit_code(capsys):
    case = str(EXAMPLES / "bug_benign_same_value" / "manifest.toml")
    code, out, _ = _cli(["races", case, "-q"], capsys)
    assert code == 1 and "BENIGN RACE" in out and "every write stores the same value" in out
    code, out, _ = _cli(["races", case, "-q", "--allow-benign-races"], capsys)
    assert code == 0 and "only findings the options allow: 1 benign-race" in out
    # a race whose writes differ stays a race with the option
    code, _, _ = _cli(["races", str(EXAMPLES / "bug_global_race_accum" / "manifest.toml"), "-q",
                       "--allow-benign-races"], capsys)
    assert code == 1


def test_python_api_options():
    import volta

    r = volta.races(str(EXAMPLES / "embedding_gather" / "manifest.toml"))
    assert r.verdict == "clean-for-inputs" and r.exit_code == 3
    r = volta.races(str(EXAMPLES / "embedding_gather" / "manifest.toml"), structured_only=True)
    assert r.verdict == "unsupported" and r.exit_code == 3
    r = volta.races(str(EXAMPLES / "bug_benign_same_value" / "manifest.toml"), allow_benign_races=True)
    assert r.verdict == "clean" and r.exit_code == 0 and r.findings[0].kind == "benign-race"
    with pytest.raises(volta.UsageError):
        volta.races(str(EXAMPLES / "embedding_gather" / "manifest.toml"), inputs="nope")


CHAIN = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry chain(.param .u64 x, .param .u64 a, .param .u64 b, .param .u64 o)
{
    .reg .pred %p<6>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [a];
    ld.param.u64 %rd3, [b];
    ld.param.u64 %rd4, [o];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    setp.ne.s32 %p1, %r2, 0;
    @%p1 bra DONE;
    setp.eq.s32 %p2, %r1, 0;
    @%p2 bra B0;
    setp.eq.s32 %p3, %r1, 1;
    @%p3 bra B1;
WAITB:
    ld.acquire.gpu.global.u32 %r3, [%rd3];
    setp.eq.s32 %p4, %r3, 0;
    @%p4 bra WAITB;
    ld.global.u32 %r4, [%rd1];
    st.global.u32 [%rd4], %r4;
    bra DONE;
B0:
    st.global.u32 [%rd1], 5;
    st.release.gpu.global.u32 [%rd2], 1;
    bra DONE;
B1:
    FIRST
WAITA:
    ld.acquire.gpu.global.u32 %r5, [%rd2];
    setp.eq.s32 %p5, %r5, 0;
    @%p5 bra WAITA;
    SECOND
    st.relaxed.gpu.global.u32 [%rd3], 1;
DONE:
    ret;
}
"""


@pytest.mark.parametrize("first, second, race", [
    ("", "fence.acq_rel.gpu;", False),   # block 1 acquires from block 0, then releases to block 2: transitive
    ("fence.acq_rel.gpu;", "", True),    # its fence comes before the acquire: what it learnt later is not released
])
def test_release_publishes_what_the_thread_knew_at_the_fence(tmp_path, first, second, race):
    ptx = tmp_path / "chain.ptx"
    ptx.write_text(CHAIN.replace("FIRST", first).replace("SECOND", second))
    spec = from_options(ptx, "chain", "3", "32", "x,a,b,o",
                        ["x=s32[1]:out", "a=s32[1]:out", "b=s32[1]:out", "o=s32[1]:out"])
    report = analyze(spec, options=RacesOptions(inputs="zeros"))
    assert (any(f.kind == "race" and f.buffer == "x" for f in report.findings)) == race, report.findings
    assert not any(f.kind == "deadlock" for f in report.findings)


def test_benign_only_if_every_input_agrees():
    """Zero inputs make the colliding scatter store 0.0 everywhere (benign on that input set); with the other
    input sets the same instructions store different values, so the race is reported, not a benign one."""
    report = analyze(_spec("bug_scatter_colliding"))
    assert "race" in {f.kind for f in report.findings}
    assert "benign-race" not in {f.kind for f in report.findings}


RETRY = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry retry(.param .u64 f, .param .u64 d, .param .u64 o)
{
    .reg .pred %p<4>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [f];
    ld.param.u64 %rd2, [d];
    ld.param.u64 %rd3, [o];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    setp.ne.s32 %p1, %r2, 0;
    @%p1 bra DONE;
    setp.eq.s32 %p2, %r1, 0;
    @%p2 bra PRODUCER;
    mov.u32 %r5, 0;
SPIN:
    add.s32 %r5, %r5, 1;
    ld.volatile.global.u32 %r3, [%rd1];
    setp.eq.s32 %p3, %r3, 0;
    @%p3 bra SPIN;
    fence.sc.gpu;
    ld.global.u32 %r4, [%rd2];
    st.global.u32 [%rd3], %r4;
    bra DONE;
PRODUCER:
    st.global.u32 [%rd2], 7;
    fence.sc.gpu;
    st.volatile.global.u32 [%rd1], 1;
DONE:
    ret;
}
"""


def test_a_spinning_retry_counter_yields_to_the_producer(tmp_path):
    """The consumer's loop changes a register every iteration (a retry counter), so it never looks stuck; it
    sits at lower program counters than the producer, so the min-pc scheduler alone would run it forever.
    The fairness bound makes it yield after a while: the producer runs, and the handshake completes."""
    ptx = tmp_path / "retry.ptx"
    ptx.write_text(RETRY)
    spec = from_options(ptx, "retry", "2", "32", "f,d,o", ["f=s32[1]:out", "d=s32[1]:out", "o=s32[1]:out"])
    report = analyze(spec, options=RacesOptions(inputs="zeros"))
    assert report.verdict == CLEAN_FOR_INPUTS and not report.trial_errors, (report.findings, report.trial_errors)
    assert report.steps < 5000
