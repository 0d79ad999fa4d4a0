"""Verdict integrity: candidate code runs in a confined worker, and nothing it does reaches the verdict or Volta's
process (docs/sandbox.md). Each attack in data/integrity/ is REJECTED or UNSUPPORTED with its reason through
the CLI; Volta's process is unharmed after it, and a batch goes on with the next candidate."""
import builtins
import functools
import json
import os
import pickle
import select
import socket
import sys
from pathlib import Path

import numpy as np
import pytest

from volta.cli import run as cli
from volta.kernelbench import compare
from volta.kernelbench.isolation import guard, process, wire
from volta.kernelbench.tensor import SymTensor
from volta.symbolic import expr as E

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


def test_a_loop_that_never_ends_is_unsupported_past_the_time_limit(capsys, unharmed):
    code = cli(["kernelbench", PROBLEM, str(DATA / "loop_forever.py"), "--json", "--timeout", "8", "-q"])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (3, "unsupported")
    assert "ran out" in r["unsupported"]["message"] or "time limit" in r["unsupported"]["message"]


def test_a_candidate_that_ignores_the_timer_is_killed_past_the_time_limit(capsys, unharmed):
    code = cli(["kernelbench", PROBLEM, str(DATA / "ignore_timeout.py"), "--json", "--timeout", "8", "-q"])
    r = json.loads(capsys.readouterr().out)
    assert (code, r["verdict"]) == (3, "unsupported")
    assert "while the candidate ran" in r["unsupported"]["message"]
    assert "EQUIVALENT" not in r["candidate_output"]          # killed: no exit handler runs


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

class _Runs:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def _table(rows, roots) -> tuple:
    """An expression table in the wire's columns from rows (op, children, data)."""
    def ints(xs):
        return np.asarray(xs, np.int32).tobytes()

    return (ints([op for op, _, _ in rows]), ints([len(c) for _, c, _ in rows]),
            ints([c for _, cs, _ in rows for c in cs]), {i: d for i, (_, _, d) in enumerate(rows) if d is not None},
            roots)


EMPTY = _table([], [])


def test_a_message_that_names_a_callable_is_refused_without_running_it():
    frame = pickle.dumps(EMPTY) + pickle.dumps({"verdict": _Runs()})
    with pytest.raises(wire.Malformed, match="names posix.system|names os.system"):
        wire.decode(frame)


def test_expressions_cross_by_table_and_meet_the_parents_nodes():
    x = E.add(E.mul(E.var("x", 3), E.const(2)), E.var("x", 4))
    message = wire.decode(wire.encode(("outcome", [x, x, E.select(E.lt(x, 0), x, E.const(0))])))
    assert message[1][0] is x and message[1][1] is x
    assert message[1][2] is E.select(E.lt(x, 0), x, E.const(0))


def test_a_commutative_node_from_the_worker_meets_the_parents_whatever_its_argument_order():
    a, b = E.var("order_test", 0), E.var("order_test", 1)
    table = _table([(int(E.Op.VAR), (), ("order_test", 1)), (int(E.Op.VAR), (), ("order_test", 0)),
                    (int(E.Op.ADD), (0, 1), None)], [2])           # the worker's ids ordered b before a
    assert wire._nodes(table)[0] is E.add(a, b) is E.add(b, a)


@pytest.mark.parametrize("table", [
    _table([(int(E.Op.ADD), (1, 1), None), (int(E.Op.VAR), (), ("x", 0))], [0]),   # a child after its parent
    _table([(int(E.Op.VAR), (), ("x", "0"))], [0]),                   # a leaf without an integer index
    _table([(int(E.Op.CONST), (), 0.5)], [0]),                        # a constant that is a float, not a rational
    _table([(999, (), None)], [0]),                                   # no such operator
    _table([(int(E.Op.VAR), (), ("x", 0))], [1]),                     # a root that is no node
    _table([(int(E.Op.VAR), (), (b"x", 0))], [0]),                    # data that is no plain value
    "not a table",
])
def test_a_malformed_expression_table_is_refused(table):
    with pytest.raises(wire.Malformed):
        wire.decode(pickle.dumps(table) + pickle.dumps(None))


def test_a_truncated_message_is_malformed():
    with pytest.raises(wire.Malformed):
        wire.decode(wire.encode(("outcome", {"a": 1}))[:-3])


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
