"""Tensor-core MMA parameters per architecture, and the exact scalar model (the oracle).

Implements steps 1-6 of /work/shared/specs/numerics.md (after Hawkeye, Khattak & Mikaitis, MMA-Sim and
Fasi et al.): exact products, groups of G in increasing k with the accumulator as one more term, per-term
truncation toward zero to a multiple of 2**(Emax-F), an exact integer sum, one rounding. The PTX ISA leaves all
of this unspecified ("mma", "wmma", "wgmma"); this module is the one place the choice is written down.
Everything here is Python ints, deliberately slow and obvious; `mma_vec` must agree with it bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass

from volta.errors import UsageError
from volta.numerics.formats import F16, F32, FORMATS, Format, Rnd, round_ratio, unpack

ARCH_ALIASES = {
    "volta": "volta", "sm_70": "volta", "sm70": "volta", "70": "volta",
    "ampere": "ampere", "sm_80": "ampere", "sm_86": "ampere", "sm80": "ampere", "sm86": "ampere", "80": "ampere",
    "86": "ampere",
    "ada": "ada", "sm_89": "ada", "sm89": "ada", "89": "ada",
    "hopper": "hopper", "sm_90": "hopper", "sm_90a": "hopper", "sm90": "hopper", "sm90a": "hopper", "90": "hopper",
    "blackwell": "blackwell", "sm_100": "blackwell", "sm_100a": "blackwell", "sm_120": "blackwell",
    "sm_120a": "blackwell", "sm100": "blackwell", "sm120": "blackwell", "100": "blackwell", "120": "blackwell",
}
ARCHS = ("volta", "ampere", "ada", "hopper", "blackwell")


@dataclass(frozen=True)
class MmaParams:
    """One row of the parameter table: how one architecture adds one group of products."""

    group: int  # G: products per group
    frac_bits: int  # F: fraction bits kept below the group's largest exponent
    e_floor: int | None  # Emax never goes below this (None: no floor observed)
    rounding: Rnd  # output rounding: RZ for f32 accumulators, RN for f16
    cut14: bool = False  # fp8 on Ada/Hopper: accumulator and result cut to 14 significant bits
    ieee_fma: bool = False  # f64: a chain of ordinary IEEE fused multiply-adds


def _row(g, f, floor, rnd=Rnd.RZ, cut14=False):
    return MmaParams(g, f, floor, rnd, cut14)


_AMPERE = {
    ("f16", "f32"): _row(8, 24, -132), ("bf16", "f32"): _row(8, 24, -132),
    ("f16", "f16"): _row(8, 24, -20, Rnd.RN), ("tf32", "f32"): _row(4, 24, -132),
    ("f64", "f64"): MmaParams(1, 52, None, Rnd.RN, ieee_fma=True),
}
_FP8_ADA = _row(16, 13, None, cut14=True)
_FP8_HOPPER = _row(32, 13, None, cut14=True)
_HOPPER = {
    ("f16", "f32"): _row(16, 25, -133), ("bf16", "f32"): _row(16, 25, -133),
    ("f16", "f16"): _row(16, 25, -21, Rnd.RN), ("tf32", "f32"): _row(8, 25, -133),
    ("e4m3", "f32"): _FP8_HOPPER, ("e5m2", "f32"): _FP8_HOPPER,
    ("f64", "f64"): MmaParams(1, 52, None, Rnd.RN, ieee_fma=True),
}
PARAMS: dict[str, dict[tuple[str, str], MmaParams]] = {
    "volta": {("f16", "f32"): _row(4, 23, None), ("f16", "f16"): _row(4, 23, -19, Rnd.RN)},
    "ampere": _AMPERE,
    "ada": {**_AMPERE, ("e4m3", "f32"): _FP8_ADA, ("e5m2", "f32"): _FP8_ADA},
    "hopper": _HOPPER,
    "blackwell": {
        ("f16", "f32"): _row(16, 25, -133), ("bf16", "f32"): _row(16, 25, -133),
        ("e4m3", "f32"): _row(32, 25, -133), ("e5m2", "f32"): _row(32, 25, -133),
    },
}


def arch_name(arch: str) -> str:
    try:
        return ARCH_ALIASES[arch.lower()]
    except KeyError:
        raise UsageError(f"unknown architecture {arch!r} (known: {', '.join(ARCHS)} or sm_XX)") from None


def params_for(arch: str, in_fmt: str, acc_fmt: str) -> MmaParams:
    """The table row for (arch, input format, accumulator format); a missing row is a usage error."""
    arch = arch_name(arch)
    row = PARAMS[arch].get((in_fmt, acc_fmt))
    if row is None:
        have = ", ".join(f"{i}->{a}" for i, a in PARAMS[arch])
        raise UsageError(f"no tensor-core model for {arch} {in_fmt} -> {acc_fmt} (have: {have})")
    return row


# ---------------------------------------------------------------------------------------------- oracle

CUT14_MASK = 0xFFFFFC00  # keep sign, exponent and 13 fraction bits of an f32 word


def cut14(word: int) -> int:
    """RZ an f32 word to 14 significant bits; inf and NaN are left alone."""
    return word if (word & 0x7F800000) == 0x7F800000 else word & CUT14_MASK


def tf32_truncate(word: int) -> int:
    """Tensor cores read only the top 19 bits of a tf32 operand."""
    return word & 0xFFFFE000


@dataclass(frozen=True)
class _Term:
    """±sig * 2**lsb with exponent `e` (the term's alignment exponent)."""

    neg: bool
    sig: int
    lsb: int
    e: int


def _input_term(aw: int, bw: int, fmt: Format) -> tuple[str, _Term | None]:
    """Exact product of two input words: ('num', term) or ('inf', ±) / ('nan', None)."""
    a, b = unpack(aw, fmt), unpack(bw, fmt)
    if a.kind == "nan" or b.kind == "nan":
        return "nan", None
    neg = a.neg != b.neg
    if a.kind == "inf" or b.kind == "inf":
        if a.is_zero or b.is_zero:
            return "nan", None
        return "inf", _Term(neg, 1, 0, 0)
    e = a.exp + b.exp
    return "num", _Term(neg, a.sig * b.sig, e - 2 * fmt.man_bits, e)


def _group(acc: int, a: list[int], b: list[int], fmt: Format, acc_fmt: Format, p: MmaParams) -> int:
    """One group: the accumulator word plus G products, one rounding. Returns the new accumulator word."""
    c = unpack(acc, acc_fmt)
    terms, infs = [], set()
    if c.kind == "nan":
        return acc_fmt.canonical_nan
    if c.kind == "inf":
        infs.add(c.neg)
    elif c.sig:
        terms.append(_Term(c.neg, c.sig, c.exp - acc_fmt.man_bits, c.exp))
    for aw, bw in zip(a, b):
        kind, t = _input_term(aw, bw, fmt)
        if kind == "nan":
            return acc_fmt.canonical_nan
        if kind == "inf":
            infs.add(t.neg)
        elif t.sig:
            terms.append(t)
    if infs:
        return acc_fmt.canonical_nan if len(infs) == 2 else (acc_fmt.sign_bit * infs.pop()) | acc_fmt.inf_word
    if not terms:
        return 0
    emax = max(t.e for t in terms)
    if p.e_floor is not None:
        emax = max(emax, p.e_floor)
    q = emax - p.frac_bits
    total = 0
    for t in terms:
        mag = t.sig << (t.lsb - q) if t.lsb >= q else t.sig >> (q - t.lsb)
        total += -mag if t.neg else mag
    if total == 0:
        return 0
    neg, mag = total < 0, abs(total)
    num, den = (mag << q, 1) if q >= 0 else (mag, 1 << -q)
    word = round_ratio(neg, num, den, acc_fmt, p.rounding, overflow_to_inf=True)
    return cut14(word) if p.cut14 else word


def _fma_chain(a: list[int], b: list[int], c: int, fmt: Format) -> int:
    from volta.numerics.scalar import fma  # f64 mma is ordinary IEEE fma, one k at a time

    for aw, bw in zip(a, b):
        c = fma(aw, bw, c, fmt)
    return c


def mma_dot(a: list[int], b: list[int], c: int, arch: str, in_fmt: str, acc_fmt: str) -> int:
    """d = c + Σ a[k]·b[k] on one tensor core, bit for bit, as exact integer arithmetic (the oracle)."""
    p = params_for(arch, in_fmt, acc_fmt)
    fmt, afmt = FORMATS[in_fmt], FORMATS[acc_fmt]
    if len(a) != len(b):
        raise UsageError(f"a has {len(a)} words but b has {len(b)}")
    if p.ieee_fma:
        return _fma_chain(list(a), list(b), c, fmt)
    if in_fmt == "tf32":
        a, b = [tf32_truncate(w) for w in a], [tf32_truncate(w) for w in b]
    acc = c
    for k0 in range(0, max(len(a), 1), p.group):
        if p.cut14:
            acc = cut14(acc)
        acc = _group(acc, a[k0:k0 + p.group], b[k0:k0 + p.group], fmt, afmt, p)
    return acc


def mma_tile(a: list[list[int]], b: list[list[int]], c: list[list[int]], arch: str, in_fmt: str,
             acc_fmt: str) -> list[list[int]]:
    """D = C + A·B for A (M×K), B (K×N), C (M×N) word lists, element by element with `mma_dot`."""
    cols = list(zip(*b))
    return [[mma_dot(row, list(col), c[i][j], arch, in_fmt, acc_fmt) for j, col in enumerate(cols)]
            for i, row in enumerate(a)]


__all__ = ["ARCHS", "MmaParams", "PARAMS", "arch_name", "params_for", "mma_dot", "mma_tile", "cut14",
           "tf32_truncate", "F16", "F32"]
