"""volta/exec/fast/onethread.py `solo`: one lane of a larger launch that the scheduler picks alone runs decoded
steps until an instruction for the general path, or until its pc reaches another runnable lane's. With it
on and off: the same outputs (the same interned nodes without lane-structured values; the same verdicts
with them), findings, steps and thread-instruction counts. Kernels: tests/exec/data/onethread/solo.cu."""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.config import FastPaths
from volta.equiv import check as CK
from volta.errors import VoltaError
from volta.exec.fast import onethread
from volta.launch.spec import pair_from_options

PTX = str(Path(__file__).parent / "data" / "onethread" / "solo.sm80.ptx")

CASES = {   # kernel: (buffers, args, grid, block)
    "dot_first": (["x=f32[300]:in", "y=f32[300]:in", "out=f32[2]:out"], "x,y,out,300", "2", "32"),
    "sum_then_scale": (["x=f32[200]:in", "out=f32[32]:out"], "x,out,200", "1", "32"),
    "own_value_then_loop": (["x=f32[100]:in", "out=f32[33]:out"], "x,out,100", "1", "32"),
    "reads_others_unsynced": (["y=f32[32]:inout", "out=f32[1]:out"], "y,out,32", "1", "32"),
    "ragged_loops": (["x=f32[40]:in", "out=f32[32]:out"], "x,out,40", "1", "32"),
    "first_reads_unwritten": (["x=f32[64]:in", "out=f32[1]:out"], "x,out,64", "1", "32"),
}


def _spec(kernel, ref=None):
    buffers, args, grid, block = CASES[kernel]
    return pair_from_options(PTX, PTX, buffers, grid=grid, block=block, args=args, kernel=kernel,
                             ref={"kernel": ref} if ref else None)


def _run(spec, enabled, lane_structured, role="opt"):
    try:
        m = CK.execute(spec, role, lane_structured=lane_structured, fast=FastPaths(one_thread=enabled))
    except VoltaError as err:
        return ("error", type(err).__name__, str(err))
    outs = CK.outputs(m, spec)
    return ({k: list(v) for k, v in outs.items()}, sorted((f.kind, f.message, str(f.threads)) for f in m.findings),
            m.steps, m.thread_instructions)


@pytest.mark.parametrize("lane_structured", [False, True])
@pytest.mark.parametrize("kernel", sorted(CASES))
def test_same_as_without_solo(kernel, lane_structured):
    fast = _run(_spec(kernel), True, lane_structured)
    slow = _run(_spec(kernel), False, lane_structured)
    assert (fast[0] == "error") == (slow[0] == "error")
    if fast[0] == "error":
        assert fast == slow
        return
    assert fast[1:] == slow[1:]
    if not lane_structured:
        for name in slow[0]:
            for k, (a, b) in enumerate(zip(fast[0][name], slow[0][name])):
                assert a is b, (name, k, a, b)


def test_findings_are_kept():
    """The race and the uninitialized read are found with solo on (the only way the tests run)."""
    for kernel, kind in (("reads_others_unsynced", "race"), ("first_reads_unwritten", "uninitialized-read")):
        report = CK.check(_spec(kernel, ref=kernel))
        assert report.verdict == "findings", report.verdict
        assert {f.kind for f in report.findings["opt"]} == {kind}


def test_solo_runs_the_loop(monkeypatch):
    """Thread 0's long loop runs decoded (with two blocks, the two threads 0 step together: general path)."""
    calls = []
    original = onethread.solo

    def counting(m, lane, below):
        done = original(m, lane, below)
        calls.append(done)
        return done
    monkeypatch.setattr(onethread, "solo", counting)
    m = CK.execute(_spec("sum_then_scale"), "opt")
    assert sum(calls) >= 3 * 200, (sum(calls), m.thread_instructions)   # 200 iterations: ld, add, setp, bra


@pytest.mark.parametrize("kernel", ["dot_first"])
def test_verdict_against_a_parallel_reference(kernel):
    assert CK.check(_spec(kernel, ref="dot_parallel")).verdict == "equivalent"


def test_the_example_both_ways():
    from volta.launch.spec import load_manifest

    spec = load_manifest(str(Path(__file__).parents[2] / "examples" / "eq_dot_first_thread_blocks" / "manifest.toml"))
    for role in ("ref", "opt"):
        fast = _run(spec, True, True, role)
        slow = _run(spec, False, True, role)
        assert fast[1:] == slow[1:]
    assert CK.check(spec).verdict == "equivalent"
