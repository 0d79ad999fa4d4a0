"""Volta's process decides a passing verdict from the worker's evidence (isolation/verify.py, isolation/wire.py):
a tampered claim is REJECTED whatever the worker's report says, and a forged expression table is refused before
any of it is used."""
import io
import json
import pickle
import re
import uuid
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from volta.config import IntegerInputs
from volta.kernelbench.check import CheckOptions, check
from volta.kernelbench.evidence import Evidence
from volta.kernelbench.isolation import process, verify, wire
from volta.kernelbench.isolation import values as value_replay
from volta.kernelbench.memory import DeviceMemory
from volta.kernelbench.torchsym import new_run
from volta.report import kernelbench_report
from volta.symbolic import expr as E

DATA = Path(__file__).resolve().parent / "data" / "integrity"
PROBLEM = str(DATA / "problem.py")
OPTIONS = CheckOptions()


@pytest.fixture(scope="module")
def honest():
    """The honest control's report (as JSON data) and its evidence, as the parent decodes them."""
    evidence = Evidence()
    report = check(PROBLEM, str(DATA / "honest.py"), {}, evidence=evidence)
    data = json.loads(json.dumps(kernelbench_report.to_dict(report), default=str))
    return data, wire.read_evidence(wire.evidence_frame(evidence))


def _decide(report, instances):
    return verify.decide(PROBLEM, {}, OPTIONS, report, instances)


def test_the_honest_evidence_bears_its_verdict_out(honest):
    report, instances = honest
    assert report["verdict"] == "equivalent" and [sorted(i["calls"]) for i in instances] == [[1, 2, 3]]
    decided = _decide(report, instances)
    assert (decided.verdict, decided.runs, decided.calls) == (None, 1, 3)


@pytest.fixture(scope="module")
def honest_kernel():
    """The CUDA control's report and evidence: its calls into its extension are recorded for the replay."""
    evidence = Evidence()
    report = check(PROBLEM, str(DATA / "kernel_honest.py"), {}, evidence=evidence)
    data = json.loads(json.dumps(kernelbench_report.to_dict(report), default=str))
    return data, wire.read_evidence(wire.evidence_frame(evidence))


def test_the_honest_kernel_s_calls_are_replayed_here_and_agree(honest_kernel):
    report, instances = honest_kernel
    assert [len(i["host_calls"]) for i in instances] == [3]
    # each record carries what changed: call 2's input before it, its output after it (not the whole memory)
    assert [len(c["after"]["memory"]) for c in instances[0]["host_calls"]] == [1, 1, 1]
    decided = _decide(report, instances)
    assert (decided.verdict, decided.host_calls, decided.launches) == (None, 3, 3)


def _memory(call, when="after"):
    return call[when]["memory"]


def _launch(call):
    return next(e for e in call["trace"] if e.get("e") == "launch")


def _forged_source(ext):
    """A kernel source no build made (the cache cannot hold it from an earlier run)."""
    ext["cuda_cu"] = ext["cuda_cu"].replace("v > 0.0f ? v : 0.25f * v", "v") + f"// {uuid.uuid4()}\n"


@pytest.mark.parametrize("change, why", [
    (lambda i: _memory(i["host_calls"][0])[-1][3].__setitem__(0, E.const(0)),
     "extension call 1 (`integrity_leaky.leaky`): the worker's machine left 0 in `torch::empty#1` element 0, "
     "where Volta's own replay of the call computes select"),
    # the memory forward call 2's extension call reads, changed: its input there is not the call's input
    (lambda i: _memory(i["host_calls"][1], "before")[0][3].__setitem__(3, E.const(1)),
     "call 2: `ExtensionModule.__getattr__.call[leaky, Host, integrity_leaky]` at line 32: before extension call "
     "2: `x` element 3 is 1 in the worker's memory, where Volta's replay of the candidate's calls computes x@2[3]"),
    (lambda i: i["extensions"].clear(), "whose sources the worker did not send"),
    (lambda i: _launch(i["host_calls"][0]).__setitem__("grid", [0, 1]), "trace is malformed"),
    (lambda i: _launch(i["host_calls"][2]).__setitem__("kernel", "_Z5otherv"), "its replay here stopped"),
    (lambda i: _memory(i["host_calls"][0]).pop(), "and its replay here hold other allocations"),
    (lambda i: i["host_calls"][0]["trace"].append({"e": "teleport"}), "unknown event 'teleport'"),
])
def test_a_call_into_an_extension_the_replay_does_not_bear_out_is_rejected(honest_kernel, change, why):
    report, instances = honest_kernel
    decided = _decide(report, _tampered(instances, change))
    assert decided.verdict == "rejected" and why in decided.reason, decided.reason


def _on_a_side_stream(trace):
    """The trace with call 1's forward run under `torch.cuda.stream(torch.cuda.Stream())`, never joined."""
    at = trace.index(["forward"]) + 1
    made = 1 + max([a[1] for e in trace if e[0] == "call" for a in e[2] + [e[3]]
                    if type(a) is list and a[:1] == ["h"]], default=-1)
    trace[at:at] = [["call", "cuda.Stream", [None, 0], ["h", made], 1, [], ["h", made]],
                    ["call", "cuda.stream", [["h", made]], ["h", made + 1], 1, [], ["h", made + 1]],
                    ["call", "StreamContext.__enter__", [["h", made + 1]], ["h", made], 1, [], ["h", made]]]


@pytest.mark.parametrize("change, why", [
    (lambda i: i["call_trace"].clear(), "the call trace does not show call 1's forward"),
    (lambda i: i["call_trace"].insert(i["call_trace"].index(["forward"]) + 1,
                                      ["call", "Stream.wait_stream", [["h", 99]], None, 1, [], None]),
     "no stream or event an earlier call made"),
    (lambda i: _on_a_side_stream(i["call_trace"]),
     "call 1: Volta's process finds a STREAM RACE from the candidate's call trace (`ExtensionModule"),
])
def test_a_call_trace_that_is_malformed_or_shows_a_race_is_rejected(honest_kernel, change, why):
    """The worker's report passes; Volta's process replays the call trace (calltrace.py) and does not agree."""
    report, instances = honest_kernel
    decided = _decide(report, _tampered(instances, change))
    assert decided.verdict == "rejected" and why in decided.reason, decided.reason


def test_the_honest_kernel_s_call_trace_shows_its_calls_and_its_extension_calls(honest_kernel):
    """Call 1's forward (`ext.leaky(x)` at line 32): the extension function's call, then the extension call it
    made (the first of the run's recorded host calls); calls 2 and 3 follow, each on its inputs (new handles;
    call 2's in call 1's input storage, which the harness reuses), with its own extension call."""
    _, instances = honest_kernel
    trace = instances[0]["call_trace"]
    forward = trace[trace.index(["forward"]) + 1:]
    ends = [k for k, e in enumerate(forward) if e[0] == "return"]
    assert [e[2] for e in forward if e[0] == "return"] == [0, 2, 3]
    first = forward[:ends[0] + 1]
    called = [e[1] for e in first if e[0] == "call"]
    assert called[-1].startswith("op:kernelbench/engine:ExtensionModule.__getattr__.<locals>.call@")
    assert first[-2][:4] == ["host", 0, 1, 32] and first[-1][0] == "return"
    later = [e for e in forward if e[0] == "forward"]
    assert [e[:2] for e in later] == [["forward", 2], ["forward", 3]]
    (_, n, shape, _, _, _, storage, found), = later[0][2]
    assert (storage, found) == (0, -1) and n > 0          # call 1's input storage (handle 0), reused
    assert [e[:3] for e in forward if e[0] == "host"] == [["host", 0, 1], ["host", 1, 2], ["host", 2, 3]]


def test_an_extension_the_build_cache_lacks_is_not_compiled_here_and_nothing_is_claimed(honest_kernel):
    """The recorded flags could name any program: Volta's process runs no compiler on them."""
    report, instances = honest_kernel
    decided = _decide(report, _tampered(instances, lambda i: _forged_source(i["extensions"]["integrity_leaky"])))
    assert decided.verdict == "unknown" and "is not in Volta's build cache" in decided.reason
    assert "runs no compiler on the candidate's sources and flags" in decided.reason


def test_a_memory_record_carries_the_storages_changed_since_the_last_and_a_replay_keeps_in_step():
    session = new_run().session
    memory, since = DeviceMemory(), {}
    a = session.allocate(np.array([E.var("x", 0), E.var("x", 1)], object), "f32")
    b = session.allocate(np.array([E.const(1)], object), "s32")
    memory.add(16 << 32, a, "x")
    memory.add(17 << 32, b)
    first = memory.changed(since)
    assert [(base >> 32, dtype, label) for base, dtype, label, _ in first] == [(16, "f32", "x"), (17, "s32", None)]
    assert memory.changed(since) == []
    a.values[1] = E.const(0)
    assert [(base >> 32, elements) for base, _, _, elements in memory.changed(since)] == [(16, [E.var("x", 0),
                                                                                                E.const(0)])]
    here = DeviceMemory()
    here.overlay(first, session.allocate)
    assert [list(s.values) for s in here.by_base.values()] == [[E.var("x", 0), E.var("x", 1)], [E.const(1)]]


def test_a_malformed_record_of_a_call_is_refused():
    record = {"module": "m", "fn": "f", "trace": [],
              "before": {"memory": [(1, "f32", None, [E.const(1)])], "symbols": {}},
              "after": {"memory": [(1, "f99", None, [E.const(1)])], "symbols": {}}}
    instance = _instance([E.const(1), E.const(2)])
    instance[0]["host_calls"] = [record]
    with pytest.raises(wire.Malformed, match="a call into an extension is malformed"):
        wire.read_evidence(wire.encode(instance))


def _copy(x):
    """New lists, dicts and tuples around the same (interned) expressions."""
    if isinstance(x, dict):
        return {k: _copy(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(v) for v in x)
    return x


def _tampered(instances, change):
    forged = _copy(instances)
    change(forged[0])
    return forged


def _output(inst, call=1):
    shape, dtype, returned, after = inst["calls"][call][0]
    return shape, dtype, returned, after


@pytest.mark.parametrize("change, why", [
    (lambda i: _output(i)[2].__setitem__(5, E.const(0)), "call 1: the outputs the worker sent differ"),
    (lambda i: _output(i, 3)[2].__setitem__(0, E.var("x@2", 0)), "call 3: the outputs the worker sent differ"),
    (lambda i: i["calls"].pop(3), "neither the later calls' outputs nor an evaluation"),
    (lambda i: i["calls"].pop(1), "sent no outputs of call 1"),
    (lambda i: i["inputs"]["x"].__setitem__(2, E.const(0)), "input `x`: 1 element(s) written by call 1"),
    (lambda i: i["inputs"].pop("x"), "no reading of input `x`"),
    (lambda i: _output(i, 1)[3].__setitem__(0, E.const(7)), "changed after it was returned (OUTPUT ALIASED)"),
    (lambda i: i["calls"][1].__setitem__(0, None), "non-tensor output"),
])
def test_a_claim_the_evidence_does_not_bear_is_rejected(honest, change, why):
    report, instances = honest
    decided = _decide(report, _tampered(instances, change))
    assert decided.verdict == "rejected" and why in decided.reason


def test_a_claim_with_the_evidence_of_fewer_runs_is_rejected(honest):
    report, _ = honest
    decided = _decide(report, [])
    assert decided.verdict == "rejected" and "and sent the evidence of 0" in decided.reason


def test_a_verdict_that_does_not_pass_is_not_re_decided(honest):
    report, instances = honest
    assert _decide({**report, "verdict": "not-equivalent", "exit_code": 1}, []).verdict is None


# ---- the expression table

ADD, CONST, VAR = int(E.ADD), int(E.CONST), int(E.VAR)


def _instance(elements, shape=(2,)):
    return [{"ragged": False, "answers": "", "calls": {1: [(shape, "f32", elements, None)]}, "inputs": {},
             "parameters": {}, "rounded": None, "extensions": {}, "host_calls": [], "call_trace": [["forward"]],
             "found": [], "forward_memory": None}]


class _Root:
    """Pickled as the persistent id ("e", k): the table's k-th root."""

    def __init__(self, k):
        self.k = k


class _RootPickler(pickle.Pickler):
    def persistent_id(self, obj):
        return ("e", obj.k) if isinstance(obj, _Root) else None


def _with_roots(obj) -> bytes:
    out = io.BytesIO()
    _RootPickler(out).dump(obj)
    return out.getvalue()


def _table(ops, arity, children, data, roots):
    return pickle.dumps((np.array(ops, np.int32).tobytes(), np.array(arity, np.int32).tobytes(),
                         np.array(children, np.int32).tobytes(), data, roots))


def test_a_well_formed_table_is_read_back_as_the_same_expressions():
    x0, x1 = E.var("x", 0), E.var("x", 1)
    frame = _table([VAR, VAR, ADD], [0, 0, 2], [0, 1], {0: ("x", 0), 1: ("x", 1)}, [2, 0]) + _with_roots(
        _instance([_Root(0), _Root(1)]))
    [inst] = wire.read_evidence(frame)
    assert inst["calls"][1][0][2] == [E.add(x0, x1), x0]


@pytest.mark.parametrize("table, message, why", [
    (([ADD, CONST], [2, 0], [1, 1], {1: 1}, [0]), None, "refers to itself or a later one"),      # child after parent
    (([CONST, ADD], [0, 3], [0, 0, 0], {0: 1}, [1]), None, "another arity than its operator"),
    (([CONST, ADD], [0, 2], [0, 7], {0: 1}, [1]), None, "refers to itself or a later one"),      # out of range
    (([CONST, ADD], [0, 2], [0, -1], {0: 1}, [1]), None, "refers to itself or a later one"),
    (([CONST], [0], [], {0: float("nan")}, [0]), None, "no plain value"),
    (([CONST], [0], [], {0: 1.5}, [0]), None, "constant that is no rational"),
    (([99], [0], [], {}, [0]), None, "an operator Volta has not"),
    (([CONST], [0], [], {0: 1}, [4]), None, "a root is no node"),
    (([CONST], [0, 0], [], {0: 1}, [0]), None, "arities do not match"),
    (([VAR], [0], [], {0: ("x", "0")}, [0]), None, "input leaf without (buffer, index)"),
    (([CONST], [0], [], {0: 1}, [0]), _instance([_Root(0)]), "an output is not (shape"),          # 1 of 2 elements
    (([CONST], [0], [], {0: 1}, [0]), [{"ragged": False}], "other fields"),
    (([CONST], [0], [], {0: 1}, [0]), _instance([1, 2]), "an output is not (shape"),              # not expressions
])
def test_a_forged_table_is_refused(table, message, why):
    frame = _table(*table) + _with_roots(message if message is not None else _instance([_Root(0)] * 2))
    with pytest.raises(wire.Malformed, match=re.escape(why)):
        wire.read_evidence(frame)


def test_a_frame_that_names_a_callable_is_refused_before_anything_is_made():
    frame = _table([CONST], [0], [], {0: 1}, [0]) + pickle.dumps(print)
    with pytest.raises(wire.Malformed, match="names builtins.print"):
        wire.read_evidence(frame)


def _huge(channel):
    channel.send_bytes(b"\0" * 4096)


def test_a_frame_past_the_limit_is_refused_unread():
    worker = process.Worker(_huge, process.Limits(seconds=20, memory=1 << 30))
    try:
        worker.ready()
        with pytest.raises(process.Ended, match="4,096 bytes") as ended:
            worker.receive_bytes("sending what the candidate computed", 1024)
        assert ended.value.verdict == "rejected"
    finally:
        worker.close()


@pytest.fixture(scope="module")
def honest_ragged():
    evidence = Evidence()
    report = check(PROBLEM, str(DATA / "honest.py"), {}, CheckOptions(ragged=True), evidence=evidence)
    data = json.loads(json.dumps(kernelbench_report.to_dict(report), default=str))
    return data, wire.read_evidence(wire.evidence_frame(evidence))


def test_the_ragged_run_is_decided_at_sizes_volta_s_process_derives(honest_ragged):
    report, instances = honest_ragged
    assert [i["ragged"] for i in instances] == [False, True]
    assert _decide(report, instances).runs == 2
    forged = _copy(instances)
    forged[1]["calls"][1][0][2][0] = E.const(0)
    decided = _decide(report, forged)
    assert decided.verdict == "rejected" and decided.reason.startswith("ragged sizes, call 1: the outputs")
    decided = _decide(report, instances[:1])
    assert decided.verdict == "rejected" and "at the ragged sizes and sent the evidence of 0" in decided.reason


def test_a_ragged_run_said_undecided_must_show_no_difference(honest_ragged):
    """A ragged run said UNKNOWN leaves the command at exit 0; a difference hidden there is found."""
    report, instances = honest_ragged
    claimed = {**report, "ragged": {**report["ragged"], "verdict": "unknown"}}
    assert _decide(claimed, instances).verdict is None
    forged = _copy(instances)
    forged[1]["calls"][1][0][2][0] = E.const(0)
    decided = _decide(claimed, forged)
    assert decided.verdict == "rejected" and decided.reason.startswith("ragged sizes, call 1: the outputs")
    assert _decide(claimed, instances[:1]).verdict == "rejected"          # and it sent its evidence


def test_a_difference_here_needs_an_input_a_float32_tensor_holds():
    """As the check's confirmation: a difference only beyond FLT_MAX is no difference of any tensor."""
    x = E.var("x", 0)
    confirm = verify._Evaluated(IntegerInputs.of({}))
    assert confirm(SimpleNamespace(model={x: 2 ** 200}), 0, 0, x, E.add(x, E.const(1))) is None
    assert "beyond float32's range" in confirm.refusal
    found = confirm(SimpleNamespace(model={x: 3}), 0, 0, x, E.add(x, E.const(1)))
    assert (found.ref_value, found.cand_value) == (3, 4)


# ---- call 1 decided before the later calls (confined._decide_first)

def test_call_1_found_equal_first_is_reused_only_for_the_same_elements(honest):
    """`settle` found call 1 equal before the later calls were made; `decide` takes that comparison for the
    outputs sent at the end only when they are the same (identical) elements: outputs changed since (here: the
    claim's call 1 now sends zeros) are compared again, and differ."""
    report, instances = honest
    at_call_1 = _tampered(instances, lambda i: [i["calls"].pop(c) for c in (2, 3)])[0]    # as the worker sends it
    settled = verify.settle(verify.reference(PROBLEM, {}, OPTIONS), {"verdict": "equivalent"}, at_call_1, OPTIONS)
    assert settled.verdict is None and settled.first is not None
    again = verify.decide(PROBLEM, {}, OPTIONS, report, instances, first=settled.first)
    assert (again.verdict, again.calls) == (None, 3)
    zeros = _tampered(instances, lambda i: i["calls"][1][0][2].__setitem__(slice(None), [E.const(0)] * len(
        i["calls"][1][0][2])))
    decided = verify.decide(PROBLEM, {}, OPTIONS, report, zeros, first=settled.first)
    assert decided.verdict == "rejected" and "call 1: the outputs the worker sent differ" in decided.reason


def test_a_run_kept_on_the_worker_s_word_for_a_triton_launch_is_still_refused_for_any_other_call():
    """`values._plan`: a Triton launch (the worker's word, with a note) before a call that takes a value the trace
    cannot carry: the pass is refused for the second (UNKNOWN), whichever comes first."""
    launch = ["call", "op:kernelbench/triton_launch:jit_runs_to.<locals>.run@167[launch]", [], None, 5, [], None]
    opaque = ["call", "op:kernelbench/tensor:SymTensor.__mul__@1", [["?"]], None, 6, [], None]
    for entries in ([launch, opaque], [opaque, launch]):
        with pytest.raises(value_replay.Unreplayable) as why:
            value_replay._plan(entries, {}, {})
        assert not why.value.kept and "call 1: `SymTensor.__mul__` at line 6" in str(why.value)
    with pytest.raises(value_replay.Unreplayable) as why:
        value_replay._plan([launch, ["forward", 2, []], launch], {}, {})
    assert why.value.kept and "call 1: `jit_runs_to.run[launch]` at line 5" in str(why.value)


def test_a_storage_is_read_as_a_parameter_only_when_it_holds_the_parameter_s_leaves_in_order():
    """`values._a_parameter`: a storage holding `w[0], w[1], ...` in order is the parameter (the replay renames
    it before call 3); a transposed or folded copy is not (renamed only under the report's stated assumption)."""
    w = [E.var("w", i) for i in range(4)]
    assert value_replay._a_parameter(np.array(w, dtype=object), {"w"})
    assert not value_replay._a_parameter(np.array([w[0], w[2], w[1], w[3]], dtype=object), {"w"})
    assert not value_replay._a_parameter(np.array([E.mul(w[0], E.const(2))] + w[1:], dtype=object), {"w"})
    assert not value_replay._a_parameter(np.array(w, dtype=object), {"v"})
    assert not value_replay._a_parameter(np.array([], dtype=object), {"w"})
