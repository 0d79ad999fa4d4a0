"""Tensor-core MMA parameters per architecture, and the exact scalar model (the oracle).

Implements steps 1-6 of /work/shared/specs/numerics.md (after Hawkeye, Khattak & Mikaitis, MMA-Sim and
Fasi et al.): exact products, groups of G in increasing k with the accumulator as one more term, per-term
truncation toward zero to a multiple of 2**(Emax-F), an exact integer sum, one rounding. The PTX ISA leaves all
of this unspecified ("mma", "wmma", "wgmma"); this module is the one place the choice is written down.
Everything here is Python ints, deliberately slow and obvious; `mma_vec` must agree with it bit for bit.

The structure of one instruction is part of the row too (`MmaParams.inst_k`, `c_after`, `split_mod`/`k_split`,
`operand_fmt`), and `schedule` turns it into the list of groups both models walk, so no architecture is
special-cased in code. Rows that come from GPU-measured dot products rather than the characterization papers
(issue 13; /work/shared/specs/numerics.md, "Findings from GPU-measured dot products") are marked below; their
exponent floors, inf/NaN and subnormal behaviour are not pinned by those data, only by the discriminating
vectors in tests/numerics/test_mma_rows.py, which a lent GPU settles with examples/probes/check_vectors.py.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from volta.errors import UsageError
from volta.numerics.formats import F16, F32, FORMATS, Format, Rnd, round_ratio, unpack
from volta.numerics.scalar import add, fma, read, write

ARCH_ALIASES = {
    "volta": "volta", "sm_70": "volta", "sm70": "volta", "70": "volta",
    "ampere": "ampere", "sm_80": "ampere", "sm_86": "ampere", "sm80": "ampere", "sm86": "ampere", "80": "ampere",
    "86": "ampere",
    "ada": "ada", "sm_89": "ada", "sm89": "ada", "89": "ada",
    "hopper": "hopper", "sm_90": "hopper", "sm_90a": "hopper", "sm90": "hopper", "sm90a": "hopper", "90": "hopper",
    # sm_120 (consumer Blackwell) shares the "blackwell" rows, unmeasured; note that its fp8 mma.sync compiles to a
    # native QMMA.16832, not to the B200's two HMMAs that the fp8 rows below describe.
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
    rounding: Rnd  # each group's rounding to the accumulator format: RZ for f32 accumulators, RN for f16
    cut14: bool = False  # fp8 on Ada/Hopper: accumulator and result cut to 14 significant bits
    ieee_fma: bool = False  # f64: a chain of ordinary IEEE fused multiply-adds
    # -- the structure of one instruction; the defaults are numerics.md steps 2-6 (c joins the first group,
    #    groups of `group` products in increasing k, one chain over all of K) --
    inst_k: int | None = None  # K of one instruction: the structure below repeats per instruction and the
    #                            instructions chain through the accumulator (None: one chain over all of K)
    c_after: Rnd | None = None  # None: c joins the first group. Otherwise each instruction sums its products
    #                             from a +0 accumulator and then d = c + sum in one IEEE addition rounded so
    split_mod: int = 1  # with k_split: an instruction's k (counted from its first) is split by k % split_mod...
    k_split: tuple[tuple[int, ...], ...] = ((0,),)  # ...into passes (pass i: k % split_mod in k_split[i]), each
    #                     a chain of groups in increasing k, run one after the other on the same accumulator
    operand_fmt: str | None = None  # inputs converted exactly to this format before the products (f16 HMMAs)
    pass_sum: Rnd | None = None  # None: the passes chain on one accumulator. Otherwise each pass starts from +0
    #                             and the pass results are added in order, one IEEE addition each, rounded so

    def __post_init__(self):
        if Rnd.RNA in (self.rounding, self.c_after, self.pass_sum):
            raise ValueError("tensor-core rounding is RN, RZ, RP or RM")
        if sorted(i for part in self.k_split for i in part) != list(range(self.split_mod)):
            raise ValueError(f"k_split {self.k_split} does not partition k mod {self.split_mod}")
        if (self.c_after is not None or self.split_mod > 1) and self.inst_k is None:
            raise ValueError("c_after and k_split need inst_k (they are per instruction)")
        if self.inst_k is not None and self.inst_k % self.split_mod:
            raise ValueError("inst_k must be a multiple of split_mod")
        if self.pass_sum is not None and self.c_after is None:
            raise ValueError("pass_sum needs c_after (each pass starts from +0, so c is added after)")


def _row(g, f, floor, rnd=Rnd.RZ, cut14=False):
    return MmaParams(g, f, floor, rnd, cut14)


_AMPERE = {
    ("f16", "f32"): _row(8, 24, -132), ("bf16", "f32"): _row(8, 24, -132),
    ("f16", "f16"): _row(8, 24, -20, Rnd.RN), ("tf32", "f32"): _row(4, 24, -132),
    ("f64", "f64"): MmaParams(1, 52, None, Rnd.RN, ieee_fma=True),
}
# fp8 `mma` m16n8k32 -> f32 (numerics.md): Ada natively, group 16, 13 extra bits, 14-bit cut.
_FP8_ADA = _row(16, 13, None, cut14=True)
# Ada fp8 -> f16 (issue 13, GPU-measured): native like the f32 row, c (f16) joins the first group, but each group's
# aligned sum is rounded straight to f16 with RNE (no 14-bit cut, no f32 intermediate). E_floor not pinned by
# the data; every fp8 product is a multiple of 2**-32, so with F = 13 no floor >= -19 could show at all.
_FP8_ADA_F16 = _row(16, 13, None, Rnd.RN)
# numerics.md's Hopper fp8 -> f32 row, which it gives for `wgmma` k32: group 32, 13 extra bits, 14-bit cut. It is
# not the `mma.sync` row (measured on an H200, below) but the native QGMMA.64xNx32 datapath that `wgmma` compiles
# to: the MATLAB-tensor-core study's H100 and H200 e4m3/e5m2 -> f32 sets (5,000 dot products each, taken with
# wgmma and a zero accumulator) give this row's word in every case (docs/numerics.md). Selected with
# `MmaSetting(inst="wgmma")` (volta/numerics/mma_select.py); volta does not execute wgmma yet.
HOPPER_WGMMA_FP8 = _row(32, 13, None, cut14=True)
_HOPPER_F16_F16 = _row(16, 25, -21, Rnd.RN)
_HOPPER_TF32 = _row(8, 25, -133)
_BLACKWELL_F16_F32 = _row(16, 25, -133)


def _as_two_hmmas(row: MmaParams, chained: bool = True) -> MmaParams:
    """fp8 `mma.sync` m16n8k32 run as two f16 HMMA.16816 (sm_90, sm_100): inputs converted exactly to f16, the
    first HMMA over the k with k % 4 in {0, 1} (bytes 0, 1 of each fragment register), the second over k % 4 in
    {2, 3}, each with `row`'s parameters; then d = RNE(c + that) in the accumulator format.

    `chained` (ptxas 12.8 to 13.x for sm_90, every ptxas for sm_100): the second HMMA accumulates onto the first's
    result, which starts from +0 — F2FP.F16.E4M3.UNPACK_B, HMMA.16816 from RZ, HMMA.16816 from the first result,
    then HADD2 / FADD of c. Not chained (ptxas 12.4 to 12.6 for sm_90, f32 only): both HMMAs start from RZ, then
    FADD of the two results, then FADD of c, all round-to-nearest-even. Read in the SASS (cuobjdump -sass) of
    each toolkit; docs/numerics.md, "Which instruction, which toolkit"."""
    return replace(row, inst_k=32, c_after=Rnd.RN, split_mod=4, k_split=((0, 1), (2, 3)), operand_fmt="f16",
                   pass_sum=None if chained else Rnd.RN)


# Hopper and Blackwell fp8 `mma.sync` -> f16 (issue 13, GPU-measured): two HMMAs with the Hopper f16 -> f16 row
# (group 16, 25 extra bits, floor -21, RNE), then RNE_f16(c + ...). "Halves" (k < 16, k >= 16) and one group of 32
# do not fit the data. The floor -21 cannot show with fp8 inputs (products are multiples of 2**-32 >= 2**-46).
_FP8_F16_SPLIT = _as_two_hmmas(_HOPPER_F16_F16)
# Blackwell fp8 -> f32 (issue 13, GPU-measured; replaces "group 32, c inside, RZ"): two chained groups of 16 from
# +0 (25 extra bits, truncation, RZ to f32), then d = RNE_f32(c + sum). The data (random normal inputs) do not say
# which k form each group (k order and k % 4 agree on 20,000 random products); ptxas's sm_100 code (two
# HMMA.16816.F32 on f16-converted bytes 0,1 / 2,3 of each register, then FADD) decides for k % 4. E_floor -133 is
# not observable with fp8 inputs.
_FP8_BLACKWELL = _as_two_hmmas(_BLACKWELL_F16_F32)
# Hopper fp8 `mma.sync` -> f32, measured on an H200 (sm_90, driver 580.159, 2026-12-04; examples/probes/h200): Blackwell's two HMMAs with the Hopper f16 -> f32 row, as ptxas's SASS says. Vectors Q1 and Q2 and
# mma-vectors.json's five fp8 vectors all give this row's words; numerics.md's `wgmma` row gives none of them.
_FP8_HOPPER = _as_two_hmmas(_row(16, 25, -133))
# The same instruction as ptxas 12.4 to 12.6 compile it (SASS only, no GPU measurement): two HMMAs from +0 each,
# their results added with FADD (RNE), then c. Random-normal data hardly tell it from the chained row (one word in
# the study's 10,000 distinct fp8 dot products differs; a third of dot products of uniformly random fp8 words do);
# vectors P1/P1' of tests/numerics/test_mma_select.py pin the difference.
HOPPER_FP8_PTXAS_12_4 = _as_two_hmmas(_row(16, 25, -133), chained=False)
_HOPPER = {
    ("f16", "f32"): _row(16, 25, -133), ("bf16", "f32"): _row(16, 25, -133),
    ("f16", "f16"): _HOPPER_F16_F16, ("tf32", "f32"): _HOPPER_TF32,
    ("e4m3", "f32"): _FP8_HOPPER, ("e5m2", "f32"): _FP8_HOPPER,
    ("e4m3", "f16"): _FP8_F16_SPLIT, ("e5m2", "f16"): _FP8_F16_SPLIT,
    ("f64", "f64"): MmaParams(1, 52, None, Rnd.RN, ieee_fma=True),
}
PARAMS: dict[str, dict[tuple[str, str], MmaParams]] = {
    "volta": {("f16", "f32"): _row(4, 23, None), ("f16", "f16"): _row(4, 23, -19, Rnd.RN)},
    "ampere": _AMPERE,
    "ada": {**_AMPERE, ("e4m3", "f32"): _FP8_ADA, ("e5m2", "f32"): _FP8_ADA,
            ("e4m3", "f16"): _FP8_ADA_F16, ("e5m2", "f16"): _FP8_ADA_F16},
    "hopper": _HOPPER,
    "blackwell": {
        ("f16", "f32"): _BLACKWELL_F16_F32, ("bf16", "f32"): _BLACKWELL_F16_F32,
        # B200 f16 -> f16 and tf32 -> f32 (issue 13, GPU-measured): the Hopper rows
        ("f16", "f16"): _HOPPER_F16_F16, ("tf32", "f32"): _HOPPER_TF32,
        ("e4m3", "f32"): _FP8_BLACKWELL, ("e5m2", "f32"): _FP8_BLACKWELL,
        ("e4m3", "f16"): _FP8_F16_SPLIT, ("e5m2", "f16"): _FP8_F16_SPLIT,
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
    for aw, bw in zip(a, b):
        c = fma(aw, bw, c, fmt)
    return c


@lru_cache(maxsize=512)
def schedule(K: int, p: MmaParams) -> tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]:
    """The row's structure as indices: per instruction, its passes; per pass, its groups of k in order.

    One instruction covers `p.inst_k` consecutive k (all of K when None; the last one is zero-padded, which adds
    nothing); inside it each pass of `p.k_split` is a chain of groups of `p.group` in increasing k. A pass or an
    instruction without products still has one (empty) group, in which the accumulator alone is rounded.
    Both the oracle and `mma_vec` walk this; nothing else encodes the order.
    """
    block = p.inst_k or max(K, 1)
    out = []
    for k0 in range(0, max(K, 1), block):
        ks = range(k0, min(k0 + block, K))
        passes = []
        for part in p.k_split:
            sel = [k for k in ks if (k - k0) % p.split_mod in part]
            passes.append(tuple(tuple(sel[g:g + p.group]) for g in range(0, max(len(sel), 1), p.group)))
        out.append(tuple(passes))
    return tuple(out)


@lru_cache(maxsize=None)
def convert_word(word: int, src: str, dst: str) -> int:
    """An input word converted exactly to another format (fp8 -> f16 for the HMMA rows); NaN -> canonical NaN."""
    s, d = FORMATS[src], FORMATS[dst]
    return write(read(word, s), d, Rnd.RN)


def mma_dot(a: list[int], b: list[int], c: int, arch: str, in_fmt: str, acc_fmt: str, *,
            params: MmaParams | None = None) -> int:
    """d = c + Σ a[k]·b[k] on one tensor core, bit for bit, as exact integer arithmetic (the oracle).

    `params` replaces the table row (for experiments and tests); `arch` is then not consulted."""
    p = params or params_for(arch, in_fmt, acc_fmt)
    fmt, afmt = FORMATS[in_fmt], FORMATS[acc_fmt]
    if len(a) != len(b):
        raise UsageError(f"a has {len(a)} words but b has {len(b)}")
    if p.ieee_fma:
        return _fma_chain(list(a), list(b), c, fmt)
    if in_fmt == "tf32":
        a, b = [tf32_truncate(w) for w in a], [tf32_truncate(w) for w in b]
    if p.operand_fmt is not None:
        a = [convert_word(w, in_fmt, p.operand_fmt) for w in a]
        b = [convert_word(w, in_fmt, p.operand_fmt) for w in b]
        fmt = FORMATS[p.operand_fmt]
    acc = c
    for passes in schedule(len(a), p):
        run, total = (0 if p.c_after is not None else acc), None
        for groups in passes:
            if p.pass_sum is not None:
                run = 0
            for ks in groups:
                if p.cut14:
                    run = cut14(run)
                run = _group(run, [a[k] for k in ks], [b[k] for k in ks], fmt, afmt, p)
            if p.pass_sum is not None:
                total = run if total is None else add(total, run, afmt, p.pass_sum)
        if p.pass_sum is not None:
            run = total
        if p.c_after is not None:
            run = add(acc, run, afmt, p.c_after)
        acc = run
    return acc


def mma_tile(a: list[list[int]], b: list[list[int]], c: list[list[int]], arch: str, in_fmt: str,
             acc_fmt: str, *, params: MmaParams | None = None) -> list[list[int]]:
    """D = C + A·B for A (M×K), B (K×N), C (M×N) word lists, element by element with `mma_dot`."""
    cols = list(zip(*b))
    return [[mma_dot(row, list(col), c[i][j], arch, in_fmt, acc_fmt, params=params) for j, col in enumerate(cols)]
            for i, row in enumerate(a)]


__all__ = ["ARCHS", "MmaParams", "PARAMS", "HOPPER_WGMMA_FP8", "HOPPER_FP8_PTXAS_12_4", "arch_name", "params_for",
           "mma_dot", "mma_tile", "cut14", "tf32_truncate", "schedule", "convert_word", "F16", "F32"]
