"""Pure helpers on lane arrays of raw bits (np.uint64): widths, signedness, float views.

Every register holds its bits zero-extended in a uint64 lane array; these functions give the
typed view an instruction needs and put results back, so integer ops are bit-exact with widths.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

U64 = np.uint64
MASKS = {w: np.uint64((1 << w) - 1) for w in (1, 8, 16, 32, 64)}
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SINT = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}


@lru_cache(maxsize=None)   # called for every operand of every step: a handful of distinct type names
def width(t: str) -> int:
    if t == ".pred":
        return 1
    if t in (".f16x2", ".bf16x2"):
        return 32
    digits = "".join(c for c in t if c.isdigit())
    return int(digits) if digits else 32


def signed(t: str) -> bool:
    return t.startswith(".s")


def is_float(t: str) -> bool:
    return t[1] == "f" or t.startswith(".bf") or t == ".tf32"


def mask(bits: np.ndarray, w: int) -> np.ndarray:
    return bits & MASKS[w] if w < 64 else bits


def as_uint(bits: np.ndarray, w: int) -> np.ndarray:
    return bits.astype(UINT[w]) if w < 64 else bits


def as_int(bits: np.ndarray, w: int) -> np.ndarray:
    """Signed view of the low w bits."""
    return bits.astype(UINT[w]).view(SINT[w]) if w < 64 else bits.view(np.int64)


def from_int(values: np.ndarray, w: int) -> np.ndarray:
    """Any integer array → low w bits as uint64 (two's complement)."""
    return mask(values.astype(np.int64).view(np.uint64) if values.dtype.kind == "i" else values.astype(np.uint64), w)


def as_float(bits: np.ndarray, t: str) -> np.ndarray:
    if t == ".f32":
        return bits.astype(np.uint32).view(np.float32)
    if t == ".f64":
        return bits.view(np.float64)
    if t == ".f16":
        return bits.astype(np.uint16).view(np.float16)
    if t == ".bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    raise KeyError(t)


def from_float(values: np.ndarray, t: str) -> np.ndarray:
    if t == ".f32":
        return values.astype(np.float32).view(np.uint32).astype(np.uint64)
    if t == ".f64":
        return values.astype(np.float64).view(np.uint64)
    if t == ".f16":
        return values.astype(np.float16).view(np.uint16).astype(np.uint64)
    if t == ".bf16":
        return bf16_round(values.astype(np.float32))
    raise KeyError(t)


def bf16_round(values: np.ndarray) -> np.ndarray:
    """float32 → bf16 bits, round to nearest even, NaN → canonical 0x7fff."""
    b = values.view(np.uint32).astype(np.uint64)
    rounded = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    return np.where(np.isnan(values), np.uint64(0x7FFF), rounded & np.uint64(0xFFFF))


def f32_nan_canonical(bits: np.ndarray, values: np.ndarray) -> np.ndarray:
    """NVIDIA hardware returns the canonical NaN 0x7fffffff from f32 arithmetic."""
    return np.where(np.isnan(values), np.uint64(0x7FFFFFFF), bits)
