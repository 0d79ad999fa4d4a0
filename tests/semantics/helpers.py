"""Shared helpers: decode one instruction, run a compute handler on lists of words, tiny kernels on the Machine."""
from __future__ import annotations

import numpy as np

from volta.ptx import ast
from volta.ptx.decode import decode
from volta.semantics import compute as C


def D(opcode: str, n_operands: int | None = None):
    """A decoded instruction for `opcode` (operands are placeholders; only modifiers matter to handlers)."""
    base = opcode.split(".")[0]
    counts = {"fma": 4, "mad": 4, "bfe": 4, "bfi": 5, "prmt": 4, "lop3": 5, "shf": 4, "selp": 4, "slct": 4,
              "sad": 4, "dp4a": 4, "mad24": 4, "testp": 2, "cvt": 2, "abs": 2, "neg": 2, "not": 2, "cnot": 2,
              "popc": 2, "clz": 2, "brev": 2, "bfind": 2, "sqrt": 2, "rcp": 2, "rsqrt": 2, "ex2": 2, "lg2": 2,
              "sin": 2, "cos": 2, "tanh": 2, "mov": 2}
    n = n_operands or counts.get(base, 3)
    ops = tuple(ast.Reg(f"%r{i}") for i in range(n)) if hasattr(ast, "Reg") else tuple(f"%r{i}" for i in range(n))
    return decode(ast.Instruction(opcode, ops, None, 1, 1))


def words(*xs):
    return np.array([int(x) & 0xFFFFFFFFFFFFFFFF for x in xs], dtype=np.uint64)


def op(opcode: str, *srcs):
    """Run TABLE[base] on scalar words (ints or lists of ints) and return a list of ints."""
    d = D(opcode, 1 + len(srcs))
    arrays = np.broadcast_arrays(*(words(*(s if isinstance(s, (list, tuple)) else [s])) for s in srcs))
    out = C.TABLE[d.op](d, *arrays)
    return [int(v) for v in np.asarray(out)]


def one(opcode: str, *srcs) -> int:
    return op(opcode, *srcs)[0]


def setp(opcode: str, a, b) -> bool:
    d = D(opcode, 3)
    return bool(C.compare(d, words(a), words(b))[0])
