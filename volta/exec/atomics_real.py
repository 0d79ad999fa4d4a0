"""Atomic read-modify-writes over the reals (volta check): registered into dispatch.REAL."""
from __future__ import annotations
