"""Asynchronous copies (cp.async, cp.async.bulk) over the reals (volta check): data movement, registered into dispatch.REAL."""
from __future__ import annotations
