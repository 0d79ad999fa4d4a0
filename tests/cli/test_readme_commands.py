"""Every command README.md shows runs as written from the repository root (issue 32 §5): each `volta …` line of
its shell blocks, and its Python blocks, run in a scratch directory whose `examples` is the repository's, so the
paths resolve as they do from the root while the files they write (`--out out.npz`, `cex.json`) land outside it.

A command passes when it gives a verdict (exit 0 or 1; 3 where its comment says `exit 3`) with no usage error
and no internal error; a command README shows that this test cannot run names its requirement below.
"""
from __future__ import annotations

import importlib.util
import inspect
import re
import shlex
import shutil
from pathlib import Path

import pytest

from volta.cli import run
from volta import pytest_plugin

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every ``` block, in order."""
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)]


def shell_commands(text: str) -> list[tuple[str, str]]:
    """(command line, its trailing comment) of every `volta` command in the untagged blocks; a line ending in
    a backslash continues on the next, and `a && volta …` keeps the volta part."""
    out = []
    for lang, body in fenced_blocks(text):
        if lang:
            continue
        for line in body.replace("\\\n", " ").splitlines():
            if "volta " not in line:      # a report shown under its command, not a command
                continue
            words = shlex.split(line, comments=True)
            comment = line.partition(" # ")[2] if " # " in line else ""
            for part in " ".join(shlex.quote(w) for w in words).split(" '&&' "):
                if part.startswith("volta "):
                    out.append((part, comment))
    return out


COMMANDS = shell_commands(README)
NEEDS = {"--ray": "ray", ".cu": None}   # a command using this needs that module (None: nvcc)


def _unmet(command: str) -> str | None:
    for word, module in NEEDS.items():
        if word in command:
            if module is None and shutil.which("nvcc") is None:
                return "nvcc"
            if module is not None and importlib.util.find_spec(module) is None:
                return module
    return None


@pytest.fixture
def at_root(tmp_path, monkeypatch):
    """A working directory that looks like the repository root for what README names (the bundled examples, and
    the KernelBench test corpus a report example runs on), where commands may write files."""
    for name in ("examples", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_readme_shows_the_commands_it_should():
    assert len(COMMANDS) >= 20   # the tour, pipelines, batch: the parser found them all
    assert all(not re.search(r"\[[-:]", c) for c, _ in COMMANDS), "optional parts in [ ] do not run as written"


# Ray starts in ~20 s; the layer norm takes ~7 CPU s, the 64x64 GEMM's check, save and replay ~2.7
SLOW_COMMANDS = ("--ray", "eq_layernorm_twopass_onepass", "neq_gemm_swapped")


@pytest.mark.parametrize("command,comment", [
    pytest.param(c, note, id=c[:60], marks=[pytest.mark.slow] if any(w in c for w in SLOW_COMMANDS) else [])
    for c, note in COMMANDS])
def test_readme_command_runs_as_written(command, comment, at_root, capsys):
    unmet = _unmet(command)
    if unmet:
        pytest.skip(f"needs {unmet}")
    code = run(shlex.split(command)[1:])
    cap = capsys.readouterr()
    allowed = (0, 1, 3) if "exit 3" in comment else (0, 1)
    assert code in allowed, f"{command}\nexit {code}\n{cap.err[-2000:]}"
    assert "internal error" not in cap.err and "Traceback" not in cap.err


def _python_blocks():
    return [body for lang, body in fenced_blocks(README) if lang == "python"]


@pytest.mark.parametrize("index", range(len(_python_blocks())))
def test_readme_python_runs_as_written(index, at_root, capsys):
    body = _python_blocks()[index]
    if "volta.triton" in body and importlib.util.find_spec("triton") is None:
        pytest.skip("needs triton")
    if ".cu" in body and shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")
    scope: dict = {}
    exec(compile(body, f"README.md python block {index + 1}", "exec"), scope)
    for name, test in list(scope.items()):   # the pytest plugin's example: its tests, given the fixtures
        if name.startswith("test_") and callable(test):
            test(*(getattr(pytest_plugin, arg) for arg in inspect.signature(test).parameters))
