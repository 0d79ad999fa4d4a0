"""`volta batch`: a process pool with per-job timeout and memory limit, streamed JSON lines, --resume, Ray."""
import json
from pathlib import Path

import pytest

from volta.batch import load_jobs, run_batch
from volta.cli import run as cli
from volta.errors import UsageError

E = Path(__file__).resolve().parents[2] / "examples"
VA_BUFS = {"x": "f32[500]:in", "y": "f32[500]:in", "out": "f32[500]:out"}

JOBS = [
    {"id": "race", "manifest": str(E / "bug_reduce_tree_nosync" / "manifest.toml")},
    {"id": "va", "command": "races", "kernel": str(E / "vector_add" / "kernel.sm80.ptx"), "grid": "4", "block": "128",
     "args": ["x", "y", "out", 500], "buffers": VA_BUFS},
    {"id": "triton-add", "ref": str(E / "vector_add" / "kernel.sm80.ptx"), "opt": str(E / "triton" / "add.b128.w4.sm80.ptx"),
     "grid": "4", "block": "128", "args": ["x", "y", "out", 500], "opt_args": ["x", "y", "out", 500, 0, 0],
     "buffers": VA_BUFS},
    {"id": "offbyone", "command": "races", "kernel": str(E / "triton" / "add_offbyone.b128.w4.sm80.ptx"), "grid": "4",
     "block": "128", "args": ["x", "y", "out", 500, 0, 0], "buffers": VA_BUFS},
    {"id": "missing", "ref": "nope.ptx", "opt": "nope2.ptx", "grid": "1", "block": "1"},
]
EXPECT = {"race": ("races", "findings", 1), "va": ("races", "clean", 0), "triton-add": ("check", "equivalent", 0),
          "offbyone": ("races", "findings", 1), "missing": ("check", "error", 2)}


def _write(tmp_path, jobs, name="jobs.jsonl"):
    p = tmp_path / name
    p.write_text("# a comment\n\n" + "\n".join(json.dumps(j) for j in jobs) + "\n")
    return p


def _lines(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def test_pool_runs_every_job_and_streams_one_result_per_line(tmp_path, capsys):
    jobs = _write(tmp_path, JOBS)
    out = tmp_path / "out.jsonl"
    code = cli(["batch", str(jobs), "--workers", "2", "--out", str(out)])
    results = {r["id"]: r for r in _lines(out)}
    assert set(results) == set(EXPECT)
    for jid, (cmd, verdict, exit_code) in EXPECT.items():
        r = results[jid]
        assert (r["command"], r["verdict"], r["exit_code"]) == (cmd, verdict, exit_code), r
        assert r["schema"] == "volta.batch/1"
    assert results["race"]["report"]["schema"] == "volta.races/1"
    assert "no such file" in results["missing"]["error"]
    assert code == 2  # a job was bad input
    err = capsys.readouterr().err
    assert "jobs/min" in err and "findings" in err and "Traceback" not in err
    # issue 32 §2: a progress line per finished job, as they finish (done/total, not ok, findings, ETA)
    progress = [line for line in err.splitlines() if line.startswith("volta batch: ")]
    assert [int(line.split(": ")[1].split("/")[0]) for line in progress] == list(range(1, len(JOBS) + 1)), err
    assert all(f"/{len(JOBS)} jobs done (" in line for line in progress)
    assert " ETA " in progress[0] and " ETA " not in progress[-1]
    assert "(1 not ok, 2 with findings)" in progress[-1]


def test_results_go_to_stdout_without_out(tmp_path, capsys):
    jobs = _write(tmp_path, JOBS[1:2])
    assert cli(["batch", str(jobs), "-q"]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(x) for x in captured.out.splitlines()]
    assert [r["verdict"] for r in lines] == ["clean"] and captured.err == ""


def test_resume_skips_finished_ids_and_survives_a_truncated_line(tmp_path):
    jobs = _write(tmp_path, JOBS[:4])
    out = tmp_path / "out.jsonl"
    first = {"schema": "volta.batch/1", "id": "race", "command": "races", "status": "ok", "verdict": "findings",
             "exit_code": 1, "report": None, "error": None, "seconds": 0.0}
    out.write_text(json.dumps(first) + "\n" + '{"schema": "volta.batch/1", "id": "va", "comm')  # interrupted mid-line
    summary = run_batch(str(jobs), workers=2, out=str(out), resume=True)
    assert summary.skipped == 1 and len(summary.results) == 3
    text = out.read_text()
    parsed = []
    for line in text.splitlines():
        try:
            parsed.append(json.loads(line))
        except json.JSONDecodeError:
            assert line.startswith('{"schema": "volta.batch/1", "id": "va", "comm')  # the truncated line, alone
    assert sorted(r["id"] for r in parsed) == ["offbyone", "race", "triton-add", "va"]
    # a second resume has nothing left to do
    again = run_batch(str(jobs), workers=2, out=str(out), resume=True)
    assert again.skipped == 4 and again.results == []


def test_a_job_stops_at_its_deadline_and_reports_the_work_done(tmp_path):
    # a 256^3 GEMM pair (naive vs 64x64 tiles): some 20 s of work here, far past the 4 s limit on any machine
    n = 256
    slow = {"id": "slow", "command": "check", "ref": str(E / "gemm_naive" / "kernel.sm80.ptx"),
            "opt": str(E / "gemm_tiled64" / "kernel.sm80.ptx"), "grid": "16x16", "block": "16x16",
            "opt_grid": "4x4", "args": ["A", "B", "C", n, n, n], "timeout_ms": 120000,
            "buffers": {"A": f"f32[{n * n}]:in", "B": f"f32[{n * n}]:in", "C": f"f32[{n * n}]:out"}}
    s = run_batch(str(_write(tmp_path, [slow])), workers=1, out=str(tmp_path / "o.jsonl"), timeout_s=4)
    (r,) = s.results
    # its own deadline (4 s less the grace) ends the check before the kill: UNKNOWN, with its report
    assert r["status"] == "ok" and r["verdict"] == "unknown" and r["exit_code"] == 3, r
    assert "ran out" in json.dumps(r["report"])
    assert 2.9 < r["seconds"] < 4
    assert s.exit_code == 3


def _deaf(job):
    """A job that blocks the deadline's signal and never ends (as a long C call does)."""
    import signal
    import time

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(60)


def test_a_job_that_ignores_its_deadline_is_killed_and_claims_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("volta.batch.execute", _deaf)    # the pool's children are forked: they run _deaf
    job = {"id": "deaf", "command": "races", "kernel": str(E / "vector_add" / "kernel.sm80.ptx"), "grid": "4",
           "block": "128", "args": ["x", "y", "out", 500], "buffers": VA_BUFS}
    s = run_batch(str(_write(tmp_path, [job])), workers=1, out=str(tmp_path / "o.jsonl"), timeout_s=3)
    (r,) = s.results
    assert r["status"] == "timeout" and r["verdict"] == "timeout" and r["exit_code"] == 3 and r["report"] is None
    assert 2.9 < r["seconds"] < 30
    assert s.exit_code == 3


def test_memory_limit(tmp_path):
    big = {"id": "big", "command": "run", "kernel": str(E / "vector_add" / "kernel.sm80.ptx"), "grid": "4",
           "block": "128", "args": ["x", "y", "out", 500],
           "buffers": {"x": "f32[200000000]", "y": "f32[200000000]", "out": "f32[200000000]"}}
    s = run_batch(str(_write(tmp_path, [big])), workers=1, out=str(tmp_path / "o.jsonl"), memory_mb=500)
    (r,) = s.results
    assert r["status"] in ("memory", "crashed") and r["exit_code"] == 3, r


@pytest.mark.parametrize("line, words", [
    ("not json", "not a JSON object"),
    ("[1, 2]", "a job is a JSON object"),
    ('{"id": "a", "manifest": "m.toml", "ref": "r.ptx"}', "exactly one of"),
    ('{"id": "a", "ref": "r.ptx"}', "needs both"),
    ('{"id": "a", "kernel": "k.ptx", "grid": "1", "block": "1", "command": "check"}', "needs `ref` and `opt`"),
    ('{"id": "a", "kernel": "k.ptx", "block": "1"}', "no `grid`"),
    ('{"id": "a", "manifest": "m.toml", "command": "prove"}', "command `prove`"),
    ('{"id": "a", "manifest": "m.toml", "colour": 1}', "unknown job key"),
    ('{"id": "a", "manifest": "m.toml"}\n{"id": "a", "manifest": "n.toml"}', "already used on line"),
])
def test_bad_jobs_file_is_a_usage_error_naming_the_line(tmp_path, capsys, line, words):
    p = tmp_path / "jobs.jsonl"
    p.write_text(line + "\n")
    with pytest.raises(UsageError, match=words):
        load_jobs(str(p))
    assert cli(["batch", str(p)]) == 2
    err = capsys.readouterr().err
    assert words.split("`")[0] in err and "Traceback" not in err and "jobs.jsonl:" in err


def test_resume_needs_out(tmp_path, capsys):
    assert cli(["batch", str(_write(tmp_path, JOBS[1:2])), "--resume"]) == 2
    assert "--resume needs --out" in capsys.readouterr().err


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    import logging

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    yield ray
    ray.shutdown()


@pytest.mark.slow   # starts a local Ray: 3.1 CPU s
def test_ray_gives_the_same_results_as_the_pool(tmp_path, local_ray):
    jobs = _write(tmp_path, JOBS)
    s = run_batch(str(jobs), out=str(tmp_path / "ray.jsonl"), use_ray=True, timeout_s=120)
    results = {r["id"]: r for r in _lines(tmp_path / "ray.jsonl")}
    assert {k: (r["command"], r["verdict"], r["exit_code"]) for k, r in results.items()} == EXPECT
    assert s.exit_code == 2
    assert local_ray.is_initialized()  # a cluster the caller started is left running


@pytest.mark.slow
def test_killed_batch_resumes_without_repeating_or_losing_jobs(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    jobs = [{**JOBS[i % 4], "id": f"j{i}"} for i in range(8)]
    path = _write(tmp_path, jobs)
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "volta", "batch", str(path), "--workers", "1", "--out", str(out),
                             "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)  # the parent and its running child, mid-batch
    proc.wait()
    before = {r["id"] for r in _lines(out)}
    assert 2 <= len(before) < 8
    s = run_batch(str(path), workers=2, out=str(out), resume=True)
    assert s.skipped == len(before)
    ids = [r["id"] for r in _lines(out)]
    assert sorted(ids) == sorted(j["id"] for j in jobs)  # each job exactly once
