"""volta/exec/fast/oneblock.py (straight-line runs of one-thread steps compiled into one function) against the step
closures alone: the same outputs (the same interned nodes), findings, errors, steps, thread-instruction
counts and final registers, on the one-thread and solo kernels of tests/exec/data/onethread and the
one-thread examples; runs that stop early (an address out of bounds, a concrete accumulator, the step cap)."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from volta.config import FastPaths
from volta.equiv import check as CK
from volta.errors import VoltaError
from volta.exec import limits
from volta.exec.fast import oneblock, onestep
from volta.launch.spec import load_manifest, pair_from_options
from volta.ptx.decode import decode_module
from volta.ptx.parser import parse_text
from volta.semantics import realops
from volta.symbolic import expr as E
from tests.exec.test_onethread import CASES as ONETHREAD_CASES
from tests.exec.test_onethread_solo import CASES as SOLO_CASES

DATA = Path(__file__).parent / "data" / "onethread"
EXAMPLES = Path(__file__).parents[2] / "examples"
ONE = ONETHREAD_CASES   # kernel of onethread.sm80.ptx: (buffers, args)
SOLO = SOLO_CASES      # kernel of solo.sm80.ptx: (buffers, args, grid, block)


def _spec(name):
    if name in ONE:
        buffers, args = ONE[name]
        ptx, grid, block = str(DATA / "onethread.sm80.ptx"), "1", "1"
    elif name in SOLO:
        buffers, args, grid, block = SOLO[name]
        ptx = str(DATA / "solo.sm80.ptx")
    else:
        return load_manifest(EXAMPLES / name / "manifest.toml")
    return pair_from_options(ptx, ptx, buffers, grid=grid, block=block, args=args, kernel=name)


def _dot(n):
    ptx = str(EXAMPLES / "neq_dot_onethread_block_short" / "ref.sm80.ptx")
    return pair_from_options(ptx, ptx, [f"x=f32[{n}]:in", f"y=f32[{n}]:in", "out=f32[1]:out"], grid="1",
                             block="1", args=f"x,y,out,{n}", kernel="dot_onethread")


def _run(spec, role, blocks):
    try:
        m = CK.execute(spec, role, lane_structured=False, fast=FastPaths(blocks=blocks))
    except VoltaError as err:
        return ("error", type(err).__name__, str(err), getattr(err, "span", None))
    outs = {k: list(v) for k, v in CK.outputs(m, spec).items()}
    regs = [None if r is None else r.tolist() for r in m.regs]
    flags = [None if f is None else f.tolist() for f in m.flags]
    syms = [None if s is None else list(np.asarray(s, dtype=object)) for s in m.sym]
    return (outs, [(f.kind, f.message, f.threads) for f in m.findings], m.steps, m.thread_instructions,
            regs, flags, syms)


def _same_with_and_without_blocks(spec, role="ref"):
    fast, slow = _run(spec, role, True), _run(spec, role, False)
    if fast[0] == "error" or slow[0] == "error":
        assert fast == slow
        return fast
    for name in slow[0]:
        assert all(a is b for a, b in zip(fast[0][name], slow[0][name])), name
    assert fast[1:6] == slow[1:6]
    for i, (a, b) in enumerate(zip(fast[6], slow[6])):
        assert (a is None) == (b is None) and (a is None or all(x is y for x, y in zip(a, b))), i
    return fast


@pytest.mark.parametrize("name", sorted(ONE) + sorted(SOLO) + ["eq_gemm_onethread_naive",
                                                               "neq_dot_onethread_block_short"])
def test_same_as_step_by_step(name):
    spec = _spec(name)
    role = "opt" if name in SOLO else "ref"
    _same_with_and_without_blocks(spec, role)


def test_the_loop_body_runs_as_one_block(monkeypatch):
    """The dot product's unrolled loop (8 loads, 4 fmas, index updates, the branch) is one block that runs
    once per iteration; the first, whose accumulator is the concrete 0.0, stops at its first fma."""
    runs = []
    original = oneblock.compile_block

    def counting(m, ops, pc, regs):
        block = original(m, ops, pc, regs)
        if block is not None:
            inner = block.run

            def run():
                out = inner()
                runs.append((pc, block.steps, out[1]))
                return out
            block.run = run
        return block
    monkeypatch.setattr("volta.exec.fast.onethread.compile_block", counting)
    CK.execute(_dot(400), "ref")
    full = [r for r in runs if r[1] == r[2] and r[1] == 18]
    assert len(full) == 400 // 4 - 1, runs[:5]
    assert any(r[2] < r[1] for r in runs)   # the first stopped short, the step closures took over


@pytest.mark.parametrize("cap", [37, 300, 301, 1000])
def test_step_cap_is_the_same_error(cap):
    with limits.using(max_steps=cap):
        out = _same_with_and_without_blocks(_dot(400))
    assert out[0] == "error" and "step" in out[2]


def test_direct_constructors_are_realops():
    """oneblock calls the expression constructors directly; they are what realops.TABLE builds."""
    rng = random.Random(5)
    leaves = [E.var("t", i) for i in range(6)] + [E.const(1.5), E.const(-2)]
    for op, fn in oneblock._DIRECT.items():
        arity = onestep._DATA_OPS[op]
        d = _descriptor(op, arity)
        for _ in range(20):
            args = [rng.choice(leaves) for _ in range(arity)]
            assert fn(*args) is realops.TABLE[op](d, *args), (op, args)


def _descriptor(op, arity):
    rounding = {"fma": ".rn", "mad": ".rn", "div": ".rn", "sqrt": ".rn"}.get(op, ".approx" if arity == 1 and op != "neg"
                                                                           else "")
    line = f"{op}{rounding}.f32 %f0, " + ", ".join(f"%f{i + 1}" for i in range(arity))
    text = (".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n.reg .f32 %f<8>;\n"
            f"{line};\nret;\n}}\n")
    return decode_module(parse_text(text, "t.ptx", use_cache=False))["k"][0]
