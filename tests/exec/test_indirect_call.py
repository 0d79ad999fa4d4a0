"""Calls through device function pointers (PTX ISA §9.7.13.4 `call` with a register target and a
`.callprototype`): nvcc's PTX of tests/exec/data/fnptr.cu run by `volta run`, `volta races` and `volta check`.

Each lane runs the callee its pointer value names (volta/ir/indirect.py); a value that is no function's
address stops the run (UNSUPPORTED, with the thread, the value and the call's file:line:col).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from volta.cli import run

DATA = Path(__file__).parent / "data"
PTX = str(DATA / "fnptr.ptx")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
N = 64
LAUNCH = ["--grid", "2", "--block", "32", "--args", f"x,y,{N}", "--buffer", f"x=f32[{N}]:in",
          "--buffer", f"y=f32[{N}]:out", "-q"]


def _expected(kernel: str, x: np.ndarray) -> np.ndarray:
    i = np.arange(N)
    three = [x * x, x + x, -x]
    return {
        "apply_one": x * x,
        "apply_table": np.choose(i % 3, three),
        "apply_ctable": np.choose(i % 3, three),
        "apply_select": np.where(i & 1, x + x, x * x),
        "apply_global_fn": x + x,
    }[kernel].astype(np.float32)


@pytest.mark.parametrize("kernel", ["apply_one", "apply_table", "apply_ctable", "apply_select", "apply_global_fn"])
def test_run_calls_the_function_each_lane_names(kernel, tmp_path, capsys):
    out = tmp_path / "out.npz"
    assert run(["run", PTX, "--kernel", kernel, *LAUNCH, "--out", str(out)]) == 0
    got = np.load(out)
    assert np.array_equal(got["y"], _expected(kernel, got["input.x"])), kernel


def test_the_table_lowering_really_dispatches(tmp_path, capsys):
    """The same kernel with its table entries' meaning swapped would fail: outputs differ per callee."""
    out = tmp_path / "out.npz"
    assert run(["run", PTX, "--kernel", "apply_table", *LAUNCH, "--out", str(out)]) == 0
    got = np.load(out)
    x = got["input.x"]
    assert not np.array_equal(got["y"], (x * x).astype(np.float32))  # not one callee for every lane


def test_a_pointer_to_no_function_is_unsupported_with_its_place(capsys):
    code = run(["run", PTX, "--kernel", "apply_wild", *LAUNCH])
    err = capsys.readouterr()
    text = err.out + err.err
    assert code == 3
    m = re.search(r"fnptr\.ptx:(\d+):(\d+): unsupported: indirect call through `%rd\d+`: block \(0, 0, 0\) "
                  r"thread \(5, 0, 0\) holds (0x[0-9a-f]+), which is no function's address", text)
    assert m, text
    line = Path(PTX).read_text().splitlines()[int(m.group(1)) - 1]
    assert line.strip().startswith("call"), line
    assert "`_Z2sqf`, `_Z5twicef`, `_Z3negf`" in text  # the candidates it tried
    assert "Traceback" not in text


def test_races_on_a_constant_table_decide_for_all_inputs(capsys):
    assert run(["races", PTX, "--kernel", "apply_ctable", *LAUNCH]) == 0
    assert "CLEAN" in capsys.readouterr().out


def test_races_on_a_global_table_hold_for_all_inputs(capsys):
    # a __device__ table nothing writes holds its initializer (function addresses), not input data: the
    # call target is known and the structured run answers for every input
    assert run(["races", PTX, "--kernel", "apply_table", *LAUNCH]) == 0
    assert "CLEAN" in capsys.readouterr().out


def test_races_find_a_race_between_two_callees(capsys):
    assert run(["races", str(EXAMPLES / "bug_fnptr_store_overlap" / "manifest.toml"), "-q"]) == 1
    out = capsys.readouterr().out
    assert "RACE" in out and "kernel.cu:3" in out and "kernel.cu:5" in out  # put_own's store vs put_half's


def test_check_proves_a_pointer_choice_equal_to_the_inline_choice(capsys):
    assert run(["check", str(EXAMPLES / "eq_fnptr_select_direct" / "manifest.toml"), "-q"]) == 0
    assert capsys.readouterr().out.startswith("EQUIVALENT")


def test_check_refutes_a_table_indexed_off_by_one(capsys):
    assert run(["check", str(EXAMPLES / "neq_fnptr_table_off_by_one" / "manifest.toml"), "-q"]) == 1
    assert capsys.readouterr().out.startswith("NOT EQUIVALENT")
