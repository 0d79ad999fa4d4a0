"""Differential test of wmma.load's one-batch read (volta/exec/handlers/tensor.py `_read_at_once`) against the
slot-by-slot loop it stands in for: the same kernel runs with the batch and with the batch turned off, on the
real-number path (per-lane expressions and lane polynomials) and bit for bit (--fp ampere), and everything must
agree: output expressions node for node, output bytes, findings. The kernel (data/wmma_batch) reads a partial
fragment (zero columns), a column-major fragment, a fragment under a warp guard, one straight from global memory
and, per case, a fragment past the end of its buffer (the slot loop reports it) and a racy one (no barrier)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from volta.equiv import check as CK
from volta.exec.handlers import tensor
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.launch.spec import load_manifest
from volta.ptx.parser import parse_file
from volta.symbolic import expr as E

KERNEL = Path(__file__).resolve().parent / "data" / "wmma_batch" / "kernel.sm80.ptx"

# (valid columns of A, barrier, column offset of the global B load): whole tiles, a partial fragment, a race,
# a global fragment past the end of B
CASES = [(16, 1, 0), (9, 1, 16), (16, 0, 0), (16, 1, 300)]


def _spec(tmp_path, valid, sync, off):
    launch = (f'ptx = "{KERNEL}"\nname = "wmma_batch"\ngrid = "1"\nblock = "64"\n'
              f'args = ["A", "B", "C", "{valid}", "{sync}", "{off}"]\n')
    path = tmp_path / "manifest.toml"
    path.write_text(f'[ref]\n{launch}\n[opt]\n{launch}\n[buffers]\nA = "f16[256]:in"\nB = "f16[512]:in"\n'
                    f'C = "f32[256]:out"\n')
    return load_manifest(path)


@pytest.fixture
def counted(monkeypatch):
    """Counts the loads `_read_at_once` answered, so a test knows the batch ran."""
    calls = {"batched": 0}
    real = tensor._read_at_once

    def spy(*a):
        done = real(*a)
        calls["batched"] += done
        return done
    monkeypatch.setattr(tensor, "_read_at_once", spy)
    return calls


def _findings(m):
    return sorted((f.kind, f.message) for f in m.findings)


def _same_findings(fast, slow):
    assert fast.findings == slow.findings


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("lane_structured", [True, False])
def test_batched_wmma_load_builds_the_slot_loops_expressions(case, lane_structured, tmp_path, counted, monkeypatch):
    spec = _spec(tmp_path, *case)
    fast = CK.execute(spec, "ref", lane_structured=lane_structured)
    assert counted["batched"] >= 2   # A and B from shared memory at least
    with monkeypatch.context() as p:
        p.setattr(tensor, "_read_at_once", lambda *a: False)
        slow = CK.execute(spec, "ref", lane_structured=lane_structured)
    got, want = CK.outputs(fast, spec), CK.outputs(slow, spec)
    assert got.keys() == want.keys()
    for name in got:
        assert len(got[name]) == len(want[name])
        assert all(a is b for a, b in zip(got[name], want[name])), (case, name)
    _same_findings(fast, slow)
    assert any(isinstance(e, E.Expr) and e.op is not E.CONST for v in got.values() for e in v)
    kinds = {k for k, _ in _findings(fast)}
    if case[1] == 0:
        assert any("race" in k.lower() for k in kinds), kinds   # the racy case is found through the batch
    if case[2] == 300:
        assert any("bound" in k.lower() for k in kinds), kinds


@pytest.mark.parametrize("case", CASES)
def test_batched_wmma_load_reads_the_slot_loops_bits(case, tmp_path, counted, monkeypatch):
    spec = _spec(tmp_path, *case)
    launch = spec.launches["ref"] if "ref" in spec.launches else next(iter(spec.launches.values()))
    rng = np.random.default_rng(5)
    inputs = {"A": rng.standard_normal(256).astype(np.float16), "B": rng.standard_normal(512).astype(np.float16)}
    prog = lower(parse_file(str(launch.ptx)), launch.kernel)

    def run():
        m = Machine(prog, launch, spec.buffers, {}, inputs=dict(inputs), fp="ampere").run()
        return m.buffer_regions["C"].data.copy(), m
    fast = run()
    assert counted["batched"] >= 2
    with monkeypatch.context() as p:
        p.setattr(tensor, "_read_at_once", lambda *a: False)
        slow = run()
    assert np.array_equal(fast[0], slow[0])
    _same_findings(fast[1], slow[1])
    if case == (16, 1, 0):
        assert not fast[1].findings and fast[0].any()
