"""Threads that exit without reaching a barrier the rest of their block waits at (issue 8 §3).

CUDA makes it undefined; GPUs since Volta count exited threads as arrived. Default: a DEADLOCK
finding (barrier divergence) naming both thread sets; `--allow-exit-before-barrier` accepts the
hardware behaviour but still reports a barrier inside a divergent branch (threads that passed
earlier barriers and then left).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from volta.cli import run
from volta.exec import findings as F
from volta.launch.spec import load_manifest
from volta.session.races import CLEAN, FINDINGS, analyze

EX = Path(__file__).resolve().parents[2] / "examples"


def _report(case, allow=False):
    spec = load_manifest(EX / case / "manifest.toml")
    spec = dataclasses.replace(spec, allow_exit_before_barrier=allow)
    return analyze(spec, "kernel")


def test_exited_warp_is_reported_with_both_thread_sets():
    report = _report("bug_barrier_exited_threads")
    assert report.verdict == FINDINGS
    (f,) = report.findings
    assert f.kind == F.DEADLOCK
    assert "threads 32..63 of block (0, 0, 0) exit without reaching the barrier that threads 0..31 wait at" \
        in f.message
    assert f.sites[0].cuda_lines[0] == 9 and f.threads[0].thread == (0, 0, 0) and f.threads[1].thread == (32, 0, 0)


def test_early_return_before_barrier_is_reported_in_the_ragged_block_only():
    (f,) = _report("bug_barrier_early_return").findings
    assert f.kind == F.DEADLOCK and "threads 44..127 of block (2, 0, 0)" in f.message


@pytest.mark.parametrize("case", ["bug_barrier_exited_threads", "bug_barrier_early_return"])
def test_allowing_the_hardware_behaviour(case):
    assert _report(case, allow=True).verdict == CLEAN


def test_barrier_in_a_divergent_loop_branch_is_reported_even_when_allowed():
    report = _report("bug_reduce_divergent_sync", allow=True)
    assert F.DEADLOCK in {f.kind for f in report.findings}


def test_cli_flag(capsys):
    manifest = str(EX / "bug_barrier_early_return" / "manifest.toml")
    assert run(["races", manifest, "-q"]) == 1
    assert "barrier divergence" in capsys.readouterr().out
    assert run(["races", manifest, "-q", "--allow-exit-before-barrier"]) == 0
    assert run(["run", manifest, "-q", "--allow-exit-before-barrier"]) == 0
