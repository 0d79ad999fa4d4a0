"""Errors raised while a problem or candidate file runs on the torch stand-in, with the file's line.

The stand-in's own frames are skipped: the span is the innermost frame outside `volta/kernelbench`, the
line of the problem (or candidate) file that called the op. `unsupported(what)` is an op or argument
outside the modelled set (exit 3); `TorchError` is what torch would raise (a shape mismatch, a bad
argument): a RuntimeError the file may catch, turned into a usage error by `problem.py` if it does not.
"""
from __future__ import annotations

import inspect
import os
import sys

from volta.errors import Span, Unsupported

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def user_span() -> Span | None:
    """file:line:col of the innermost caller outside the stand-in (None when there is none)."""
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not os.path.abspath(path).startswith(_PACKAGE + os.sep) and not path.startswith("<frozen"):
            positions = inspect.getframeinfo(frame, context=0).positions
            col = (positions.col_offset + 1) if positions and positions.col_offset is not None else 1
            return Span(path, frame.f_lineno, col)
        frame = frame.f_back
    return None


def unsupported(what: str, reason: str | None = None) -> Unsupported:
    """An Unsupported error naming `what` at the calling line of the problem file (raise it)."""
    message = f"{what}: {reason}" if reason else f"{what} is not modelled by the torch stand-in"
    return Unsupported(message, user_span())


class TorchError(RuntimeError):
    """An error torch itself would raise; carries the calling line of the problem file."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message
        self.span = user_span()
