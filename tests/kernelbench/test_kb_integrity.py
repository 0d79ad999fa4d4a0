"""Verdict integrity: candidate code runs in a confined worker, and nothing it does reaches the verdict or Volta's
process (docs/sandbox.md). Each attack in data/integrity/ is REJECTED or UNSUPPORTED with its reason through
the CLI; Volta's process is unharmed after it, and a batch goes on with the next candidate."""
import builtins
import functools
import json
import os
import re
import select
import socket
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from volta.cli import run as cli
from volta.exec import limits
from volta.kernelbench import compare
from volta.kernelbench.check import CheckOptions, check
from volta.kernelbench.evidence import Evidence, ReferenceFacts
from volta.kernelbench.isolation import confined, guard, process, verify, wire
from volta.kernelbench.problem import Problem
from volta.kernelbench.tensor import SymTensor
from volta.report import kernelbench_report

DATA = Path(__file__).resolve().parent / "data" / "integrity"
PROBLEM = str(DATA / "problem.py")
BOUNDS = ["--timeout", "20", "--max-memory", "2G", "-q"]


def _check(candidate: str, *extra: str, capsys) -> tuple[int, dict]:
    code = cli(["kernelbench", PROBLEM, str(candidate), "--json", *BOUNDS, *extra])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def unharmed():
    """Volta's own process after an attack: every function and class attribute of its modules, `builtins`,
    its folder as they were before the test."""
    before, folder = guard.snapshot(), os.getcwd()
    yield
    assert guard.changed(before) is None
    assert compare.compare.__module__ == "volta.kernelbench.compare"
    assert SymTensor.__mul__.__module__ == "volta.kernelbench.tensor"
    assert builtins.__import__.__module__ == "builtins"
    assert os.getcwd() == folder


def test_the_honest_control_is_equivalent(capsys, unharmed):
    code, r = _check(DATA / "honest.py", capsys=capsys)
    assert (code, r["verdict"]) == (0, "equivalent")


def test_the_honest_kernel_is_equivalent_with_its_launches_replayed_in_volta_s_process(capsys, unharmed):
    code, r = _check(DATA / "kernel_honest.py", capsys=capsys)
    assert (code, r["verdict"]) == (0, "equivalent")
    assert any("3 extension call(s) (3 launch(es)) replayed on its own machine" in n for n in r["notes"])


@pytest.mark.parametrize("attack, tried", [
    ("patch_volta", "import volta.kernelbench.compare"),
    ("patch_torch", "replace volta.kernelbench.tensor.SymTensor.__mul__"),
    ("scan_gc", "scan the interpreter's heap (gc.get_objects)"),
    ("proc_mem", "open /proc/self/mem"),
    ("fork_bomb", "start or signal a process (os.fork)"),
    ("spawn", "start or signal a process (subprocess.Popen"),
    ("network", "use the network"),
    ("sys_exit", "raised SystemExit(0)"),
    ("interrupt", "raised KeyboardInterrupt"),
    ("os_exit", "ended the worker process (exit status 0"),
    ("exit_on_import", "ended the worker process (exit status 0"),
])
def test_an_attack_is_rejected_with_what_it_tried(attack, tried, capsys, unharmed):
    code, r = _check(DATA / f"{attack}.py", capsys=capsys)
    assert (code, r["verdict"], r["verdict_text"]) == (1, "rejected", "REJECTED")
    assert tried in r["unsupported"]["message"]


@pytest.mark.parametrize("attack, why", [
    ("forge_json", "the worker's report is not the difference confirmed"),
    ("forge_table", "a node of the table has another arity than its operator"),
    ("patch_machine", "the worker's machine left select((0 < x[0]), x[0], (1/4*x[0])) in `torch::empty#1` element "
                      "0, where Volta's own replay of the call computes (x[0] + x[0])"),
])
def test_a_candidate_that_forges_the_check_in_its_worker_is_rejected(attack, why, capsys, unharmed):
    """Volta's modules reached without an import or a heap scan (a function's __globals__, sys.modules) and
    patched so that the worker's comparison agrees, its report is concluded EQUIVALENT, its JSON says EQUIVALENT,
    or its evidence is forged, or the machine is wrapped so that its kernel (2x) leaves the reference's
    expressions, with the worker's check of Volta's code silenced (patch_machine is EQUIVALENT when the worker's
    word is taken): Volta's process decides from the outputs, and replays the launches, and does not agree.
    forge_json (zeros, its JSON rewritten to EQUIVALENT) was REJECTED from the whole second run's report; now its
    report of the difference Volta's process confirmed is not that difference."""
    code, r = _check(DATA / f"{attack}.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert _commuted(why) in _commuted(r["unsupported"]["message"])


@pytest.mark.slow   # 2.6 CPU s
def test_a_race_hidden_from_the_worker_s_stream_tracker_is_found_from_the_call_trace(capsys, unharmed):
    """patch_streams races on a side stream and replaces the worker's race finder (EQUIVALENT when the worker's
    word on streams is taken): Volta's process replays the candidate's call trace and finds the race."""
    code, r = _check(DATA / "patch_streams.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert "Volta's process finds a STREAM RACE from the candidate's call trace" in r["unsupported"]["message"]
    assert "at line 19 on stream" in r["unsupported"]["message"]


@pytest.mark.parametrize("attack, computes", [("write_after_extension", "(x[0] + x[0])"),
                                               ("patch_stand_in_op", "(2*x[0])")])
def test_values_the_candidate_s_python_forges_in_the_stand_in_are_rejected_by_the_value_replay(attack, computes,
                                                                                              capsys, unharmed):
    """write_after_extension writes a stand-in tensor's elements directly after its extension (2x) returned;
    patch_stand_in_op swaps `mul` in the method table every tensor shares for the reference's expression. On a
    GPU both compute 2x; the outputs the worker sends are the reference's (EQUIVALENT before the value replay).
    Volta's process replays call 1's top-level calls on its own stand-in (the extension's trace on its own
    machine, `x * 2` with its own `mul`): its outputs are 2x, the worker's are not: REJECTED, naming both. (Not
    NOT EQUIVALENT: the worker's outputs equal the reference's, so no difference is found to confirm; the
    contradiction between the worker's outputs and the replay's is what is found.)"""
    code, r = _check(DATA / f"{attack}.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    message = _commuted(r["unsupported"]["message"])
    assert _commuted("call 1: output 0 element 0 is select((0 < x[0]), x[0], (1/4*x[0])) in the outputs the worker "
                     "sent") in message
    assert _commuted(f"where Volta's replay of the candidate's calls computes {computes}") in message


def _commuted(text: str) -> str:
    """text with each product of a constant and x[0] (or x@2[0]) written constant first: a product's arguments
    print in the order its nodes were made, which depends on what the test worker's process made before."""
    return re.sub(r"\((x(?:@[0-9])?\[0\])\*([0-9/]+)\)", r"(\2*\1)", text)


def test_a_parameter_written_directly_in_forward_and_put_back_is_rejected_by_the_value_replay(capsys, unharmed):
    """write_parameter writes the parameter's elements directly (no torch call) between its torch ops, so that
    `x + scale` gives the reference's x * scale, and puts them back before returning: on a GPU it computes
    x + scale. The parameter reads unwritten after call 1 and the outputs the worker sends are the reference's
    (EQUIVALENT before the value replay); Volta's process takes the parameter as it was when forward began, and
    its replay of `x + self.scale` computes x + scale: REJECTED. Its honest control passes through the replay."""
    problem = str(DATA / "problem_scale.py")
    code = cli(["kernelbench", problem, str(DATA / "honest_scale.py"), "--json", *BOUNDS])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (0, "equivalent")
    assert any("each forward call's values replayed here from the candidate's calls in 1 run(s)" in n
               for n in r["notes"])
    code = cli(["kernelbench", problem, str(DATA / "write_parameter.py"), "--json", *BOUNDS])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (1, "rejected")
    assert ("where Volta's replay of the candidate's calls computes (x[0] + scale[0])"
            in r["unsupported"]["message"])


def test_a_forger_that_starts_and_joins_a_thread_first_is_rejected_by_the_value_replay(capsys, unharmed):
    """patch_stand_in_op with a thread started and joined first: the thread's start and join are replayed (they
    change no value), and `x * 2` after them gives 2x in Volta's process (EQUIVALENT on the worker's word
    before threads were replayed)."""
    code, r = _check(DATA / "patch_stand_in_op_unreplayed.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert "where Volta's replay of the candidate's calls computes (2*x[0])" in r["unsupported"]["message"]


def test_a_forgery_made_inside_a_joined_thread_s_target_is_rejected_by_the_value_replay(capsys, unharmed):
    """thread_forge makes the forgery in the thread's target: the target's calls, made at the join, are
    recorded as top-level calls and replayed here."""
    code, r = _check(DATA / "thread_forge.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert "where Volta's replay of the candidate's calls computes (2*x[0])" in r["unsupported"]["message"]


def test_a_thread_left_running_whose_finding_the_worker_lost_is_rejected_from_the_call_trace(capsys, unharmed):
    """thread_left_running empties the worker's list of pending threads: the worker's report passes it, and
    Volta's process, which sees a start and no join in the call trace, finds the thread running at return."""
    code, r = _check(DATA / "thread_left_running.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert "the thread started at line 23 is still running when forward returns" in r["unsupported"]["message"]


def test_an_honest_candidate_that_computes_in_a_joined_thread_is_replayed_and_equivalent(capsys, unharmed):
    """honest_thread: a torch function as the thread's target (called by `Thread.run`, not by the candidate's
    code), `is_alive` observed, the thread joined: every call replayed here."""
    code, r = _check(DATA / "honest_thread.py", capsys=capsys)
    assert (code, r["verdict"]) == (0, "equivalent")
    assert any("each forward call's values replayed here from the candidate's calls in 1 run(s)" in n
               for n in r["notes"])


def test_clock_reads_are_replayed_and_a_forger_behind_them_is_rejected(capsys, unharmed):
    """A clock of the candidate's `time` touches no tensor: the replay skips it and replays the rest, so the
    honest timer is EQUIVALENT with its values replayed, and the forger that reads a clock first is REJECTED
    (EQUIVALENT on the worker's word before)."""
    code, r = _check(DATA / "honest_clock.py", capsys=capsys)
    assert (code, r["verdict"]) == (0, "equivalent")
    assert any("each forward call's values replayed here from the candidate's calls in 2 run(s)" in n
               for n in r["notes"])
    code, r = _check(DATA / "clock_then_forge.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert "where Volta's replay of the candidate's calls computes (2*x[0])" in r["unsupported"]["message"]


def test_a_pass_whose_values_volta_cannot_replay_is_unknown_naming_the_call(capsys, unharmed):
    """callable_then_forge passes a callable to `torch.compile` (a value the call trace cannot carry) before its
    forgery: the worker's values are not replayed, and the pass they claim is UNKNOWN naming the call and its
    line (EQUIVALENT on the worker's word before)."""
    code, r = _check(DATA / "callable_then_forge.py", capsys=capsys)
    assert (code, r["verdict"]) == (3, "unknown")
    assert ("call 1: `_identity_decorator` at line 10 takes a value the call trace does not carry"
            in r["unsupported"]["message"])
    assert "a pass would rest on the worker's word" in r["unsupported"]["message"]


def test_state_across_calls_forged_in_the_later_calls_is_rejected_by_their_value_replay(capsys, unharmed):
    """state_forge is honest on call 1 and forges calls 2 and 3 (the method table patched): every call's values
    are replayed here, so call 2 is REJECTED (EQUIVALENT on the worker's word when only call 1 was replayed);
    honest_state keeps a workspace on the module across calls and passes through the same replay."""
    code, r = _check(DATA / "honest_state.py", capsys=capsys)
    assert (code, r["verdict"]) == (0, "equivalent")
    assert any("each forward call's values replayed here from the candidate's calls in 1 run(s)" in n
               for n in r["notes"])
    code, r = _check(DATA / "state_forge.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert "call 2: output 0 element 0" in r["unsupported"]["message"]
    assert "where Volta's replay of the candidate's calls computes (2*x@2[0])" in r["unsupported"]["message"]


def test_an_input_kept_past_its_call_reads_stale_values_in_the_replay_as_on_a_gpu(capsys, unharmed):
    """stale_global_input keeps call 1's input in a module global and computes call 2 from it: the worker hands
    call 1's input storage to call 2's input (the module holds nothing of it), so the kept tensor reads call 2's
    values there (EQUIVALENT before); Volta's replay gives call 2's input a new storage, as a GPU whose
    allocator cannot reuse a live tensor's memory does, and the kept tensor computes call 1's values: REJECTED."""
    code, r = _check(DATA / "stale_global_input.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    message = _commuted(r["unsupported"]["message"])
    assert "call 2: output 0 element 0 is select((0 < x@2[0]), x@2[0], (1/4*x@2[0])) in the outputs" in message
    assert "computes select((0 < x[0]), x[0], (1/4*x[0]))" in message


def test_a_copy_kept_current_by_direct_writes_after_the_parameter_change_is_rejected(capsys, unharmed):
    """param_cache_forge multiplies by a copy of the parameter made on call 1 and kept current by writing its
    elements directly: Volta's process changes the parameters before call 3 as the harness does, and its replay
    of call 3 multiplies by the stale copy: REJECTED (EQUIVALENT on the worker's word before). honest_scale
    reads the parameter itself on each call and passes."""
    problem = str(DATA / "problem_scale.py")
    code = cli(["kernelbench", problem, str(DATA / "honest_scale.py"), "--json", *BOUNDS])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (0, "equivalent")
    code = cli(["kernelbench", problem, str(DATA / "param_cache_forge.py"), "--json", *BOUNDS])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (1, "rejected")
    message = r["unsupported"]["message"]       # (a product's arguments print in the order its nodes were made)
    assert re.search(r"call 3: output 0 element 0 is \((scale@3\[0\]\*x@3\[0\]|x@3\[0\]\*scale@3\[0\])\) in the "
                     r"outputs the worker sent, where Volta's replay of the candidate's calls computes "
                     r"\((scale\[0\]\*x@3\[0\]|x@3\[0\]\*scale\[0\])\)", message), message


@pytest.mark.xfail(strict=True, reason="open (issue 36): a run with a CUDA graph or a Triton launch from Python keeps "
                                       "the worker's values (docs/sandbox.md, \"What stays the worker's word\")")
def test_a_forger_that_adds_a_cuda_graph_is_not_equivalent(capsys, unharmed):
    """graph_then_forge captures an empty CUDA graph before its forgery: the value replay does not reproduce a
    graph, the run's values stay the worker's word (the note names the call), and the forgery passes."""
    code, r = _check(DATA / "graph_then_forge.py", capsys=capsys)
    assert any("forward's values NOT replayed here (the worker's word)" in n and "CUDAGraph.__init__` at line 11"
               in n for n in r["notes"])
    assert r["verdict"] != "equivalent" and code != 0


def test_an_honest_candidate_that_catches_a_torch_error_is_replayed_and_equivalent(capsys, unharmed):
    """A call that raised in the worker (and the candidate caught) is one the replay expects to raise."""
    code, r = _check(DATA / "honest_try_except.py", capsys=capsys)
    assert (code, r["verdict"]) == (0, "equivalent")
    assert any("each forward call's values replayed here from the candidate's calls in 1 run(s)" in n
               for n in r["notes"])


def test_turning_off_the_trace_function_the_call_trace_records_through_is_refused(capsys, unharmed):
    code, r = _check(DATA / "untrace.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert "replace the interpreter's trace function (sys.settrace" in r["unsupported"]["message"]


@pytest.mark.parametrize("attack", ["forge_comparison", "forge_report", "copy_reference_or_zeros", "hunt_reference"])
def test_a_forger_or_copier_that_computes_zeros_is_not_equivalent_with_a_confirmed_witness(attack, capsys, tmp_path,
                                                                                             unharmed):
    """The worker's comparison or report patched to agree (forge_comparison, forge_report), or the reference's
    outputs hunted up the stack or in module globals, zeros when none is found (copy_reference_or_zeros,
    hunt_reference). The candidate's run has no reference in its process and its worker compares nothing: Volta's
    process compares its zeros with the reference run there, and confirms the difference by re-running the
    candidate concretely in its worker (still zeros: nothing to copy there either). NOT EQUIVALENT with a witness
    that replays; before, these ran a whole second check with the reference in the worker and were REJECTED."""
    saved = tmp_path / "cex.npz"
    code, r = _check(DATA / f"{attack}.py", "--save-counterexample", str(saved), capsys=capsys)
    assert (code, r["verdict"]) == (1, "not-equivalent")
    cex = r["counterexample"]
    assert cex["cand_value"] == "0" and cex["ref_value"] not in ("0", confined.REFERENCE_SLOT)
    assert confined.CONFIRMED in r["notes"] and cex["file"] == str(saved)
    code = cli(["kernelbench", PROBLEM, str(DATA / f"{attack}.py"), *BOUNDS])
    text = capsys.readouterr().out
    assert code == 1 and text.startswith("NOT EQUIVALENT") and confined.REFERENCE_SLOT not in text
    assert "reference = " in text and "candidate = 0" in text
    assert set(np.load(saved).files) >= {"x"}


def test_a_candidate_different_at_call_1_makes_no_later_call(capsys, unharmed):
    """Volta's process decides call 1 before the worker makes calls 2 and 3, and stops it there: forward runs
    for call 1 and once more for the concrete re-run that confirms the difference (four times when the later
    calls ran first)."""
    code, r = _check(DATA / "wrong_counted.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "not-equivalent")
    assert r["candidate_output"].count("forward ran") == 2


def test_a_candidate_that_copies_the_reference_s_outputs_raises_where_there_are_none(capsys, unharmed):
    """The reference's outputs looked for up the stack (a heap scan is refused by the audit hook) and copied: the
    candidate's run has no reference in its process (Volta's process runs it), so its copy raises there, and
    that is its verdict: CANDIDATE RAISED, exit 3 (before, the whole check ran again in a fresh worker, where
    the copy agreed, and that was REJECTED)."""
    code, r = _check(DATA / "copy_reference.py", capsys=capsys)
    assert (code, r["verdict"], r["verdict_text"]) == (3, "unsupported", "CANDIDATE RAISED")
    assert r["raised"]["type"] == "TypeError"


def test_a_copier_checked_again_whole_is_rejected_where_only_the_whole_check_passes_it(capsys, unharmed):
    """With --ragged a difference in the run without the reference is not confirmed by request (docs/sandbox.md,
    "Two runs"): the whole check runs in a fresh worker with the reference, where copy_reference_or_zeros finds
    the reference's outputs and agrees; a pass there after none without the reference is REJECTED
    (`confined.ONLY_WITH_REFERENCE`), or, where Volta's process replays that run's call 1 first, because the
    tensor the candidate clones was held before its forward began and mentions the input (no constructor
    computes from an input)."""
    code, r = _check(DATA / "copy_reference_or_zeros.py", "--ragged", capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    message = r["unsupported"]["message"]
    assert ((message.startswith(confined.ONLY_WITH_REFERENCE) and "the outputs the worker sent differ" in message)
            or "call 1: `SymTensor.clone` at line 14: a tensor held before forward began mentions an input (x[0])"
            in message)


@pytest.mark.slow   # spins to its 8 s --timeout by design
def test_a_candidate_that_copies_the_reference_or_else_stalls_is_unsupported_past_the_time_limit(capsys, unharmed):
    """Where the run without the reference stops at --timeout, that run is the verdict (the whole check, which
    has the reference to copy, is not run): UNSUPPORTED, never EQUIVALENT."""
    code = cli(["kernelbench", PROBLEM, str(DATA / "copy_reference_or_stall.py"), "--json", "--timeout", "8", "-q"])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (3, "unsupported")
    assert "ran out" in r["unsupported"]["message"]


def test_the_candidate_s_first_run_never_computes_the_reference(monkeypatch, tmp_path):
    """`check(..., reference=...)` (the worker's first run): Model.forward is never called, the precision
    formats come from the facts given, and the claim is decided in Volta's process from the evidence alone."""
    def refused(self):
        raise AssertionError("the reference ran in the candidate's run")

    evidence = Evidence()
    with monkeypatch.context() as m:
        m.setattr(Problem, "reference_outputs", refused)
        report = check(PROBLEM, str(DATA / "honest.py"), evidence=evidence,
                       reference=lambda: ReferenceFacts(("f32",), ()))
    assert report.exit_code == 0 and report.comparison.compared == 0
    assert sorted(evidence.instances[0].calls) == [1, 2, 3]
    instances = wire.read_evidence(wire.evidence_frame(evidence))
    claim = json.loads(json.dumps(kernelbench_report.to_dict(report), default=str))
    decided = verify.decide(PROBLEM, {}, CheckOptions(), claim, instances)
    assert decided.verdict is None and decided.calls == 3
    assert decided.compared[0]["calls"]["1"]["compared"] == 256


def test_the_first_run_s_difference_is_confirmed_by_re_running_the_candidate_it_holds():
    """`check(..., held=...)` keeps the candidate loaded: a difference Volta's process finds in call 1 (zeros:
    nothing to copy) is the verdict "differs" with the output's shape, and the held candidate re-run concretely
    on the input found gives its own value there, not the reference's."""
    evidence, held = Evidence(), []
    report = check(PROBLEM, str(DATA / "copy_reference_or_zeros.py"), evidence=evidence,
                   reference=lambda: ReferenceFacts(("f32",), ()), held=held)
    try:
        assert report.exit_code == 0 and len(held) == 1
        claim = json.loads(json.dumps(kernelbench_report.to_dict(report), default=str))
        instances = wire.read_evidence(wire.evidence_frame(evidence))
        decided = verify.decide(PROBLEM, {}, CheckOptions(), claim, instances, confirm=True)
        d = decided.differs.difference
        assert decided.verdict == "differs" and d.shape == (4, 64) and d.ref_value != 0
        assert held[0].value(d.inputs, d.output, d.index) == 0
    finally:
        held[0].close()


def test_a_first_run_that_raised_stands_once_volta_s_process_settled_it():
    """A report that does not pass (the copy raised: no call 1) is settled in Volta's process: no input written,
    no call to compare; it stands as it is (no counts to send)."""
    evidence = Evidence()
    report = check(PROBLEM, str(DATA / "copy_reference.py"), evidence=evidence,
                   reference=lambda: ReferenceFacts(("f32",), ()))
    claim = json.loads(json.dumps(kernelbench_report.to_dict(report), default=str))
    assert claim["verdict"] == "unsupported" and claim["raised"]["type"] == "TypeError"
    inst, = wire.read_evidence(wire.evidence_frame(evidence))
    assert inst["calls"] == {} and sorted(inst["inputs"]) == ["x"]
    decided = verify.settle(verify.reference(PROBLEM, {}, CheckOptions()), claim, inst, CheckOptions())
    assert (decided.verdict, decided.compared) == (None, [{}])
    inst["inputs"]["x"] = [0] * len(inst["inputs"]["x"])       # as if it had zeroed its input before raising
    decided = verify.settle(verify.reference(PROBLEM, {}, CheckOptions()), claim, inst, CheckOptions())
    assert decided.verdict == "whole" and "input `x`" in decided.reason


@pytest.mark.slow   # spins to its 8 s --timeout by design
def test_a_loop_that_never_ends_is_unsupported_past_the_time_limit(capsys, unharmed):
    code = cli(["kernelbench", PROBLEM, str(DATA / "loop_forever.py"), "--json", "--timeout", "8", "-q"])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (3, "unsupported")
    assert "ran out" in r["unsupported"]["message"] or "time limit" in r["unsupported"]["message"]


@pytest.mark.slow   # waits out its 8 s --timeout and the 10 s margin by design
def test_a_candidate_that_ignores_the_timer_is_killed_past_the_time_limit(capsys, unharmed):
    code = cli(["kernelbench", PROBLEM, str(DATA / "ignore_timeout.py"), "--json", "--timeout", "8", "-q"])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (3, "unsupported")
    assert "ran past the time limit" in r["unsupported"]["message"]
    assert "EQUIVALENT" not in r["candidate_output"]          # killed: no exit handler runs


def _chunk_seconds() -> float:
    """What one chunk of slow_then_zeros.py's host loop takes on this machine now (the fastest of five)."""
    times = []
    for _ in range(5):
        start = time.perf_counter()
        sum(range(1_000_000))
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.slow   # runs to its 16 s --timeout by design
def test_one_deadline_bounds_the_whole_command_and_its_json_report_is_printed(capsys, tmp_path, unharmed):
    """The first run (without the reference) takes most of --timeout in the candidate's host loop, and its
    difference (with --ragged) sends the candidate to the whole check in a fresh worker, which needs as long again:
    it gets only what is left, runs out, and the command still prints its JSON report, UNSUPPORTED naming the
    stage, within --timeout plus MARGIN_SECONDS (docs/sandbox.md, Time). With --timeout given afresh to each stage
    the whole check finished: NOT EQUIVALENT after about twice as long."""
    timeout = 16
    chunks = int(0.375 * timeout / _chunk_seconds())       # each run of the candidate (and its ragged run) loops
    candidate = tmp_path / "slow_then_zeros.py"
    candidate.write_text((DATA / "slow_then_zeros.py").read_text().replace("CHUNKS = 300", f"CHUNKS = {chunks}"))
    start = time.monotonic()
    code = cli(["kernelbench", PROBLEM, str(candidate), "--ragged", "--json", "--timeout", str(timeout), "-q"])
    wall = time.monotonic() - start
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) in ((3, "unsupported"), (3, "unknown")), r
    assert "ran out" in r["unsupported"]["message"]
    assert any(n.startswith("what ran out of --timeout: ") for n in r["notes"]) or "before" in r["unsupported"][
        "message"], r["notes"]
    assert wall <= timeout + confined.MARGIN_SECONDS


def test_a_stage_that_starts_with_nothing_left_is_not_started(monkeypatch):
    """Past the command's deadline no worker is started: UNKNOWN naming the stage, with a report in every
    format."""
    def refused(*args, **kwargs):
        raise AssertionError("a worker was started past the deadline")

    monkeypatch.setattr(process, "Worker", refused)
    with limits.using(timeout=60) as lim:
        lim.deadline = time.monotonic() - 1
        answer = confined.run(PROBLEM, str(DATA / "honest.py"), {}, CheckOptions())
    assert (answer.verdict, answer.exit_code) == ("unknown", 3)
    assert answer.report["unsupported"]["message"].startswith(
        "--timeout 60 s ran out before starting the candidate's worker")
    assert answer.report["notes"] == [confined.OUT_OF_TIME]
    assert json.loads(answer.rendered["json"])["verdict"] == "unknown" and "UNKNOWN" in answer.rendered["text"]


def test_a_stage_in_volta_s_process_gets_what_is_left_and_names_itself_when_it_runs_out():
    """`_stage` gives the stage the command's deadline, not --timeout afresh: a stage running past it ends with
    OutOfTime naming it (UNKNOWN)."""
    with limits.using(timeout=60) as lim:
        lim.deadline = time.monotonic() + 0.2
        job = confined._Job(("p", "c"), ("p", "c"), ".", {}, CheckOptions(), False, lim)
        with pytest.raises(confined.OutOfTime, match="ran out while deciding something") as out:
            with confined._stage(job, "deciding something"):
                assert limits.current().deadline == lim.deadline
                while True:
                    time.sleep(0.01)
        assert out.value.verdict == "unknown"


def test_a_50_gb_allocation_is_unsupported_out_of_memory(capsys, unharmed):
    code, r = _check(DATA / "allocate.py", capsys=capsys)
    assert (code, r["verdict"]) == (3, "unsupported")
    assert "memory" in r["unsupported"]["message"]


def test_a_printed_verdict_is_shown_as_the_candidates_output_and_never_read(capsys, unharmed):
    code, r = _check(DATA / "fake_verdict.py", capsys=capsys)
    assert (code, r["verdict"]) == (1, "not-equivalent")
    assert '"verdict": "equivalent"' in r["candidate_output"]
    code = cli(["kernelbench", PROBLEM, str(DATA / "fake_verdict.py"), *BOUNDS])
    text = capsys.readouterr().out
    assert code == 1 and text.startswith("NOT EQUIVALENT") and "| EQUIVALENT: ModelNew vs Model" in text


def test_a_write_to_the_report_path_is_refused_and_the_report_is_volta_s(tmp_path, capsys, unharmed):
    report = tmp_path / "cex.npz"
    source = (DATA / "write_report.py").read_text().replace(
        'os.path.join(os.path.dirname(os.path.abspath(__file__)), "REPORT_NAME")', repr(str(report)))
    candidate = tmp_path / "write_report.py"
    candidate.write_text(source)
    code, r = _check(candidate, "--save-counterexample", str(report), capsys=capsys)
    assert (code, r["verdict"]) == (1, "rejected")
    assert f"write {report}" in r["unsupported"]["message"]
    assert not report.exists()


def test_a_batch_goes_on_after_an_attack(tmp_path):
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text("\n".join(json.dumps({"id": name, "problem": PROBLEM, "candidate": str(DATA / f"{name}.py")})
                              for name in ("os_exit", "scan_gc", "honest")) + "\n")
    out = tmp_path / "out.jsonl"
    cli(["batch", str(jobs), "--workers", "1", "--out", str(out), "--timeout", "120", "-q"])
    results = {r["id"]: (r["verdict"], r["exit_code"]) for r in map(json.loads, out.read_text().splitlines())}
    assert results == {"os_exit": ("rejected", 1), "scan_gc": ("rejected", 1), "honest": ("equivalent", 0)}


# ---- what comes back over the pipe

def _answer(**changes) -> dict:
    """A well-formed worker answer (an honest not-equivalent report), with `changes` to its report."""
    report = {"schema": "volta.kernelbench/1", "verdict": "not-equivalent", "exit_code": 1, "notes": [],
              "counterexample": None, "ragged": None, "sizes": [{"name": "n", "value": 4}], "parameters": [],
              "findings": [], "hack_findings": [], "stats": {"reference_seconds": 0.1}, **changes}
    return {"report": report, "rendered": {"text": "NOT EQUIVALENT", "sarif": "{}", "junit": "<testsuites/>"},
            "exit_code": report["exit_code"]}


def test_a_well_formed_answer_is_accepted():
    assert confined._validated(_answer()).verdict == "not-equivalent"


@pytest.mark.parametrize("answer, why", [
    (_answer(verdict="equivalent"), "does not follow from the verdict"),       # equivalent with exit 1
    ({**_answer(), "exit_code": 0}, "does not follow from the verdict"),
    (_answer(verdict="rejected"), "is not one a check gives"),                 # only the parent says rejected
    (_answer(verdict="EQUIVALENT", exit_code=0), "is not one a check gives"),
    ({**_answer(), "exit_code": 7}, "is not 0, 1 or 3"),
    ({**_answer(), "exit_code": True}, "is not 0, 1 or 3"),
    (_answer(schema="other"), "not a volta.kernelbench/1"),
    ({**_answer(), "rendered": {"text": 1, "sarif": "{}", "junit": "<a/>"}}, "strings"),
    ({**_answer(), "rendered": {"text": "", "sarif": "not json", "junit": "<a/>"}}, "does not parse"),
    ({**_answer(), "extra": 1}, "not a {report"),
    ([1, 2], "not a {report"),
    (_answer(counterexample="file"), "counterexample are malformed"),
    (_answer(notes=[1]), "notes or counterexample"),
    (_answer(sizes=[{"name": 3}]), "sizes, parameters"),
    (_answer(findings="none"), "sizes, parameters"),
    (_answer(stats={"x": "1"}), "sizes, parameters"),
])
def test_a_forged_or_malformed_answer_is_refused(answer, why):
    with pytest.raises(confined.Malformed, match=re.escape(why)):
        confined._validated(answer)


def test_a_saved_counterexample_is_copied_only_as_numeric_arrays(tmp_path):
    good, bad, target = tmp_path / "good.npz", tmp_path / "bad.npz", tmp_path / "out.npz"
    np.savez(good, x=np.arange(4.0))
    np.savez(bad, x=np.array([{"a": 1}], dtype=object), volta=np.array("{}"))
    assert confined._copy_witness(str(bad), str(target)) is not None and not target.exists()
    assert confined._copy_witness(str(good), str(target)) is None
    assert np.load(target)["x"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_volta_code_acting_is_not_the_candidate():
    assert guard.culprit(sys._getframe()) == __file__     # a test file is neither Volta nor the library
    assert guard.refusal("open", ("/tmp/x", "r", 0), "/tmp/box") is None
    assert guard.refusal("open", ("/tmp/x", "w", 0), "/tmp/box").startswith("write /tmp/x")
    assert guard.refusal("open", ("/tmp/box/out.txt", "w", 0), "/tmp/box") is None
    assert guard.refusal("open", ("/proc/1/mem", "r", 0), "/tmp/box").startswith("open /proc/1/mem")


def test_the_worker_has_no_network_where_the_os_allows_a_namespace():
    """The job connects (from library code, which the audit hook lets pass) to a socket Volta's process listens
    on: in a new network namespace the loopback is another one, down, and nothing arrives."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        worker = process.Worker(functools.partial(socket.create_connection, ("127.0.0.1", port), 2),
                                process.Limits(seconds=20, memory=1 << 30))
        try:
            missing = worker.ready()
            with pytest.raises(process.Ended):
                worker.receive("connecting")
        finally:
            worker.close()
        arrived = bool(select.select([server], [], [], 0.2)[0])
    if missing:
        assert "no network or PID namespace" in missing[0]
        pytest.skip(missing[0])
    assert not arrived


def _spin(channel):
    while True:
        pass


def test_the_parent_kills_a_worker_past_its_wall_clock_limit():
    worker = process.Worker(_spin, process.Limits(seconds=2, memory=1 << 30))
    try:
        worker.ready()
        with pytest.raises(process.Ended, match="ran past the time limit") as ended:
            worker.receive("spinning")
        assert ended.value.verdict == "unsupported"
    finally:
        worker.close()
    with pytest.raises(ProcessLookupError):
        os.kill(worker.pid, 0)


def test_the_python_door_runs_the_worker_too(unharmed):
    import volta

    r = volta.kernelbench(PROBLEM, DATA / "os_exit.py")
    assert (r.verdict, r.exit_code, r.ok) == ("rejected", 1, False)
    assert r.report().startswith("REJECTED") and json.loads(r.report("json"))["verdict"] == "rejected"
    assert volta.kernelbench(PROBLEM, DATA / "honest.py").verdict == "equivalent"
