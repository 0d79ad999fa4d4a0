"""What a concrete run supplies (volta/exec/state/runtime.py, printf.py): printf as a no-op with its text, bodiless
functions as unconstrained inputs in `volta races`, still refused by `volta run`."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from volta.cli import run as main
from volta.exec.state.printf import argument_count
from volta.exec.state.runtime import Nondet
from volta.launch.spec import from_options
from volta.session.races import CLEAN_FOR_INPUTS, FINDINGS, RacesOptions, analyze

PTX = Path(__file__).parent / "data" / "runtime" / "runtime.ptx"


def _printing():
    return from_options(str(PTX), "printing", "2", "4", "idx,out,8", ["idx=s32[8]:in", "out=s32[8]:out"])


def test_argument_count():
    assert argument_count("%d %s %%") == 2
    assert argument_count("%*.*f|%-5lld|%c") == 5
    assert argument_count("no conversions 100%%") == 0


@pytest.mark.parametrize("mode, expect", [("zeros", [0, 0, 0, 0]), ("equal", [1, 1, 1, 1]),
                                          ("colliding", [0, 0, 1, 1])])
def test_nondet_patterns(mode, expect):
    assert Nondet(mode).values(".b32", 4).tolist() == expect


def test_nondet_random_is_seeded_and_fresh_per_call():
    a, b = Nondet("random:3"), Nondet("random:3")
    first = a.values(".b32", 64)
    assert first.tolist() == b.values(".b32", 64).tolist()          # the same seed, the same values
    assert first.tolist() != a.values(".b32", 64).tolist()          # a second call draws afresh
    neg = Nondet("random:0").values(".s32", 256).astype(np.uint32).view(np.int32)
    assert neg.min() < 0 <= neg.max()                               # negative values come too
    f = Nondet("random:0").values(".f32", 8).astype(np.uint32).view(np.float32)
    assert np.isfinite(f).all() and len(set(f.tolist())) == 8


def test_printf_is_a_no_op_with_its_text_shown():
    report = analyze(_printing(), options=RacesOptions(inputs="zeros", show_printf=True))
    assert report.verdict == CLEAN_FOR_INPUTS and report.error is None
    (trial, lines), = report.printed
    assert trial == 0 and len(lines) == 8
    tid, text = lines[5]
    assert str(tid) == "block (1, 0, 0) thread (1, 0, 0)"
    assert text == "t1 b1 idx=0 x= 2.50 h=ff s=ok c=z ll=5000000000 %\n"
    assert analyze(_printing(), options=RacesOptions(inputs="zeros")).printed == []     # not kept unless asked for


def test_show_printf_in_text_and_json(capsys):
    argv = ["races", str(PTX), "--kernel", "printing", "--grid", "2", "--block", "4", "--args", "idx,out,8",
            "--buffer", "idx=s32[8]:in", "--buffer", "out=s32[8]:out", "--inputs", "zeros", "-q", "--show-printf"]
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert "printf on inputs 1 (8 line(s)):" in out and "block (0, 0, 0) thread (3, 0, 0): t3 b0 idx=0" in out
    assert main(argv + ["--json"]) == 3
    import json
    printed = json.loads(capsys.readouterr().out)["kernels"][0]["printed"]
    assert printed[0]["inputs"] == 0 and printed[0]["lines"][0]["text"].startswith("t0 b0 idx=0")


def test_printf_in_volta_run(tmp_path):
    out = tmp_path / "o.npz"
    assert main(["run", str(PTX), "--kernel", "printing", "--grid", "2", "--block", "4", "--args", "idx,out,8",
                 "--buffer", "idx=s32[8]:in", "--buffer", "out=s32[8]:out", "--out", str(out)]) == 0


def test_bodiless_function_is_an_unconstrained_input_in_races():
    spec = from_options(str(PTX), "nondet_race", "2", "32", "out", ["out=s32[1]:out"])
    report = analyze(spec, options=RacesOptions(inputs="random:0,zeros"))
    assert report.verdict == FINDINGS and report.error is None
    race = [f for f in report.findings if f.kind == "race"]
    assert race and race[0].details["inputs"] == [0]  # never with zeros: the branch is not taken
    assert analyze(spec, options=RacesOptions(inputs="zeros")).verdict == CLEAN_FOR_INPUTS


def test_volta_run_still_refuses_a_bodiless_function(capsys):
    code = main(["run", str(PTX), "--kernel", "nondet_race", "--grid", "1", "--block", "4", "--args", "out",
                 "--buffer", "out=s32[1]:out"])
    assert code == 3 and "has no body in the PTX" in "".join(capsys.readouterr())
