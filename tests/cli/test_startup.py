"""Start-up: what a `volta` process imports is what its command needs (issue 30: a reduction pair's whole process
under 0.5 CPU s; issue 32 §9: `--help` as cheap as `--version`).

Each test runs a fresh interpreter (this process has imported everything) and asserts on the modules it loaded,
never on time: `benchmarks/bench_paper.py` prints the seconds. A module listed here as not loaded is loaded
when it is needed (the Lark parser on a parse-cache miss, z3 for an element the normal forms leave open, the
bit-exact deciders for `--fp ARCH`); the tests beside the lazy imports check that they load then.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from volta.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "eq_reduce_seq_tree" / "manifest.toml"
NOT_EQUIVALENT = ROOT / "examples" / "neq_clamp_branch_swapped" / "manifest.toml"

# What no command's --help needs: numeric, solver and parser packages, and Volta's machine and deciders
NOT_FOR_HELP = ("numpy", "z3", "lark", "mpmath", "volta.exec.machine", "volta.equiv.check", "volta.session.races",
                "volta.report", "volta.launch.spec")
# What a check over the reals of small integer kernels, parsed before, does not need
NOT_FOR_A_REAL_CHECK = ("z3", "lark", "volta.ptx.lark_parser", "volta.equiv.bitproof", "volta.equiv.diverge")


def _loaded(argv: list[str], watch: tuple, env: dict | None = None) -> tuple[int, list[str], str]:
    """(exit code, the modules of `watch` the command loaded, stdout) of `volta ARGV` in a fresh interpreter."""
    code = ("import contextlib, io, json, sys\n"
            "from volta.cli import run\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    rc = run({argv!r})\n"
            f"print(json.dumps([rc, sorted(m for m in {watch!r} if m in sys.modules)]))\n"
            "print(out.getvalue())\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    first, _, rest = proc.stdout.partition("\n")
    rc, loaded = json.loads(first)
    return rc, loaded, rest


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_commands_help_loads_no_machine(name):
    if name == "mma":   # the tensor-core model's command: its option choices come from numerics (numpy)
        watch = tuple(m for m in NOT_FOR_HELP if m != "numpy")
    else:
        watch = NOT_FOR_HELP
    rc, loaded, out = _loaded([name, "--help"], watch)
    assert rc == 0 and f" {name} [OPTIONS]" in out
    assert loaded == []


def test_a_check_over_the_reals_loads_no_solver_parser_or_bit_decider(tmp_path, monkeypatch):
    monkeypatch.setenv("VOLTA_CACHE_DIR", str(tmp_path / "cache"))
    argv = ["check", str(EXAMPLE), "-q", "--json"]
    rc, loaded, _ = _loaded(argv, ("lark",), dict(os.environ))   # the first run parses: Lark loads
    assert rc == 0 and loaded == ["lark"]
    rc, loaded, out = _loaded(argv, NOT_FOR_A_REAL_CHECK, dict(os.environ))
    assert rc == 0 and json.loads(out)["verdict"] == "equivalent"
    assert loaded == []


def test_what_a_command_prints_and_writes_is_whole_when_its_process_ends(tmp_path):
    """`volta` leaves the objects of its run to the OS at exit (`volta.cli.main`: gc.freeze): the report on stdout,
    the JUnit file and a saved counterexample are complete, and the exit code is the verdict's."""
    junit, cex = tmp_path / "check.xml", tmp_path / "cex.json"
    env = dict(os.environ, VOLTA_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "volta", "check", str(EXAMPLE), "-q", "--json", "--junit",
                           str(junit)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0 and json.loads(proc.stdout)["verdict"] == "equivalent"
    assert ElementTree.parse(junit).getroot().tag == "testsuites"
    proc = subprocess.run([sys.executable, "-m", "volta", "check", str(NOT_EQUIVALENT), "-q",
                           "--save-counterexample", str(cex)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout.startswith("NOT EQUIVALENT")
    assert json.loads(cex.read_text())
