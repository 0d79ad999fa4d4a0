"""The tensor-core model of `mma_model`, vectorized with numpy over whole tiles and batches of dot products.

Why float64 is exact here: every input product (≤ 22 significant bits, exponents in [-272, 256]) is exact in
f64; scaling by a power of two is exact; each truncated term is an integer below 2**(F+2) and a group adds at most
33 of them, so the group sum stays below 2**53. Alignment exponents are int16 arrays; the group maximum is two
int16 ufuncs per product, the truncation three f64 ufuncs. Work is blocked over rows so the working set stays
in L2. Specials (inf, NaN) take a separate, slower path that runs only when a tile contains any.
The order of groups (instructions, split-k passes chained or summed, c joining the first group or added after)
comes from `mma_model.schedule`, the same function the oracle walks; rounding is the row's `MmaParams.rounding`.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from volta.errors import UsageError
from volta.numerics.formats import FORMATS, Format, NanStyle, Rnd
from volta.numerics.mma_model import CUT14_MASK, MmaParams, convert_word, mma_dot, params_for, schedule
from volta.numerics.scalar import add

ZERO_EXP = -16000  # alignment exponent of a zero operand: never the maximum, and two of them fit in int16
NO_FLOOR = -900  # stands in for "no E_floor": below every real exponent, and 2**(F+900) is a finite f64
BLOCK_ELEMS = 1 << 15  # output elements per block: the work arrays stay in L2 (measured best at 2**15-2**17)


@dataclass(frozen=True)
class Operand:
    """Decoded words: finite value (0 for inf/NaN), alignment exponent, and the full value with specials."""

    val: np.ndarray  # float64
    exp: np.ndarray  # int16, ZERO_EXP where the value is zero or special
    full: np.ndarray  # float64 with inf/NaN
    special: bool  # any inf or NaN present


def _decode_arith(words: np.ndarray, fmt: Format) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Generic field decoding: (value with specials, alignment exponent, is-zero-or-special)."""
    w = words.astype(np.int64)
    neg = (w >> (fmt.width - 1)) & 1
    bits = (w & (fmt.sign_bit - 1)) >> fmt.pad
    frac = bits & ((1 << fmt.man_bits) - 1)
    biased = bits >> fmt.man_bits
    normal = biased > 0
    sig = np.where(normal, frac | (1 << fmt.man_bits), frac)
    e = np.where(normal, biased - fmt.bias, fmt.emin)
    val = np.ldexp(sig.astype(np.float64), (e - fmt.man_bits).astype(np.int32))
    top = (1 << fmt.exp_bits) - 1
    if fmt.nan_style is NanStyle.IEEE:
        val = np.where(biased == top, np.where(frac == 0, np.inf, np.nan), val)
    elif fmt.nan_style is NanStyle.FN:
        val = np.where((biased == top) & (frac == (1 << fmt.man_bits) - 1), np.nan, val)
    val = np.where(neg == 1, -val, val)
    dead = (sig == 0) | ~np.isfinite(val)
    return val, np.where(dead, ZERO_EXP, e).astype(np.int16), dead


@lru_cache(maxsize=None)
def _table(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode tables for formats of at most 16 bits: one gather per operand instead of ten ufuncs."""
    fmt = FORMATS[name]
    return _decode_arith(np.arange(1 << fmt.width, dtype=np.int64), fmt)


def check_words(words, fmt: Format, what: str) -> np.ndarray:
    arr = np.asarray(words)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise UsageError(f"{what}: expected integer {fmt.name} words, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or int(arr.max()) > fmt.word_mask):
        raise UsageError(f"{what}: word out of range for {fmt.width}-bit {fmt.name}")
    if fmt.width == 64:
        return arr.astype(np.uint64)
    return arr.astype(np.int64) if fmt.width > 16 else arr.astype(np.intp)


def decode_operand(words, fmt: Format, what: str = "operand") -> Operand:
    w = check_words(words, fmt, what)
    if fmt.name == "tf32":
        w = w & 0xFFFFE000  # tensor cores read only the top 19 bits
    if fmt.width <= 16:
        tv, te, tdead = _table(fmt.name)
        full, exp, dead = tv[w], te[w], tdead[w]
    else:
        full, exp, dead = _decode_arith(w, fmt)
    special = bool(np.any(~np.isfinite(full))) if full.size else False
    val = np.where(np.isfinite(full), full, 0.0) if special else full
    return Operand(val, exp, full, special)


def _acc_exp(val: np.ndarray, fmt: Format) -> np.ndarray:
    """Alignment exponent of accumulator values (finite f64): floor(log2|x|), clamped at emin."""
    _, e = np.frexp(val)
    e = np.maximum(e.astype(np.int32) - 1, fmt.emin)
    return np.where(val == 0, ZERO_EXP, e).astype(np.int16)


def _round_acc(res: np.ndarray, acc: Format, p: MmaParams) -> np.ndarray:
    """Round exact f64 group sums to accumulator words with `p.rounding`; |x| >= 2**(emax+1) becomes ±inf.

    numpy's casts f64 -> f32 / f16 are correctly rounded to nearest-even; the directed modes step the word one
    place from that (sign-magnitude words: word - 1 is one step toward zero, + 1 one away), exactly
    `formats.round_ratio(..., overflow_to_inf=True)` of the oracle."""
    fl = np.float16 if acc.name == "f16" else np.float32
    with np.errstate(over="ignore"):
        r = res.astype(fl)
    words = r.view(_word_dtype(acc))
    rnd = p.rounding
    if rnd is not Rnd.RN:
        rv = r.astype(np.float64)
        if rnd is Rnd.RZ:
            words -= (np.abs(rv) > np.abs(res)).astype(words.dtype)  # RN → RZ: one step toward 0
        else:
            wrong = rv < res if rnd is Rnd.RP else rv > res
            away = (rv >= 0) == (rnd is Rnd.RP)  # RP moves positive words away from 0, negative ones toward
            words += np.where(wrong & away, 1, 0).astype(words.dtype)
            words -= np.where(wrong & ~away, 1, 0).astype(words.dtype)
    over = np.abs(res) >= 2.0 ** (acc.emax + 1)
    if over.any():
        words[over] = np.where(res[over] < 0, acc.sign_bit | acc.inf_word, acc.inf_word).astype(words.dtype)
    if p.cut14:
        finite = (words & 0x7F800000) != 0x7F800000
        words &= np.where(finite, CUT14_MASK, 0xFFFFFFFF).astype(np.uint32)
    return words


def _add_words(x: np.ndarray, y: np.ndarray, acc: Format, rnd: Rnd) -> np.ndarray:
    """x + y on accumulator words as one IEEE addition rounded with `rnd` (the `c_after` step)."""
    if rnd is not Rnd.RN:  # no row uses a directed c_after today: the exact scalar add, element by element
        flat = [add(int(u), int(v), acc, rnd) for u, v in zip(x.reshape(-1).tolist(), y.reshape(-1).tolist())]
        return np.array(flat, dtype=_word_dtype(acc)).reshape(x.shape)
    fl = np.float16 if acc.name == "f16" else np.float32
    xv, yv = x.astype(_word_dtype(acc)).view(fl), y.astype(_word_dtype(acc)).view(fl)
    with np.errstate(over="ignore", invalid="ignore"):
        if acc.name == "f16":  # exact in f64, then one rounding
            s = (xv.astype(np.float64) + yv.astype(np.float64)).astype(np.float16)
        else:
            s = xv + yv  # IEEE f32 addition, round to nearest even
    words = s.view(_word_dtype(acc)).copy()
    nan = np.isnan(s)
    if nan.any():
        words[nan] = acc.canonical_nan
    return words


def _word_dtype(acc: Format):
    return np.uint16 if acc.width == 16 else np.uint32


def _acc_decode(words: np.ndarray, acc: Format) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accumulator words → (finite value, alignment exponent, full value with specials)."""
    fl = np.float16 if acc.name == "f16" else np.float32
    full = words.astype(_word_dtype(acc)).view(fl).astype(np.float64)
    finite = np.isfinite(full)
    val = np.where(finite, full, 0.0)
    return val, _acc_exp(val, acc), full


def _chain(a: Operand, b: Operand, c_words: np.ndarray, acc: Format, p: MmaParams) -> np.ndarray:
    """Run all groups of `schedule(K, p)` for one block; a.val[k] and b.val[k] broadcast to c_words' shape."""
    shape = c_words.shape
    K = a.val.shape[0]
    words = c_words.astype(_word_dtype(acc))
    work = (np.empty(shape), np.empty(shape), np.empty(shape, dtype=np.int16), np.empty(shape, dtype=np.int16))
    specials = a.special or b.special
    zero = np.zeros(shape, _word_dtype(acc))
    for passes in schedule(K, p):
        run, total = (zero if p.c_after is not None else words), None
        for groups in passes:
            if p.pass_sum is not None:
                run = zero
            for ks in groups:
                run = _group(a, b, run, ks, acc, p, work, specials)
            if p.pass_sum is not None:
                total = run if total is None else _add_words(total, run, acc, p.pass_sum)
        if p.pass_sum is not None:
            run = total
        words = _add_words(words, run, acc, p.c_after) if p.c_after is not None else run
    return words


def _group(a: Operand, b: Operand, words: np.ndarray, ks, acc: Format, p: MmaParams, work, specials: bool):
    """One group: the accumulator words plus the products k in `ks`, aligned, truncated, summed, rounded once."""
    tmp, s, emax, tmp_e = work
    floor = p.e_floor if p.e_floor is not None else NO_FLOOR
    if p.cut14:
        finite = (words & 0x7F800000) != 0x7F800000
        words = words & np.where(finite, CUT14_MASK, 0xFFFFFFFF).astype(np.uint32)
    c_val, c_exp, c_full = _acc_decode(words, acc)
    np.maximum(c_exp, floor, out=emax)
    for k in ks:
        np.add(a.exp[k], b.exp[k], out=tmp_e)
        np.maximum(emax, tmp_e, out=emax)
    scale = np.ldexp(1.0, p.frac_bits - emax.astype(np.int32))
    np.multiply(c_val, scale, out=s)
    np.trunc(s, out=s)
    for k in ks:
        np.multiply(a.val[k], scale, out=tmp)
        np.multiply(tmp, b.val[k], out=tmp)
        np.trunc(tmp, out=tmp)
        np.add(s, tmp, out=s)
    np.divide(s, scale, out=s)
    s += 0.0  # a zero result is +0
    out = _round_acc(s, acc, p)
    if specials or not np.all(np.isfinite(c_full)):
        spec = np.where(np.isfinite(c_full), 0.0, c_full)
        with np.errstate(invalid="ignore"):
            for k in ks:
                t = a.full[k] * b.full[k]
                spec += np.where(np.isfinite(t), 0.0, t)
        inf = np.isinf(spec)
        out[inf] = np.where(spec[inf] < 0, acc.sign_bit | acc.inf_word, acc.inf_word)
        out[np.isnan(spec)] = acc.canonical_nan
    return out


@lru_cache(maxsize=None)
def _convert_table(src: str, dst: str) -> np.ndarray:
    return np.array([convert_word(w, src, dst) for w in range(1 << FORMATS[src].width)], dtype=np.int64)


def _operands(A, B, in_fmt: str, p: MmaParams):
    """Input words and their format after the row's exact operand conversion (fp8 -> f16 for the HMMA rows)."""
    if p.operand_fmt is None:
        return A, B, FORMATS[in_fmt]
    fmt = FORMATS[in_fmt]
    table = _convert_table(in_fmt, p.operand_fmt)
    A, B = check_words(A, fmt, "A"), check_words(B, fmt, "B")
    return table[A], table[B], FORMATS[p.operand_fmt]


def _formats(in_fmt: str, acc_fmt: str) -> tuple[Format, Format]:
    if in_fmt not in FORMATS or acc_fmt not in FORMATS:
        raise UsageError(f"unknown format in {in_fmt!r} -> {acc_fmt!r}")
    return FORMATS[in_fmt], FORMATS[acc_fmt]


def _fma_fallback(a_rows, b_cols, c, arch, in_fmt, acc_fmt):
    """f64 mma is an IEEE fma chain: exact per element (rarely hot)."""
    out = np.empty(c.shape, dtype=np.uint64)
    for idx in np.ndindex(c.shape):
        out[idx] = mma_dot([int(x) for x in a_rows[idx]], [int(x) for x in b_cols[idx]], int(c[idx]),
                           arch, in_fmt, acc_fmt)
    return out


def _run_blocks(job, starts, workers: int | None) -> None:
    """numpy releases the GIL inside ufuncs, so row blocks run in parallel threads."""
    workers = min(workers or 1, len(starts))
    with np.errstate(over="ignore", invalid="ignore"):
        if workers <= 1:
            for i in starts:
                job(i)
            return
    def guarded(i):
        with np.errstate(over="ignore", invalid="ignore"):
            job(i)
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(guarded, starts))


def mma(A_words, B_words, C_words, arch: str, in_fmt: str, acc_fmt: str, *, workers: int | None = None,
        params: MmaParams | None = None) -> np.ndarray:
    """D = C + A·B with the tensor-core model: A (M×K), B (K×N) input words, C (M×N) accumulator words.

    Returns D as uint32 (f32), uint16 (f16) or uint64 (f64) words; bit-identical to `mma_model.mma_dot`
    applied to every element. A kernel that loops mma over K with one accumulator is one call over all K.
    `params` replaces the table row, as in `mma_dot`.
    """
    p = params or params_for(arch, in_fmt, acc_fmt)
    fmt, acc = _formats(in_fmt, acc_fmt)
    A, B = np.asarray(A_words), np.asarray(B_words)
    C = check_words(C_words, acc, "C")
    if A.ndim != 2 or B.ndim != 2 or C.ndim != 2:
        raise UsageError("mma: A, B and C must be 2-D arrays of words")
    (M, K), (K2, N) = A.shape, B.shape
    if K != K2 or C.shape != (M, N):
        raise UsageError(f"mma: shapes {A.shape} x {B.shape} + {C.shape} do not match")
    if p.ieee_fma:
        return _fma_fallback(np.broadcast_to(A[:, None, :], (M, N, K)), np.broadcast_to(B.T[None], (M, N, K)),
                             C, arch, in_fmt, acc_fmt)
    A, B, fmt = _operands(A, B, in_fmt, p)
    a = decode_operand(np.ascontiguousarray(A.T)[:, :, None], fmt, "A")  # (K, M, 1)
    b = decode_operand(B[:, None, :], fmt, "B")  # (K, 1, N)
    out = np.empty((M, N), dtype=_word_dtype(acc))
    rows = max(1, BLOCK_ELEMS // max(N, 1))

    def job(i):
        sl = slice(i, i + rows)
        out[sl] = _chain(Operand(a.val[:, sl], a.exp[:, sl], a.full[:, sl], a.special), b, C[sl], acc, p)

    _run_blocks(job, range(0, M, rows), workers)
    return out


def mma_batch(A_words, B_words, C_words, arch: str, in_fmt: str, acc_fmt: str, *,
              workers: int | None = None, params: MmaParams | None = None) -> np.ndarray:
    """Independent dot products: row i of D is C[i] + A[i]·B[i] for A, B (L×K) and C (L,)."""
    p = params or params_for(arch, in_fmt, acc_fmt)
    fmt, acc = _formats(in_fmt, acc_fmt)
    A, B = np.asarray(A_words), np.asarray(B_words)
    C = check_words(C_words, acc, "C")
    if A.shape != B.shape or A.ndim != 2 or C.shape != A.shape[:1]:
        raise UsageError(f"mma_batch: shapes {A.shape}, {B.shape}, {C.shape} do not match")
    if p.ieee_fma:
        return _fma_fallback(A, B, C, arch, in_fmt, acc_fmt)
    A, B, fmt = _operands(A, B, in_fmt, p)
    a = decode_operand(np.ascontiguousarray(A.T), fmt, "A")  # (K, L)
    b = decode_operand(np.ascontiguousarray(B.T), fmt, "B")
    out = np.empty(C.shape, dtype=_word_dtype(acc))

    def job(i):
        sl = slice(i, i + BLOCK_ELEMS)
        ablk = Operand(a.val[:, sl], a.exp[:, sl], a.full[:, sl], a.special)
        bblk = Operand(b.val[:, sl], b.exp[:, sl], b.full[:, sl], b.special)
        out[sl] = _chain(ablk, bblk, C[sl], acc, p)

    _run_blocks(job, range(0, C.shape[0], BLOCK_ELEMS), workers)
    return out
