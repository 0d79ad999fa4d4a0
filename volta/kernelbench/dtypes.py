"""Tensor element types of the torch stand-in: torch's names, Volta's names, and type promotion.

`torch.float32` in a problem file is one of these objects; a tensor's storage records the Volta name
(`f32`, `f16`, `bf16`, `f64`, `s8`, `u8`, `s16`, `s32`, `s64`, `bool`), the spelling launch specs use.
Promotion follows torch's categories (bool < integer < floating): two tensors promote to the wider type
of the higher category; a Python scalar only lifts the category (an `int` tensor times `0.5` is the
default float type, `f32`), as `torch.result_type` does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class DType:
    """One element type; compared by identity, like torch's dtype objects."""

    torch_name: str   # "float32"
    volta: str        # "f32"
    category: int     # 0 bool, 1 integer, 2 floating
    itemsize: int
    rank: int         # order within the category, for promotion

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOAT

    @property
    def is_signed(self) -> bool:
        return self.volta not in ("u8", "bool")

    @property
    def is_complex(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"torch.{self.torch_name}"

    def to_numpy(self):
        """The numpy type of a concrete array of this dtype (bf16 widened to float32)."""
        return _NUMPY[self.volta]


BOOL, INT, FLOAT = 0, 1, 2

bool_ = DType("bool", "bool", BOOL, 1, 0)
uint8 = DType("uint8", "u8", INT, 1, 0)
int8 = DType("int8", "s8", INT, 1, 1)
int16 = DType("int16", "s16", INT, 2, 2)
int32 = DType("int32", "s32", INT, 4, 3)
int64 = DType("int64", "s64", INT, 8, 4)
float16 = DType("float16", "f16", FLOAT, 2, 0)
bfloat16 = DType("bfloat16", "bf16", FLOAT, 2, 0)
float32 = DType("float32", "f32", FLOAT, 4, 1)
float64 = DType("float64", "f64", FLOAT, 8, 2)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
BY_VOLTA = {d.volta: d for d in ALL}
DEFAULT_FLOAT = float32
DEFAULT_INT = int64

# torch's attribute names for each dtype (torch.float is float32, torch.long is int64, ...)
TORCH_NAMES = {
    "bool": bool_, "uint8": uint8, "int8": int8, "int16": int16, "short": int16, "int32": int32, "int": int32,
    "int64": int64, "long": int64, "float16": float16, "half": float16, "bfloat16": bfloat16,
    "float32": float32, "float": float32, "float64": float64, "double": float64,
}

_NUMPY = {"bool": np.bool_, "u8": np.uint8, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
          "f16": np.float16, "bf16": np.float32, "f32": np.float32, "f64": np.float64}


def promote(a: DType, b: DType) -> DType:
    """The result type of an operation on two tensors."""
    if a.category != b.category:
        return a if a.category > b.category else b
    if a is b:
        return a
    if {a.volta, b.volta} == {"f16", "bf16"}:
        return float32
    if {a.volta, b.volta} == {"u8", "s8"}:
        return int16
    return a if a.rank >= b.rank else b


def scalar_category(value) -> int:
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, np.integer)):
        return INT
    return FLOAT


def promote_scalar(t: DType, value) -> DType:
    """The result type of a tensor of type `t` with a Python scalar: the scalar lifts only the category."""
    category = scalar_category(value)
    if category <= t.category:
        return t
    return DEFAULT_FLOAT if category == FLOAT else DEFAULT_INT


def of_scalar(value) -> DType:
    """The dtype torch gives a tensor made from this Python scalar."""
    return {BOOL: bool_, INT: DEFAULT_INT, FLOAT: DEFAULT_FLOAT}[scalar_category(value)]
