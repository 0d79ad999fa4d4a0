"""The f32 bit identities `volta check` reads libdevice's logf/log2f through (volta/semantics/realops.py,
"the bits of an f32, read over the reals"), checked against IEEE binary32 itself.

For a positive normal f32 v and the split constant c (a positive normal f32; libdevice uses 0x3F2AAAAB ≈ 2/3):
  1. s = (bits(v) − bits(c)) & 0xFF800000, read as a signed integer, is k·2^23 with k = floor(log2(v/c));
  2. bits(v) − s is an f32 with v's mantissa field and exponent field in [1, 254], so its value is
     exactly v·2^−k, and it lies in [c, 2c);
  3. cvt.rn.f32.s32(s) is exact (k·2^23 has at most 9 significant bits);
  4. `setp.{lt,le,gt,ge}.{u32,s32} bits(v), K` is the real comparison `bits_compare` returns, for every
     non-NaN v (the reals have no −0: it is compared as 0, so −0 is skipped).
Why 1–2 hold for every c (not only libdevice's): with E, M the exponent and mantissa fields,
bits(v) − bits(c) = (Ev − Ec)·2^23 + (Mv − Mc), so the mask leaves (Ev − Ec − [Mv < Mc])·2^23, and
floor(log2(v/c)) = Ev − Ec + floor(log2((2^23 + Mv)/(2^23 + Mc))) = Ev − Ec − [Mv < Mc]; the result's
exponent field is Ec + [Mv < Mc], in [1, 254] when Ec <= 253. This script checks the claims for every
positive normal f32 (2,130,706,432 values, `--full`, about a minute a constant) or a strided sample with
all exponent and mantissa edges (the default; run by tests/semantics/test_float_bits.py).
"""
from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from volta.semantics import realops  # noqa: E402
from volta.symbolic import expr as E  # noqa: E402
from volta.symbolic.evaluate import evaluate  # noqa: E402

SPLIT_CONSTANTS = (0x3F2AAAAB, 0x3F3504F3, 0x3F400000, 0x3F800000)   # libdevice's 2/3; 1/√2, 3/4, 1
FIRST, END = 0x00800000, 0x7F800000                                  # positive normal f32 bit patterns
MASK = 0xFF800000


def split_failures(bits: np.ndarray, c_bits: int, mask: int = MASK) -> np.ndarray:
    """The bit patterns among `bits` (positive normal f32, uint32) for which claims 1–3 fail."""
    b = bits.astype(np.int64)
    s = ((b - c_bits) & mask).astype(np.uint32).view(np.int32).astype(np.int64)
    k = s >> 23
    m = (b - s).astype(np.uint32)
    field = (m >> 23).astype(np.int64)
    c = float(np.array([c_bits], np.uint32).view(np.float32)[0])
    value = m.view(np.float32).astype(np.float64)
    ok = (s % (1 << 23) == 0) & (field >= 1) & (field <= 254) & ((m & 0x7FFFFF) == (bits & 0x7FFFFF))
    ok &= (value >= c) & (value < 2 * c)
    ok &= np.float32(s.astype(np.float32)).astype(np.int64) == s          # claim 3: the conversion is exact
    return bits[~ok]


def sample() -> np.ndarray:
    """Every exponent with its mantissa edges and neighbours of libdevice's mantissas, plus a stride."""
    fields = np.arange(1, 255, dtype=np.uint32) << 23
    edges = np.array([0, 1, 2, 0x2AAAAA, 0x2AAAAB, 0x2AAAAC, 0x3504F3, 0x400000, 0x7FFFFE, 0x7FFFFF], np.uint32)
    grid = (fields[:, None] | edges[None, :]).ravel()
    return np.unique(np.concatenate([grid, np.arange(FIRST, END, 104_729, dtype=np.uint32)]))


def check_split(c_bits: int, full: bool = False, mask: int = MASK, chunk: int = 1 << 25) -> int:
    """Number of failing values of claims 1–3 for this constant (0: proved on the values checked)."""
    if not full:
        return int(split_failures(sample(), c_bits, mask).size)
    bad = 0
    for lo in range(FIRST, END, chunk):
        bad += int(split_failures(np.arange(lo, min(lo + chunk, END), dtype=np.uint32), c_bits, mask).size)
    return bad


def check_compare(values: np.ndarray, constants: list[int]) -> list[str]:
    """Claim 4 on these f32 bit patterns against these constants; the failures as text."""
    x = E.var("x", 0)
    failures = []
    words = [int(w) for w in values if (int(w) & 0x7FFFFFFF) <= 0x7F800000 and int(w) != 0x80000000]
    for k in constants:
        for cmp in (".lt", ".le", ".gt", ".ge"):
            for signed in (False, True):
                cond = realops.bits_compare(cmp, signed, x, k, True)
                for w in words:
                    v = realops.f32_value(w)
                    if v is None:
                        continue   # ±inf has no real value
                    a, b = (w - (1 << 32) if w >> 31 else w, k - (1 << 32) if k >> 31 else k) if signed else (w, k)
                    want = {".lt": a < b, ".le": a <= b, ".gt": a > b, ".ge": a >= b}[cmp]
                    if evaluate(cond, {x: Fraction(v)}) != want:
                        failures.append(f"setp{cmp}.{'s' if signed else 'u'}32 0x{w:08X}, 0x{k:08X}")
    return failures


COMPARE_CONSTANTS = [0x7F800000, 0x7F7FFFFF, 0x00800000, 0x00000000, 0x80000000, 0x80800000, 0xFF800000, 0x3F800000]


def compare_values() -> np.ndarray:
    rng = np.random.default_rng(7)
    edges = [0, 1, 0x007FFFFF, 0x00800000, 0x3F7FFFFF, 0x3F800000, 0x3F800001, 0x7F7FFFFF, 0x7F800000]
    edges += [e | 0x80000000 for e in edges]
    return np.concatenate([np.array(edges, np.uint32), rng.integers(0, 1 << 32, 400, dtype=np.uint64).astype(np.uint32)])


def main(argv=()) -> int:
    full = "--full" in argv
    bad = 0
    for c in SPLIT_CONSTANTS:
        n = check_split(c, full)
        print(f"split by 0x{c:08X}: {'ok' if n == 0 else f'{n} failures'} "
              f"({'every positive normal f32' if full else f'{sample().size:,} sampled values'})")
        bad += n
    failures = check_compare(compare_values(), COMPARE_CONSTANTS)
    print(f"bit comparisons against constants: {'ok' if not failures else failures[:5]}")
    return 1 if bad or failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
