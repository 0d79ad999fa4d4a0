"""Mutation test of `volta check`: single-instruction mutants of equivalent pairs' optimized kernels.

For each mutant (operand swap, immediate ±1, address offset ± one element, add↔sub, dropped
instruction, changed float constant; see volta/equiv/mutate.py): a mutant that concrete exact
execution on random inputs shows to differ from the reference is never EQUIVALENT, and every NOT
EQUIVALENT comes with a counterexample whose replay gives two different values. The kill rate
(killed / mutants that change the function) is printed; findings, UNSUPPORTED and UNKNOWN are
counted separately. `benchmarks/mutation_rate.py` runs the larger set.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from volta.equiv.mutate import mutants, run_mutant, summarize
from volta.launch.args import entries
from volta.launch.spec import load_manifest, parse_buffer, parse_dim3

EX = Path(__file__).resolve().parents[2] / "examples"
CAP = 18  # mutants per pair, evenly spread over the kernel (keeps the test near half a minute)


def _small(case, grid, block, args, buffers):
    """The example's pair at a smaller (ragged) size, so that each check takes a fraction of a second."""
    spec = load_manifest(EX / case / "manifest.toml")
    launches = {role: dataclasses.replace(spec.launches[role], grid=parse_dim3(grid, "grid"),
                                          block=parse_dim3(block, "block"), args=entries(args))
                for role in ("ref", "opt")}
    return dataclasses.replace(spec, launches=launches,
                               buffers={b.name: b for b in map(parse_buffer, buffers)})


PAIRS = {
    "eq_relu_fmax_select": lambda: _small("eq_relu_fmax_select", "1", "64", "x,out,40",
                                          ["x=f32[40]:in", "out=f32[40]:out"]),
    "eq_reduce_seq_tree": lambda: _small("eq_reduce_seq_tree", "2", "64", "x,partial,100",
                                         ["x=s32[128]:in", "partial=s32[2]:out"]),
    "eq_conv1d_direct_tiled": lambda: _small("eq_conv1d_direct_tiled", "1", "128", "x,w,y,100",
                                             ["x=f32[100]:in", "w=f32[5]:in", "y=f32[100]:out"]),
}


def _sample(items, cap):
    if len(items) <= cap:
        return items
    step = len(items) / cap
    return [items[int(k * step)] for k in range(cap)]


@pytest.fixture(scope="module")
def tally():
    outcomes = []
    yield outcomes
    s = summarize(outcomes)
    print(f"\nmutation kill rate: {s['killed']}/{s['changes_function']} = {s['kill_rate']:.0%} of "
          f"{s['mutants']} mutants that change the function; by verdict: {s['by_verdict']}; "
          f"{s['equivalent_mutants']} equivalent mutants")


@pytest.mark.parametrize("case", sorted(PAIRS))
def test_mutants_never_wrongly_equivalent(case, tally, tmp_path):
    spec = PAIRS[case]()
    assert spec.buffers
    text = Path(spec.launches["opt"].ptx).read_text()
    found = mutants(text)
    assert len(found) >= 10
    outcomes = [run_mutant(spec, m, t, tmp_path) for m, t in _sample(found, CAP)]
    tally.extend(outcomes)
    for o in outcomes:
        if o.changes:  # the oracle saw a different output on some random input
            assert o.verdict != "equivalent", f"{case}: {o.mutant} reported EQUIVALENT but differs"
        if o.verdict == "not-equivalent":
            assert o.confirmed, f"{case}: {o.mutant}: counterexample did not replay ({o.detail})"
    s = summarize(outcomes)
    assert s["killed"] == s["changes_function"], s  # every mutant that changes the function is caught
