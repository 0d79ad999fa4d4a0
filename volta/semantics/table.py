"""The opcode table of the bits domain: `TABLE[opcode]` is a handler `(decoded, *source bits) -> destination bits`,
filled by the `handles` decorator.

Its own module so that the handler modules (compute.py, bitops.py) register into it without importing each other:
compute.py imports bitops.py after its own handlers, and bitops.py wraps some of them (packed 16-bit add, sub,
min, max) by reading them back from the table.
"""
from __future__ import annotations

TABLE = {}


def handles(*names):
    def register(fn):
        for n in names:
            TABLE[n] = fn
        return fn
    return register


def instruction_type(d):
    """The type a handler computes in: the instruction's last type suffix (`.b32` where it has none)."""
    return d.types[-1] if d.types else ".b32"
