"""volta/exec/fast/onethread.py (one-thread launches without the lane machinery) against the general executor:
for every kernel, the same output expressions (the same interned nodes), findings, errors, steps and
thread-instruction counts, and the same `volta check` verdicts. Kernels: tests/exec/data/onethread/onethread.cu
(nvcc 13, command in its header) and the one-thread examples."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from volta.config import FastPaths
from volta.equiv import check as CK
from volta.errors import VoltaError
from volta.exec import limits
from volta.launch.args import entries
from volta.launch.spec import load_manifest, pair_from_options
from volta.symbolic import expr as E

PTX = str(Path(__file__).parent / "data" / "onethread" / "onethread.sm80.ptx")
EXAMPLES = Path(__file__).parents[2] / "examples"


def _spec(kernel, buffers, args, ref=None):
    return pair_from_options(PTX, PTX, buffers, grid="1", block="1", args=args, kernel=kernel,
                             ref={"kernel": ref} if ref else None)


def _run(spec, role, enabled):
    """(outputs, findings, steps, thread-instructions) or the error, with the one-thread executor on or off."""
    try:
        m = CK.execute(spec, role, lane_structured=False, fast=FastPaths(one_thread=enabled))
    except VoltaError as err:
        return ("error", type(err).__name__, str(err), getattr(err, "span", None))
    outs = CK.outputs(m, spec)
    return ({k: list(v) for k, v in outs.items()}, [(f.kind, f.message, f.threads) for f in m.findings],
            m.steps, m.thread_instructions)


def _same_both_ways(spec, role="ref"):
    fast = _run(spec, role, True)
    slow = _run(spec, role, False)
    if fast[0] == "error" or slow[0] == "error":
        assert fast == slow
        return fast
    for name in slow[0]:
        for k, (a, b) in enumerate(zip(fast[0][name], slow[0][name])):
            assert a is b, (name, k, a, b)   # hash-consed: the same expression is the same node
    assert fast[1:] == slow[1:]
    return fast


CASES = {
    "index_math": (["out=s32[40]:out"], "out,40"),
    "branchy": (["x=f32[24]:in", "out=f32[1]:out"], "x,out,24"),
    "local_array": (["x=f32[50]:in", "out=f32[16]:out"], "x,out,50"),
    "vec4": (["x=f32[64]:in", "out=f32[2]:out"], "x,out,16"),
    "add_inf": (["x=f32[8]:in", "out=f32[8]:out"], "x,out,8"),
    "read_past_end": (["x=f32[8]:in", "out=f32[1]:out"], "x,out,8"),
    "sum_int": (["x=s32[30]:in", "out=s32[1]:out"], "x,out,30"),
    "uninit_local": (["x=f32[8]:in", "out=f32[1]:out"], "x,out,7"),
    "softmax_row": (["x=f32[12]:in", "out=f32[12]:out"], "x,out,12"),
}


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_same_as_the_general_executor(kernel):
    buffers, args = CASES[kernel]
    _same_both_ways(_spec(kernel, buffers, args))


def test_calls_with_live_accumulators_same_as_the_general_executor():
    """A call per key (the general path, confined to the registers its parameter store and load name) while
    eight accumulators stay in the register cache, a select on data, and division, rsqrt, sqrt and ex2 of
    fast math (decoded steps now): every output the same node as the general executor's."""
    ptx = str(Path(PTX).parent / "extern_rows.sm80.ptx")
    spec = pair_from_options(ptx, ptx, ["x=f32[6]:in", "v=f32[48]:in", "out=f32[8]:out"], grid="1", block="1",
                             args="x,v,out,6", kernel="extern_rows")
    outs, findings, _, _ = _same_both_ways(spec)
    calls = {n.data for e in outs["out"] for n in E.postorder(e, {}) if n.op is E.CALL}
    assert findings == [] and len(calls) == 1   # weight_of, uninterpreted


def test_index_math_values_and_findings():
    """Concrete integer results equal the C semantics of the source."""
    outs, findings, _, _ = _same_both_ways(_spec("index_math", ["out=s32[40]:out"], "out,40"))

    def c_int(v):
        return (v + (1 << 31)) % (1 << 32) - (1 << 31)
    want = []
    for i in range(40):
        u = (i * 2654435761) % (1 << 32)
        w = i * -3000000000
        q = c_int(i * 7) ^ (i >> 2)
        want.append(c_int(q % 5 + min(i, 3) - i // 3 + (u >> 28) + (w >> 40) + (i & 6) * (i | 1)))
    assert [int(e.data) for e in outs["out"]] == want and findings == []


def test_findings_are_reported_once_with_the_thread():
    _, findings, _, _ = _same_both_ways(_spec("read_past_end", ["x=f32[8]:in", "out=f32[1]:out"], "x,out,8"))
    assert [f[0] for f in findings] == ["out-of-bounds"]
    _, findings, _, _ = _same_both_ways(_spec("uninit_local", ["x=f32[8]:in", "out=f32[1]:out"], "x,out,7"))
    assert [f[0] for f in findings] == ["uninitialized-read"]


def test_vector_loads_are_input_leaves():
    outs, _, _, _ = _same_both_ways(_spec("vec4", ["x=f32[64]:in", "out=f32[2]:out"], "x,out,16"))
    leaves = {n.data for n in E.postorder(outs["out"][0], {}) if n.op is E.VAR}
    assert leaves == {("x", 4 * i + k) for i in range(16) for k in range(3)}
    assert ("x", 63) in {n.data for n in E.postorder(outs["out"][1], {}) if n.op is E.VAR}


def test_max_steps_is_the_same_error():
    spec = _spec("index_math", ["out=s32[40]:out"], "out,40")
    with limits.using(max_steps=300):
        result = _same_both_ways(spec)
    assert result[0] == "error" and "--max-steps 300" in result[2]


@pytest.mark.parametrize("ref, opt, expected", [
    ("sum_int", "sum_int_reversed", "equivalent"),    # integer data: the general path (INTEGER_INPUTS)
    ("branchy", "branchy", "equivalent"),
    ("add_inf", "add_inf", "equivalent"),              # x + inf: realops' infinity, in the general path
])
def test_check_verdicts_agree(ref, opt, expected):
    buffers, args = CASES[ref]
    spec = pair_from_options(PTX, PTX, buffers, grid="1", block="1", args=args, ref={"kernel": ref},
                             opt={"kernel": opt})
    verdicts = []
    for enabled in (True, False):
        verdicts.append(CK.check(spec, fast=FastPaths(one_thread=enabled)).verdict)
    assert verdicts == [expected, expected]


@pytest.mark.parametrize("case, args", [
    # the GEMM's loops at M=5 N=6 K=12 (its arguments), not the manifest's 20x24x48: the same paths, 1/60 the steps
    pytest.param("eq_gemm_onethread_naive", entries("A,B,C,5,6,12"), id="eq_gemm_onethread_naive"),
    pytest.param("neq_dot_onethread_block_short", None, id="neq_dot_onethread_block_short"),
])
def test_examples_same_both_ways(case, args):
    spec = load_manifest(EXAMPLES / case / "manifest.toml")
    if args is not None:
        spec.launches["ref"] = dataclasses.replace(spec.launches["ref"], args=args)
    _same_both_ways(spec)


def test_only_one_thread_launches_take_it():
    spec = load_manifest(EXAMPLES / "neq_dot_onethread_block_short" / "manifest.toml")
    ref, opt = CK.execute(spec, "ref"), CK.execute(spec, "opt")
    assert ref.L == 1 and not ref.lane_structured   # one lane: per-lane expressions
    assert opt.L == 256 and opt.lane_structured
