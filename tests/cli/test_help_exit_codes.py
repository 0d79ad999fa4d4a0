"""Each command's `--help` lists its exit codes (issue 32 §7): a user reads them where they read the options,
and each code a command can return is there with its meaning."""
from __future__ import annotations

import re

import pytest

from volta.cli import COMMANDS, run

# the codes each command returns (volta/cli/exit_codes.py describes them)
EXPECTED = {"check": "0123", "races": "0123", "run": "0123", "parse": "023", "mma": "023", "classes": "023",
            "batch": "0123"}


def test_every_command_is_covered():
    assert set(EXPECTED) == set(COMMANDS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_help_lists_exit_codes(name, capsys):
    assert run([name, "--help"]) == 0
    text = capsys.readouterr().out
    head, _, codes = text.partition("Exit codes:\n")
    assert codes, f"volta {name} --help has no Exit codes section"
    listed = re.findall(r"^\s+(\d)\s{2}\S", codes, re.M)
    assert "".join(sorted(set(listed))) == EXPECTED[name], codes
    assert all(len(line) <= 120 for line in codes.splitlines())
