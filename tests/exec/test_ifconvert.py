"""If-conversion of branches on tensor data (volta/exec/ifconvert.py): both sides run under their
path conditions and merge into selects at the post-dominator; stores under a condition that may fail
keep the old value; loops, barriers and stores whose old value nobody knows stay UNSUPPORTED.
PTX: tests/exec/data/ifconvert/ifconvert.sm80.ptx (nvcc 13 from ifconvert.cu, command in its header).
The example pairs (examples/eq_leaky_relu_select_branch, eq_clamp_branch_fminmax, eq_gelu_erf_regrouped,
...) run through tests/cli/test_check_cli.py and the soundness harness.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.exec import findings as F
from volta.launch.spec import from_options, pair_from_options
from volta.session.races import analyze
from volta.ir import cfg as CFG
from volta.ir.program import lower
from volta.ptx.parser import parse_file
from volta.exec import ifconvert

PTX = Path(__file__).parent / "data" / "ifconvert" / "ifconvert.sm80.ptx"


def _pair(ref, opt, y_role="out", grid="2", block="64", n=128):
    buffers = [f"x=f32[{n}]:in", f"y=f32[{n}]:{y_role}"]
    spec = pair_from_options(str(PTX), str(PTX), buffers, grid=grid, block=block, args=f"x,y,{n}",
                             ref={"kernel": ref}, opt={"kernel": opt})
    return check(spec)


def test_early_exit_under_a_data_condition_is_equivalent_to_a_select_over_the_old_value():
    assert _pair("early_exit_select", "early_exit", y_role="inout").verdict == "equivalent"


@pytest.mark.slow
def test_nested_branches_merge_at_both_joins():
    # two CTAs of 16 threads: every element is the same nested select, each decided on its own (by the
    # solver), so 32 of them show the merge as well as 128 did in a quarter of the time
    assert _pair("nested_sign_select", "nested_sign", block="16", n=32).verdict == "equivalent"


def test_a_mutated_side_is_not_equivalent_with_a_replayed_witness():
    report = _pair("nested_sign_select", "early_exit", y_role="inout")
    assert report.verdict == "not-equivalent"
    assert report.counterexample is not None


def test_one_sided_store_into_an_inout_buffer_keeps_the_old_value():
    assert _pair("keep_or_positive", "one_sided", y_role="inout").verdict == "equivalent"


def test_one_sided_store_into_an_out_buffer_is_unsupported_with_the_reason():
    report = _pair("keep_or_positive", "one_sided", y_role="out")
    assert report.verdict == "unsupported"
    message = str(report.unsupported[1])
    assert "stored only on some paths" in message and ":inout" in message


def test_a_loop_whose_trip_count_depends_on_data_stays_unsupported():
    report = _pair("data_loop", "data_loop")
    assert report.verdict == "unsupported"
    assert "loop" in str(report.unsupported[1])


def test_a_backward_branch_on_data_is_never_taken_as_a_join():
    # the only data-dependent branch jumps back: its sides never meet again after it
    report = _pair("data_do_while", "data_do_while")
    assert report.verdict == "unsupported"
    assert "trip count" in str(report.unsupported[1])


def test_a_barrier_inside_a_data_branch_stays_unsupported():
    report = _pair("data_barrier", "data_barrier", grid="1", block="128")
    assert report.verdict == "unsupported"
    message = str(report.unsupported[1])
    assert "bar.sync" in message or "barrier" in message


def test_an_out_of_bounds_store_possible_only_under_the_condition_is_reported_as_such():
    report = analyze(from_options(str(PTX), "data_oob", "2", "64", "x,y,128", ["x=f32[128]:in", "y=f32[128]:out"]))
    oob = [f for f in report.findings if f.kind == F.OUT_OF_BOUNDS]
    assert oob, (report.verdict, report.error, [f.message for f in report.findings])
    assert "possible only when a condition on tensor data holds" in oob[0].message


def test_check_reports_the_conditional_out_of_bounds_store_too():
    report = _pair("data_oob", "data_oob", y_role="inout")
    assert report.verdict == "findings"
    assert F.OUT_OF_BOUNDS in {f.kind for f in report.findings["opt"]}


# ---- the static part: regions, liveness, every-path stores ------------------------------------------

def _program(name):
    return lower(parse_file(PTX), name)


def _data_branches(prog):
    return [op for op in prog.ops if op.op == "bra" and op.guard is not None]


def test_region_of_a_loop_is_refused_with_a_reason():
    prog = _program("data_loop")
    reasons = [CFG.region(prog, op.index, ifconvert.allowed) for op in _data_branches(prog)]
    assert any(isinstance(r, str) and "loop" in r for r in reasons)


def test_region_blocks_run_forward_and_every_path_stores_in_the_clamp_shape():
    prog = _program("nested_sign")
    branches = _data_branches(prog)
    reg = CFG.region(prog, branches[1].index, ifconvert.allowed)   # the first branch on v
    assert not isinstance(reg, str)
    leaders = [b[0] for b in reg.blocks]
    assert leaders == sorted(leaders) and all(reg.branch < x < reg.join for x in leaders)
    for x, succ in reg.graph.items():
        assert all(s == CFG.EXIT or s > x for s in succ)
    storing = frozenset(x for x, last in reg.blocks if any(prog.ops[i].op == "st" for i in range(x, last + 1)))
    entry = (branches[1].operands[0][1], branches[1].index + 1)
    assert CFG.stores_on_every_path(reg, entry, storing)
    assert not CFG.stores_on_every_path(reg, entry, frozenset(sorted(storing)[:1]))


def test_liveness_sees_a_register_read_after_the_join():
    prog = _program("nested_sign")
    live = CFG.live_in(prog)
    assert live[0] == frozenset()   # nothing is read before it is written
    store = next(op for op in prog.ops if op.op == "st")
    address = store.operands[0].base.index
    lead = max(x for x in prog.cfg.leaders if x <= store.index)
    assert address in live[lead]   # the address register computed before the branch is live in the side


@pytest.mark.parametrize("name", ["early_exit", "nested_sign", "one_sided"])
def test_races_run_through_if_converted_code(name):
    report = analyze(from_options(str(PTX), name, "2", "64", "x,y,128", ["x=f32[128]:in", "y=f32[128]:out"]))
    assert report.verdict == "clean", (report.verdict, report.error, [f.message for f in report.findings])


# ---- single instructions predicated on data (no branch) ----------------------------------------

_HEAD = """.version 8.0
.target sm_80
.address_size 64
.visible .entry {name}(.param .u64 px, .param .u64 py, .param .u32 pn)
{{
 .reg .pred %p<3>; .reg .f32 %f<4>; .reg .b32 %r<6>; .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [py];
 mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;
 mad.lo.s32 %r1, %r3, %r4, %r5;
 cvta.to.global.u64 %rd3, %rd1; mul.wide.s32 %rd4, %r1, 4; add.s64 %rd5, %rd3, %rd4;
 ld.global.f32 %f1, [%rd5];
 setp.gt.f32 %p2, %f1, 0f00000000;
 mul.f32 %f2, %f1, {slope};
 cvta.to.global.u64 %rd6, %rd2; add.s64 %rd7, %rd6, %rd4;
{body}
 ret;
}}
"""
PREDICATED = {
    "pred_mov": " @%p2 mov.f32 %f2, %f1;\n st.global.f32 [%rd7], %f2;",
    "pred_st": " st.global.f32 [%rd7], %f2;\n @%p2 st.global.f32 [%rd7], %f1;",
    "pred_st_out_only": " @%p2 st.global.f32 [%rd7], %f1;\n @!%p2 st.global.f32 [%rd7], %f2;",
}
LEAKY = Path(__file__).resolve().parents[2] / "examples" / "eq_leaky_relu_select_branch" / "ref.sm80.ptx"


def _leaky_pair(tmp_path, name, slope="0f3C23D70A"):
    ptx = tmp_path / f"{name}.ptx"
    ptx.write_text(_HEAD.format(name=name, slope=slope, body=PREDICATED[name]))
    spec = pair_from_options(str(LEAKY), str(ptx), ["x=f32[512]:in", "y=f32[512]:out"], grid="4", block="128",
                             args="x,y,512", ref={"kernel": "leaky_select"}, opt={"kernel": name})
    return check(spec)


@pytest.mark.parametrize("name", ["pred_mov", "pred_st"])
def test_an_instruction_predicated_on_data_is_if_converted(tmp_path, name):
    assert _leaky_pair(tmp_path, name).verdict == "equivalent"


@pytest.mark.parametrize("name", ["pred_mov", "pred_st"])
def test_a_predicated_instruction_with_a_wrong_constant_is_not_equivalent(tmp_path, name):
    report = _leaky_pair(tmp_path, name, slope="0f3DCCCCCD")   # 0.1 instead of 0.01
    assert report.verdict == "not-equivalent" and report.counterexample is not None


def test_complementary_predicated_stores_into_an_out_buffer_are_still_refused(tmp_path):
    # two guarded stores outside a branch region: each alone may not happen, so the old value is unknown
    report = _leaky_pair(tmp_path, "pred_st_out_only")
    assert report.verdict == "unsupported"
    assert "stored only on some paths" in str(report.unsupported[1])


def test_two_threads_storing_one_element_on_every_path_is_never_equivalent():
    # each thread stores on both sides, but the element's last writer depends on the schedule
    report = _pair("abs_half", "shared_element")
    assert report.verdict in ("findings", "unsupported"), report.verdict
    if report.verdict == "unsupported":
        assert "several threads" in str(report.unsupported[1])


def test_early_exit_into_an_out_buffer_is_unsupported():
    # where v < 0 the thread leaves without storing: y's value there is the buffer's unknown content
    report = _pair("early_exit_select", "early_exit", y_role="out")
    assert report.verdict == "unsupported"
    assert "stored only on some paths" in str(report.unsupported[1])


_EXIT_BODY = """ setp.lt.f32 %p1, %f1, 0f00000000;
 @%p1 ret;
 mul.f32 %f3, %f1, 0f40000000;
 st.global.f32 [%rd7], %f3;"""


@pytest.mark.parametrize("role, verdict", [("inout", "equivalent"), ("out", "unsupported")])
def test_a_guarded_ret_on_data_exits_only_where_the_condition_holds(tmp_path, role, verdict):
    ptx = tmp_path / "guarded_ret.ptx"
    ptx.write_text(_HEAD.format(name="guarded_ret", slope="0f3C23D70A", body=_EXIT_BODY))
    spec = pair_from_options(str(PTX), str(ptx), [f"x=f32[128]:in", f"y=f32[128]:{role}"], grid="2", block="64",
                             args="x,y,128", ref={"kernel": "early_exit_select"}, opt={"kernel": "guarded_ret"})
    report = check(spec)
    assert report.verdict == verdict, (report.verdict, report.unsupported)


def test_uses_reads_store_operands_and_writes_only_destinations():
    prog = _program("nested_sign")
    store = next(op for op in prog.ops if op.op == "st")
    reads, writes = CFG.uses(store)
    assert writes == frozenset() and store.operands[0].base.index in reads and store.operands[1].index in reads
    load = next(op for op in prog.ops if op.op == "ld" and op.d.space == ".global")
    reads, writes = CFG.uses(load)
    assert writes == {load.operands[0].index} and load.operands[1].base.index in reads
    guarded = next(op for op in prog.ops if op.op == "bra" and op.guard is not None)
    assert CFG.uses(guarded) == (frozenset({guarded.guard[0]}), frozenset())


def test_races_keep_shared_memory_a_conditional_store_may_skip_undefined():
    report = analyze(from_options(str(PTX), "shared_maybe_written", "2", "64", "x,y,128",
                                  ["x=f32[128]:in", "y=f32[128]:out"]))
    assert F.UNINITIALIZED in {f.kind for f in report.findings}, (report.verdict, report.error)


def test_check_refuses_a_shared_element_a_conditional_store_may_skip():
    report = _pair("shared_maybe_written", "shared_maybe_written")
    assert report.verdict in ("unsupported", "findings"), report.verdict


# ---- the merged expressions against concrete IEEE execution that follows the branches ------------

from fractions import Fraction  # noqa: E402

import numpy as np  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402

from volta.equiv.check import execute, outputs  # noqa: E402
from volta.session.replay import run_launch  # noqa: E402
from volta.symbolic import expr as E  # noqa: E402
from volta.symbolic.evaluate import evaluate  # noqa: E402

_SYMBOLIC = {}   # kernel -> (spec, output expressions): one symbolic run each


def _symbolic(kernel, role):
    if kernel not in _SYMBOLIC:
        spec = pair_from_options(str(PTX), str(PTX), ["x=f32[8]:in", f"y=f32[8]:{role}"], grid="1", block="8",
                                 args="x,y,8", ref={"kernel": kernel}, opt={"kernel": kernel})
        _SYMBOLIC[kernel] = (spec, outputs(execute(spec, "opt"), spec)["y"])
    return _SYMBOLIC[kernel]


# quarters: every value these kernels compute from them (v*v, 16+v, 2v, -v) is exact in f32
QUARTERS = st.lists(st.integers(-96, 96).map(lambda k: Fraction(k, 4)), min_size=8, max_size=8)


@settings(max_examples=40, deadline=None)
@given(xs=QUARTERS, ys=QUARTERS)
@pytest.mark.parametrize("kernel, role", [("nested_sign", "out"), ("early_exit", "inout"),
                                          ("one_sided", "inout")])
def test_merged_outputs_equal_ieee_execution_along_the_taken_paths(kernel, role, xs, ys):
    spec, exprs = _symbolic(kernel, role)
    env = {E.var("x", k): v for k, v in enumerate(xs)} | {E.var("y", k): v for k, v in enumerate(ys)}
    arrays = {"x": np.array([float(v) for v in xs], np.float32)}
    if role == "inout":
        arrays["y"] = np.array([float(v) for v in ys], np.float32)
    concrete = run_launch(spec, "opt", arrays, fp="ieee", check_races=False).outputs["y"]
    for k, e in enumerate(exprs):
        assert evaluate(e, env) == Fraction(float(concrete[k])), (k, e)
