"""Bit-exact floating-point semantics: formats, rounding, scalar PTX float ops and tensor-core MMA models.

A leaf package (imports nothing else from volta but `errors`). Exact Python-int/Fraction code is the
reference; numpy paths are tested against it bit for bit.

- `formats`: Format table (FORMATS), Rnd, decode/encode/round_ratio.
- `scalar`, `convert`, `approx`: one instruction on Python-int words (the oracle).
- `lanes`: the same ops over numpy arrays of lane words (what the executor calls).
- `mma_model`: per-architecture parameters and the exact dot-product oracle; `mma_vec`: the numpy model;
  `mma_select`: which row a setting (the instruction, the ptxas version) gets, and what it rests on.
"""
from volta.numerics.approx import APPROX_OPS
from volta.numerics.formats import FORMATS, Format, Rnd, decode, encode
from volta.numerics.mma_model import mma_dot
from volta.numerics.mma_vec import mma, mma_batch

__all__ = ["APPROX_OPS", "FORMATS", "Format", "Rnd", "decode", "encode", "mma", "mma_batch", "mma_dot"]
