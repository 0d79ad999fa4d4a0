"""`volta --help`: lists every command with its summary line, and imports none of them (start-up stays cheap)."""
import subprocess
import sys

import click

from volta.cli import COMMANDS, run


def test_help_lists_every_command_with_its_summary(capsys):
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    for name, (_, summary) in COMMANDS.items():
        assert f"  {name}" in out and summary in out, name


def test_help_imports_no_command_module():
    code = ("import sys; from volta.cli import run; run(['--help']); "
            "print(sorted(m for m in sys.modules if m.endswith('_cmd') or m in ('numpy', 'z3', 'networkx')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_each_listed_command_loads_under_its_name():
    for name, (module, summary) in COMMANDS.items():
        command = __import__(module, fromlist=["command"]).command
        assert isinstance(command, click.Command) and command.name == name
        assert summary.endswith(".") and len(summary) <= 80  # one line of `volta --help` (100 columns)
