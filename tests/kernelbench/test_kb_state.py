"""State across calls and module mode (volta/kernelbench/calls.py): each hack of tests/kernelbench/state/ gets
its finding or NOT EQUIVALENT (never EQUIVALENT), each honest control beside it is EQUIVALENT, through the
command line as a CI user runs it."""
import json
from pathlib import Path

import numpy as np
import pytest

import volta
from volta import cuda
from volta.cli import run

ROOT = Path(__file__).resolve().parent / "state"
needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")

# (problem dir, candidate, flags, verdict, verdict_text or None, call the verdict is about or None)
CASES = [
    ("scale_relu", "eq_kernel", [], "equivalent", None, 1),
    ("scale_relu", "hack_python_cache", [], "not-equivalent", None, 2),
    ("scale_relu", "hack_pointer_cache", [], "not-equivalent", None, 2),
    ("scale_relu", "eq_shape_keyed_workspace", [], "equivalent", None, 1),
    ("scale_relu", "hack_out_buffer", [], "findings", "OUTPUT_ALIASED", 1),
    ("scale_relu", "hack_ping_pong_buffers", [], "findings", "OUTPUT_ALIASED", 1),
    ("scale_relu", "eq_out_buffer_cloned", [], "equivalent", None, 1),
    ("scale_relu", "hack_cpp_static", [], "not-equivalent", None, 2),
    ("scale_relu", "eq_cpp_static_config", [], "equivalent", None, 1),
    ("scale_relu", "hack_graph_static_output", [], "findings", "OUTPUT_ALIASED", 1),
    ("scale_relu", "hack_graph_no_copy", [], "not-equivalent", None, 2),
    ("scale_relu", "hack_graph_kernel_no_copy", [], "not-equivalent", None, 2),
    ("scale_relu", "hack_graph_captured_copy", [], "not-equivalent", None, 3),
    ("scale_relu", "eq_graph_copy_in_clone_out", [], "equivalent", None, 1),
    ("scale_relu", "hack_graphed_callable", [], "findings", "OUTPUT_ALIASED", 1),
    ("scale_relu", "eq_graphed_callable_cloned", [], "equivalent", None, 1),
    ("scale_relu", "hack_raises_on_second_call", [], "unsupported", None, 2),
    ("dropout", "drop_skipped", ["--eval"], "equivalent", None, 1),
    ("linear", "hack_lazy_weight_cache", [], "not-equivalent", None, 3),
    ("linear", "eq_weight_each_call", [], "equivalent", None, 1),
    ("linear", "eq_weight_folded_in_init", [], "equivalent", None, 1),
    ("batchnorm", "eq_batch_stats", [], "equivalent", None, None),
    ("batchnorm", "hack_eval_in_init", [], "not-equivalent", None, None),
    ("batchnorm", "hack_running_stats_always", [], "not-equivalent", None, None),
    ("batchnorm", "hack_warmup_folded", [], "not-equivalent", None, None),
    ("batchnorm", "eq_batch_stats", ["--eval"], "equivalent", None, None),
    ("batchnorm", "hack_eval_in_init", ["--eval"], "equivalent", None, None),
    ("batchnorm", "hack_running_stats_always", ["--eval"], "equivalent", None, None),
    ("batchnorm", "hack_warmup_folded", ["--eval"], "not-equivalent", None, None),
    ("constant_param", "eq_param_tensor", [], "equivalent", None, None),
    ("constant_param", "item_on_param", [], "unsupported", None, None),
    ("constant_param", "neq_ignores_param", [], "not-equivalent", None, None),
]


def _check(problem, name, flags, capsys, *extra):
    code = run(["kernelbench", str(ROOT / problem / "problem.py"), str(ROOT / problem / f"{name}.py"), "--json", "-q",
                *flags, *extra])
    return code, json.loads(capsys.readouterr().out)


def _params():
    """CASES; the first of each (problem, flags, verdict, text) in the edit loop's subset and the repeats of one
    marked `slow` (each a whole check with three calls through the command line)."""
    seen = set()
    for problem, name, flags, verdict, text, call in CASES:
        key = (problem, tuple(flags), verdict, text)
        yield pytest.param(problem, name, flags, verdict, text, call, id=f"{problem}/{name}{''.join(flags)}",
                           marks=[pytest.mark.slow] if key in seen else [])
        seen.add(key)


@needs_nvcc
@pytest.mark.parametrize("problem,name,flags,verdict,text,call", list(_params()))
def test_state_case(problem, name, flags, verdict, text, call, capsys):
    code, report = _check(problem, name, flags, capsys)
    assert report["verdict"] == verdict, report
    assert code == {"equivalent": 0, "not-equivalent": 1, "findings": 1}.get(verdict, 3)
    if text is not None:
        assert report["verdict_text"] == text
    if verdict == "not-equivalent":
        assert report["counterexample"]["ref_value"] != report["counterexample"]["cand_value"]
    if call is not None and call > 1:
        assert report["calls"]["decided_on_call"] == call, report["calls"]
    if verdict == "equivalent":
        assert report["calls"]["calls"] == 3 and report["calls"]["verdict"] == "equivalent"
    assert report["eval_mode"] == ("--eval" in flags)


def test_dropout_in_training_mode_is_unsupported_and_says_eval(capsys):
    code = run(["kernelbench", str(ROOT / "dropout" / "problem.py"), str(ROOT / "dropout" / "drop_skipped.py"), "-q"])
    assert code == 3
    assert "--eval" in capsys.readouterr().err


@needs_nvcc
def test_later_call_witness_names_both_calls(capsys, tmp_path):
    out = tmp_path / "cex.npz"
    code, report = _check("scale_relu", "hack_python_cache", [], capsys, "--save-counterexample", str(out))
    assert code == 1
    inputs = report["counterexample"]["inputs"]
    assert "x" in inputs and "x@2" in inputs
    saved = np.load(out)
    assert {"x", "call2:x"} <= set(saved.files)
    assert json.loads(str(saved["volta"]))["call"] == 2


@needs_nvcc
def test_output_aliased_names_the_holder(capsys):
    _, report = _check("scale_relu", "hack_out_buffer", [], capsys)
    (aliased,) = report["calls"]["output_aliased"]
    assert aliased["holder"] == "self.out" and aliased["call"] == 1 and aliased["overwritten_by_call"] == 2


@needs_nvcc
def test_constructor_copy_is_an_assumption(capsys):
    _, report = _check("linear", "eq_weight_folded_in_init", [], capsys)
    assert report["calls"]["frozen_after_construction"] == ["self.weight_t"]
    _, report = _check("linear", "eq_weight_each_call", [], capsys)
    assert report["calls"]["frozen_after_construction"] == []


def test_api_eval_mode():
    problem, cand = ROOT / "batchnorm" / "problem.py", ROOT / "batchnorm" / "hack_running_stats_always.py"
    assert volta.kernelbench(problem, cand).verdict == "not-equivalent"
    assert volta.kernelbench(problem, cand, eval_mode=True).verdict == "equivalent"


@needs_nvcc
def test_output_overwritten_two_calls_later(capsys):
    _, report = _check("scale_relu", "hack_ping_pong_buffers", [], capsys)
    (aliased,) = report["calls"]["output_aliased"]
    assert aliased["call"] == 1 and aliased["overwritten_by_call"] == 3 and aliased["holder"] == "self.buffers[0]"
