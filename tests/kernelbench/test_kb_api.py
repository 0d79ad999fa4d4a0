"""The KernelBench front door from Python: `volta.kernelbench(...)`, a `volta batch` kernelbench job, and the
pytest helper `assert_kernelbench_equivalent` all give the verdict the command gives."""
import json
import time
from pathlib import Path

import pytest

import volta
from volta import cuda
from volta.batch import load_jobs, run_batch
from volta.cli import run as cli
from volta.errors import UsageError
from volta.pytest_plugin import KernelCheckFailed, assert_kernelbench_equivalent

ADD = Path(__file__).resolve().parents[2] / "examples" / "kernelbench" / "l1_vector_add"
needs_nvcc = pytest.mark.skipif(cuda.find_nvcc() is None, reason="nvcc (the CUDA toolkit) is not installed")


@needs_nvcc
def test_equivalent_with_sizes_and_the_commands_json():
    r = volta.kernelbench(ADD / "problem.py", ADD / "eq_basic.py", sizes={"n": 40})
    assert (r.verdict, r.exit_code, r.ok) == ("equivalent", 0, True)
    assert r.sizes["n"] == 40
    report = json.loads(r.report("json"))
    assert report["verdict"] == "equivalent" and report["schema"] == "volta.kernelbench/1"
    assert (report["sizes"][0]["name"], report["sizes"][0]["value"]) == ("n", 40)
    assert "EQUIVALENT" in r.report()


@needs_nvcc
def test_not_equivalent_carries_the_confirmed_difference(tmp_path):
    witness = tmp_path / "cex.npz"
    r = volta.kernelbench(ADD / "problem.py", ADD / "neq_sub.py", {"n": 16}, save_counterexample=witness)
    assert (r.verdict, r.exit_code) == ("not-equivalent", 1)
    assert r.counterexample.ref_value != r.counterexample.cand_value
    assert witness.is_file()


def test_callable_after_its_submodules_are_imported():
    import volta.kernelbench.check  # noqa: F401  (binds volta.kernelbench to the package)

    assert callable(volta.kernelbench)
    with pytest.raises(UsageError, match="no such problem file"):
        volta.kernelbench("no_such_problem.py", ADD / "eq_basic.py")


@pytest.mark.parametrize("sizes", [{"n": 0}, {"n": "8"}, {"n": (2, -1)}])
def test_bad_sizes_are_usage_errors(sizes):
    with pytest.raises(UsageError, match="expected a positive integer"):
        volta.kernelbench(ADD / "problem.py", ADD / "eq_basic.py", sizes)


@needs_nvcc
def test_pytest_helper_passes_on_equivalent_and_fails_with_the_report():
    assert assert_kernelbench_equivalent(ADD / "problem.py", ADD / "eq_basic.py", {"n": 16}).ok
    with pytest.raises(KernelCheckFailed, match="NOT EQUIVALENT"):
        assert_kernelbench_equivalent(ADD / "problem.py", ADD / "neq_sub.py", {"n": 16})


def test_batch_job_kind_is_validated(tmp_path):
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text(json.dumps({"id": "a", "problem": "p.py", "candidate": "c.py", "sizes": {"n": 8}}) + "\n")
    assert [j.command for j in load_jobs(str(jobs))] == ["kernelbench"]
    jobs.write_text(json.dumps({"id": "a", "problem": "p.py"}) + "\n")
    with pytest.raises(UsageError, match="gives `problem` and `candidate`"):
        load_jobs(str(jobs))
    jobs.write_text(json.dumps({"id": "a", "problem": "p.py", "candidate": "c.py", "sizes": [8]}) + "\n")
    with pytest.raises(UsageError, match="`sizes` is an object"):
        load_jobs(str(jobs))


@needs_nvcc
def test_batch_runs_kernelbench_jobs(tmp_path):
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text("\n".join(json.dumps({"id": name, "problem": str(ADD / "problem.py"),
                                          "candidate": str(ADD / f"{name}.py"), "sizes": {"n": 16}})
                              for name in ("eq_basic", "neq_sub", "bug_tail_unwritten")) + "\n")
    out = tmp_path / "out.jsonl"
    cli(["batch", str(jobs), "--workers", "1", "--out", str(out), "-q"])
    results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert {k: (r["command"], r["verdict"], r["exit_code"]) for k, r in results.items()} == {
        "eq_basic": ("kernelbench", "equivalent", 0), "neq_sub": ("kernelbench", "not-equivalent", 1),
        "bug_tail_unwritten": ("kernelbench", "findings", 1)}
    assert results["neq_sub"]["report"]["schema"] == "volta.kernelbench/1"


INTEGRITY = Path(__file__).resolve().parent / "data" / "integrity"


@pytest.mark.slow   # waits out its 4 s timeout by design
def test_timeout_bounds_the_whole_call():
    """A forward that never returns: the call ends at `timeout` (its worker's own timer, or the kill MARGIN_SECONDS
    past it) with a report that claims nothing."""
    from volta.kernelbench.isolation import confined

    start = time.monotonic()
    r = volta.kernelbench(INTEGRITY / "problem.py", INTEGRITY / "loop_forever.py", timeout=4)
    assert (r.verdict, r.exit_code) in (("unsupported", 3), ("unknown", 3)), r.report()
    assert "ran out" in r.report()
    assert time.monotonic() - start < 4 + confined.MARGIN_SECONDS


@pytest.mark.parametrize("timeout", [0, -1, "5", True])
def test_a_bad_timeout_is_a_usage_error(timeout):
    with pytest.raises(UsageError, match="timeout="):
        volta.kernelbench(INTEGRITY / "problem.py", INTEGRITY / "loop_forever.py", timeout=timeout)


@pytest.mark.slow   # waits out its 8 s timeout by design
def test_batch_gives_a_kernelbench_job_its_deadline(tmp_path):
    """The job's worker gets the batch --timeout less the grace as its deadline, so the job reports (UNSUPPORTED,
    ran out) instead of being killed with no report."""
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text(json.dumps({"id": "loop", "problem": str(INTEGRITY / "problem.py"),
                                "candidate": str(INTEGRITY / "loop_forever.py")}) + "\n")
    s = run_batch(str(jobs), workers=1, out=str(tmp_path / "out.jsonl"), timeout_s=8)
    (r,) = s.results
    assert (r["status"], r["command"], r["exit_code"]) == ("ok", "kernelbench", 3), r
    assert r["verdict"] in ("unsupported", "unknown") and "ran out" in json.dumps(r["report"])
    assert r["seconds"] < 8
