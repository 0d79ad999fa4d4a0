"""What every command's result answers, whichever front door asked: `ok`, and `report(fmt)` for its text.

Each command has one result type, made by its driver (`races.RacesResult`, `replay.RunResult`,
`check.CheckResult`): the CLI renders it and the Python API returns it, so both read the same fields. Its
formats live one layer up, in volta/report, which registers one renderer per result type in `RENDERERS` when
it is imported (as instruction handlers fill the machine's opcode tables): a result renders itself without
this layer importing its presenter. The API and the CLI import volta/report before they hand a result out.
"""
from __future__ import annotations

from typing import Callable

# result type -> render(result, fmt, **options) -> str, which says which formats that result has
RENDERERS: dict[type, Callable[..., str]] = {}


class Reported:
    """The face every command result shows: `ok` (exit code 0) and `report(fmt)`. The class that mixes it in
    has `exit_code`."""

    exit_code: int

    @property
    def ok(self) -> bool:
        """True for exit code 0: equivalent, clean, bit-identical (or, sampled, no bit difference found)."""
        return self.exit_code == 0

    def report(self, fmt: str = "text", **options) -> str:
        """The text (or JSON, SARIF, JUnit: which ones depends on the command) the CLI prints for this result."""
        for kind in type(self).__mro__:
            if kind in RENDERERS:
                return RENDERERS[kind](self, fmt, **options)
        raise LookupError(f"no report formats for {type(self).__name__}: import volta.report first")
