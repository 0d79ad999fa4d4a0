"""Issue 28 §4 and issue 32 §2: a run is bounded by time and memory, not by a step count, and a long run shows
progress by the clock.

- No step cap by default: a one-thread loop of millions of steps runs to its verdict; `--max-steps` is opt-in.
- `--timeout` ends `check`, `races` and `run` with UNKNOWN (exit 3) and still a report, `--json` too, whose
  instruction counts are the work done until then.
- The executor reads the clock by time (limits.StepClock): a launch of slow steps (65,536 threads, a few
  hundred steps) prints progress lines, where a check every 4096 steps printed none.
"""
import json
from pathlib import Path

import pytest

from volta.cli import run
from volta.exec import limits

DATA = Path(__file__).parent / "data"
COUNT = str(DATA / "count_loop.ptx")
VAR = str(DATA / "variance.ptx")


def test_no_step_cap_by_default(capsys):
    # 1,050,000 iterations, two steps each: past the old default cap of 2,000,000 steps (UNSUPPORTED then)
    code = run(["check", COUNT, COUNT, "--grid", "1", "--block", "1", "--args", "out,1050000",
                "--buffer", "out=u32[1]:out", "-q"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("EQUIVALENT"), out
    code = run(["check", COUNT, COUNT, "--grid", "1", "--block", "1", "--args", "out,1050000",
                "--buffer", "out=u32[1]:out", "--max-steps", "1000000", "-q"])
    out = capsys.readouterr().out
    assert code == 3 and "--max-steps 1,000,000 steps" in out, out


def _long_variance(n=400000):
    return ["--grid", "1", "--block", "2", "--args", f"x,out,{n}", "--buffer", f"x=f32[{2 * n}]:in",
            "--buffer", "out=f32[2]:out"]


def test_check_timeout_still_writes_its_json_report_with_the_real_counts(capsys):
    code = run(["check", VAR, VAR, "--ref-kernel", "var_two_pass", "--opt-kernel", "var_one_pass",
                *_long_variance(), "--timeout", "1.5", "--json"])
    cap = capsys.readouterr()
    assert code == 3, cap
    doc = json.loads(cap.out)
    assert doc["verdict"] == "unknown" and doc["exit_code"] == 3
    assert "--timeout 1.5 s ran out" in doc["timed_out"] and "no output element was compared" in doc["timed_out"]
    done = doc["stats"]["thread_instructions"]
    assert done > 1000, doc["stats"]   # the work done until the deadline, not 0
    assert f"{done:,} thread-instructions executed" in doc["timed_out"]
    assert f"volta check: {done:,} thread-instructions, 0 elements compared" in cap.err


def test_check_timeout_in_text(capsys):
    code = run(["check", VAR, VAR, "--ref-kernel", "var_two_pass", "--opt-kernel", "var_one_pass",
                *_long_variance(), "--timeout", "1", "-q"])
    out = capsys.readouterr().out
    assert code == 3 and out.startswith("UNKNOWN"), out
    assert "thread-instructions executed" in out and "a longer --timeout may decide" in out


@pytest.mark.parametrize("fmt", ["--json", "--sarif", "text"])
def test_races_timeout_is_unknown_with_a_report(fmt, capsys):
    code = run(["races", VAR, "--kernel", "var_two_pass", *_long_variance(), "--timeout", "1",
                *([fmt] if fmt != "text" else []), "-q"])
    out = capsys.readouterr().out
    assert code == 3, out
    if fmt == "--json":
        doc = json.loads(out)
        kernel = doc["kernels"][0]
        assert doc["verdict"] == kernel["verdict"] == "unknown" and kernel["verdict_text"] == "UNKNOWN"
        assert kernel["stats"]["thread_instructions"] > 0 and kernel["stats"]["steps"] > 0
        assert "--timeout 1 s ran out" in kernel["unsupported"]["message"]
    elif fmt == "--sarif":
        doc = json.loads(out)
        assert [r["ruleId"] for r in doc["runs"][0]["results"]] == ["unknown"]
        assert doc["runs"][0]["invocations"][0]["exitCode"] == 3
    else:
        assert "verdict: UNKNOWN (--timeout ran out" in out


def test_run_timeout_is_unknown_with_a_report_and_writes_no_outputs(tmp_path, capsys):
    out_file = tmp_path / "out.npz"
    code = run(["run", VAR, "--kernel", "var_two_pass", *_long_variance(), "--timeout", "1", "--json",
                "--out", str(out_file)])
    cap = capsys.readouterr()
    assert code == 3, cap
    doc = json.loads(cap.out)
    assert doc["verdict"] == "unknown" and doc["exit_code"] == 3 and "--timeout 1 s ran out" in doc["timed_out"]
    assert doc["thread_instructions"] > 0 and doc["buffers"] == {}
    assert not out_file.exists()
    code = run(["run", VAR, "--kernel", "var_two_pass", *_long_variance(), "--timeout", "1"])
    out = capsys.readouterr().out
    assert code == 3 and "UNKNOWN: --timeout 1 s ran out" in out and "no output is shown or written" in out


def test_slow_steps_show_progress_by_the_clock(capsys, monkeypatch):
    """65,536 threads: ~230 steps of ~1 ms each. Progress every 4096 steps printed nothing here; with the clock
    read about every CHECK_SECONDS a progress line comes within the run however fast the machine is."""
    monkeypatch.setattr(limits, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(limits, "CHECK_SECONDS", 0.0)
    n = 24
    code = run(["races", VAR, "--kernel", "var_two_pass", "--grid", "256", "--block", "256", "--args",
                f"x,out,{n}", "--buffer", f"x=f32[{65536 * n}]:in", "--buffer", "out=f32[65536]:out"])
    err = capsys.readouterr().err
    assert code == 0, err
    periodic = [line for line in err.splitlines() if " steps, " in line and "thread-instructions, " in line
                and line.endswith(" s")]
    assert periodic, err
    steps = int(periodic[0].split(": ")[2].split(" steps")[0].replace(",", ""))
    assert steps < 4096


# ---- the clock itself (limits.StepClock) ---------------------------------------------------------------

def _settle(step_seconds: float, reads: int = 40) -> int:
    clock, t, steps = limits.StepClock(at=0.0), 0.0, 0
    for _ in range(reads):
        ran = clock.due - steps
        steps, t = clock.due, t + ran * step_seconds
        clock.advance(steps, t)
    return clock.every


def test_the_clock_is_read_about_every_check_seconds_whatever_a_step_costs():
    assert _settle(0.030) == max(1, int(limits.CHECK_SECONDS / 0.030))   # 65k-thread steps: every 3
    assert _settle(0.5) == 1                                             # slower than CHECK_SECONDS: every step
    assert _settle(1e-6) == limits.MAX_CHECK_EVERY                       # one-thread steps: the cap
    fast_then_slow = limits.StepClock(at=0.0)
    fast_then_slow.every = limits.MAX_CHECK_EVERY
    fast_then_slow.advance(limits.MAX_CHECK_EVERY, 20.0)   # 4096 steps took 20 s (5 ms each): shrink at once
    assert fast_then_slow.every == int(limits.MAX_CHECK_EVERY * limits.CHECK_SECONDS / 20.0)


def test_a_stage_given_the_command_s_deadline_gets_what_is_left_not_the_timeout_afresh():
    """`limits.using(deadline=...)`: a stage of a command (a worker, a decision) keeps the command's deadline; the
    message still names --timeout as the user gave it."""
    with limits.using(timeout=60) as command:
        with limits.using(timeout=60, deadline=command.deadline - 59.5) as stage:
            assert stage.deadline == command.deadline - 59.5 and 0 < stage.left() <= 0.5
            stage.deadline -= 1
            with pytest.raises(limits.Timeout, match=r"--timeout 60 s ran out while deciding"):
                stage.check_deadline("deciding")
        assert limits.current() is command and command.left() > 50
    assert limits.current().left() is None
