"""One root error class for everything the user can cause or the checker cannot decide.

Each subclass carries the exit code the CLI returns (see DESIGN.md's verdict table) and,
where it applies, the source span so the message can say file:line:col.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """Where a construct came from: PTX file, 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class VoltaError(Exception):
    """Root of every error Volta reports to a user; never shown as a traceback."""

    exit_code = 2
    kind = "error"

    def __init__(self, message: str, span: Span | None = None):
        super().__init__(message)
        self.message = message
        self.span = span

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span else ""
        return f"{where}{self.kind}: {self.message}"


class UsageError(VoltaError):
    """Bad command line, launch spec or manifest."""

    kind = "usage error"


class PtxSyntaxError(VoltaError):
    """Malformed PTX text, or an instruction that does not decode."""

    kind = "parse error"


class Unsupported(VoltaError):
    """Outside what the checker decides: a data-dependent branch, an instruction without semantics."""

    exit_code = 3
    kind = "unsupported"
