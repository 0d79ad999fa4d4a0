"""Progress on stderr: one line per phase; on a terminal, the periodic lines of a long phase (steps
executed, elements compared with an ETA) overwrite each other as a one-line bar."""
from __future__ import annotations

import sys

import click

TRANSIENT = (" ETA ", " steps, ")   # the periodic lines (volta.equiv.check._progress, limits.step_check)


class Progress:
    def __init__(self, prefix: str, stream=None):
        self.prefix = prefix
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.open = False   # a bar line is showing, not yet ended by a newline

    def __call__(self, line: str) -> None:
        text = f"{self.prefix}: {line}"
        if self.tty and any(t in line for t in TRANSIENT):
            self.stream.write("\r\033[K" + text)
            self.stream.flush()
            self.open = True
            return
        self.close()
        click.echo(text, file=self.stream)

    def close(self) -> None:
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False
