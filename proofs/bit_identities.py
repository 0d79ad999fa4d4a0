"""The identities `volta check --fp … --prove` uses, checked against Volta's bit-exact semantics.

volta/equiv/bitproof.py treats every instruction as a function of its operands' bits; two outputs
that are the same term have the same bits. It applies three identities on top of that congruence:
1. commutativity of the first two sources of the opcodes in COMMUTATIVE (every type, rounding and
   modifier listed below) and of the comparisons in COMMUTATIVE_CMP;
2. integer `add` without `.sat` as a sum modulo 2^w (associative, commutative, 0 the identity,
   signedness irrelevant), so summation trees of integers do not matter;
3. `selp a, b, p` with a known p is a (p true) or b;
4. packed registers (mma fragments, `mov.b32 r, {h0, h1}`): `bits@k(pack(e…)) = e_k`,
   `pack(bits@0(R), bits@w(R), …) = R`, and both folded on constants (`check_packing` tests the folding
   code against plain shifts and masks). Tensor-core MMA terms themselves: proofs/mma_terms.md.
(2) and (3) hold by the definition of two's-complement addition and of selp. (1) is a claim about
the semantics tables, so this script checks it exhaustively on special values (±0, ±inf, NaNs with
different payloads, subnormals, extremes, ±1) and on random words, for every variant, through
`volta.semantics.compute` — the same code that replays kernels bit for bit. Run by tests/equiv.
"""
from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from volta.equiv.bitproof import COMMUTATIVE, COMMUTATIVE_CMP  # noqa: E402
from volta.ptx import ast  # noqa: E402
from volta.ptx.decode import decode  # noqa: E402
from volta.semantics import compute as C  # noqa: E402

SPECIAL = {
    16: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE00, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0x3C00,
         0xBC00, 0x3555],
    32: [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00001, 0x00000001,
         0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F800000, 0xBF800000, 0x3EAAAAAB, 0x4B000000],
    64: [0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x7FF0000000000001,
         0xFFF8000000000001, 1, (1 << 63) | 1, 0x000FFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000,
         0x7FEFFFFFFFFFFFFF],
}
ROUNDINGS = ("", ".rn", ".rz", ".rm", ".rp")
VARIANTS = {
    "add": [f"add{r}{f}.f32" for r in ROUNDINGS for f in ("", ".ftz")] + [f"add{r}.f64" for r in ROUNDINGS]
           + ["add.sat.f32", "add.ftz.sat.f32", "add.s32", "add.u32", "add.s64", "add.sat.s32", "add.u16",
              "add.rn.f16", "add.rn.bf16", "add.rn.f16x2"],
    "mul": [f"mul{r}{f}.f32" for r in ROUNDINGS for f in ("", ".ftz")] + [f"mul{r}.f64" for r in ROUNDINGS]
           + ["mul.lo.s32", "mul.hi.s32", "mul.hi.u32", "mul.wide.s32", "mul.wide.u32", "mul.lo.u64",
              "mul.rn.f16", "mul.rn.bf16"],
    "fma": [f"fma{r}{f}.f32" for r in (".rn", ".rz", ".rm", ".rp") for f in ("", ".ftz")]
           + [f"fma{r}.f64" for r in (".rn", ".rz")] + ["fma.rn.sat.f32", "fma.rn.f16", "fma.rn.bf16"],
    "mad": ["mad.lo.s32", "mad.hi.s32", "mad.wide.s32", "mad.lo.u64", "mad.rn.f32"],
    "and": ["and.b32", "and.b64", "and.pred"], "or": ["or.b32", "or.b64"], "xor": ["xor.b32", "xor.b64"],
    "min": ["min.f32", "min.ftz.f32", "min.NaN.f32", "min.f64", "min.s32", "min.u32", "min.s64", "min.f16"],
    "max": ["max.f32", "max.ftz.f32", "max.NaN.f32", "max.f64", "max.s32", "max.u32", "max.s64", "max.f16"],
}
COMPARES = [f"setp{c}.f32" for c in COMMUTATIVE_CMP] + [f"setp{c}.f64" for c in COMMUTATIVE_CMP] + \
    ["setp.eq.s32", "setp.ne.u32", "setp.eq.f32", "setp.ne.f16"]


def _decoded(opcode: str, n: int):
    ops = tuple(f"%r{i}" for i in range(n))
    return decode(ast.Instruction(opcode, ops, None, 1, 1))


def _width(opcode: str) -> int:
    t = opcode.rsplit(".", 1)[1]
    return 32 if t == "pred" else 32 if t.endswith("x2") else int("".join(ch for ch in t if ch.isdigit()))


def _operands(w: int, arity: int, rng: random.Random) -> list:
    special = SPECIAL.get(w, SPECIAL[32])
    pairs = list(itertools.product(special, repeat=2))
    pairs += [(rng.getrandbits(w), rng.getrandbits(w)) for _ in range(400)]
    third = special[:4] + [rng.getrandbits(w) for _ in range(4)]
    return [(a, b, c) for (a, b) in pairs for c in (third if arity == 3 else [0])]


def check_commutative(opcode: str, rng: random.Random) -> int:
    """Number of failures (0 when `opcode` commutes in its first two sources on every operand tried)."""
    base = opcode.split(".")[0]
    arity = 3 if base in ("fma", "mad") else 2
    d = _decoded(opcode, arity + 1)
    w = _width(opcode)
    triples = _operands(w, arity, rng)
    a = np.array([t[0] for t in triples], np.uint64)
    b = np.array([t[1] for t in triples], np.uint64)
    c = np.array([t[2] for t in triples], np.uint64)
    args, swapped = (a, b, c)[:arity], (b, a, c)[:arity]
    fn = C.TABLE[base]
    return int(np.count_nonzero(np.asarray(fn(d, *args)) != np.asarray(fn(d, *swapped))))


def check_compare(opcode: str, rng: random.Random) -> int:
    d = _decoded(opcode, 3)
    w = _width(opcode)
    pairs = _operands(w, 2, rng)
    a = np.array([p[0] for p in pairs], np.uint64)
    b = np.array([p[1] for p in pairs], np.uint64)
    return int(np.count_nonzero(C.compare(d, a, b) != C.compare(d, b, a)))


def check_packing(rng: random.Random, trials: int = 500) -> int:
    """bitproof.element / bitproof.pack on constants against shifts and masks; and their exact inverses."""
    from volta.equiv.bitproof import _CONSTANT_BITS, bit_constant, element, pack
    from volta.symbolic import expr as E

    bad = 0
    for _ in range(trials):
        for ew, n in ((16, 2), (8, 4)):
            word = rng.getrandbits(ew * n)
            c = bit_constant(word, f".b{ew * n}")
            parts = [element(c, k, ew) for k in range(n)]
            bad += any(_CONSTANT_BITS[p] != (word >> (k * ew)) & ((1 << ew) - 1) for k, p in enumerate(parts))
            bad += _CONSTANT_BITS[pack(parts, ew)] != word
    r = E.var("R", 0)
    h = [E.var("h", k) for k in range(4)]
    bad += pack([element(r, k, 16) for k in range(2)], 16) is not r
    bad += any(element(pack(h[:2], 16), k, 16) is not h[k] for k in range(2))
    bad += pack([element(r, 1, 16), element(r, 0, 16)], 16) is r     # swapped halves are another word
    return bad


def main() -> int:
    rng = random.Random(12)
    failures, checked = [], 0
    checked += 1
    if check_packing(rng):
        failures.append("pack/element")
    for base in sorted(COMMUTATIVE):
        for opcode in VARIANTS[base]:
            checked += 1
            if check_commutative(opcode, rng):
                failures.append(opcode)
    for opcode in COMPARES:
        checked += 1
        if check_compare(opcode, rng):
            failures.append(opcode)
    print(f"{checked} opcode variants checked for commutativity; failures: {failures or 'none'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
