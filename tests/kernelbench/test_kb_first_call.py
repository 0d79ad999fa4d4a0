"""Call 1 decided in Volta's process while the candidate's worker waits (volta/kernelbench/isolation/confined.py):
the time that decision takes is Volta's, so a worker whose --timeout ran out meanwhile makes the verdict the
out-of-time one, never REJECTED (the worker did end before Volta's answer reached it, but not by its code)."""
import json
import time
from pathlib import Path

import pytest

from volta import cuda
from volta.cli import run
from volta.kernelbench.isolation import verify

CASE = Path(__file__).resolve().parent / "builds" / "l1_smooth_l1"


@pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")
def test_a_slow_decision_of_call_1_is_out_of_time_not_rejected(monkeypatch, capsys):
    def slow(step):   # each of Volta's steps within its own --timeout, both together past the worker's
        def slowed(*args, **kwargs):
            time.sleep(1.4)
            return step(*args, **kwargs)
        return slowed

    monkeypatch.setattr(verify, "reference", slow(verify.reference))
    monkeypatch.setattr(verify, "settle", slow(verify.settle))
    code = run(["kernelbench", str(CASE / "problem.py"), str(CASE / "eq_abs_squared.py"), "--timeout", "2",
                "--json", "-q"])
    captured = capsys.readouterr()
    assert code == 3, captured
    report = json.loads(captured.out[captured.out.index("{\n"):])
    # out of time: UNKNOWN where a step of Volta's ran out, UNSUPPORTED where the worker's did (a cold build)
    assert report["verdict"] in ("unknown", "unsupported"), report
    assert "ran out" in captured.out, captured.out
