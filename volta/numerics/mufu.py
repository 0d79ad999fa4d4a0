"""`.approx` results as the special-function unit of an NVIDIA H200 (sm_90) computes them, bit for bit.

PTX documents only error bounds for these instructions. An H200 was measured on 2026-12-04 (examples/probes/
approx_probe.py, README "Results"): over whole binades for the tables below, and on 262,144 random operands per
instruction for the rules that reduce every other operand to a table entry; a second sample of 200,000 operands
per instruction (another seed, and the .ftz forms of sqrt and both divisions) then gave 0 differing words. The
rules, each checked on every random operand it covers:

- rcp(x), x = m·2^e with m in [1, 2): the word of rcp(m) with its exponent lowered by e;
- sqrt(x), rsqrt(x), x = m·2^(2k) with m in [1, 4): sqrt(m)·2^k, rsqrt(m)·2^-k;
- ex2(x): x is cut toward zero to 23 fraction bits, |x| = n + f; 2^f from one table for x >= 0 and 2^-f from
  another for x < 0 (the unit does not derive one from the other), then scaled by 2^±n;
- lg2(x), x = m·2^e: RZ(e + lg2(m)) for e >= 0 with m in [1, 2); RZ((e + 1) + lg2(m/2)) for e < 0;
- tanh(x): odd; x itself below 2^-8, 1 from 16 on, in between one table per binade indexed by the top 19
  fraction bits (20 on [1, 2) and [4, 8), 21 on [2, 4));
- div.approx and div.full: RN(x · rcp(y)), with the scalings of `_div`.

Operands the rules do not decide (`evaluate`'s mask: mostly zeros, infinities and NaN) keep volta's documented
choice (volta/numerics/approx.py), as do f32 sin and cos (not reconstructed) and f64. The 16-bit ex2 and
tanh (f16, bf16) were measured on every operand, so `evaluate16` is a lookup. The tables ship in
data/mufu_sm90.npz (regenerate with `examples/probes/approx_probe.py tables`). Other architectures' units are
not measured; volta uses these tables for every --fp mode, as the closest known answer.

A table is stored as differences (2 MB for all of them); decoded it is up to 32 MB, and decoding one took
0.1-0.4 s. So each is decoded once into Volta's cache directory (`mufu/` under $VOLTA_CACHE_DIR, else
~/.cache/volta) and mapped read-only from there: a process reads in only the pages it looks up, and processes
running side by side (a batch, test workers) share them.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from volta.cuda import cache_root

TABLES = Path(__file__).with_name("data") / "mufu_sm90.npz"
OPS = frozenset({"ex2", "lg2", "rcp", "rsqrt", "sqrt", "tanh", "div", "div.full"})
# tanh keeps this many fewer of its operand's fraction bits in the binade 2^e (4 elsewhere: 19 bits)
TANH_SHIFT = {0: 3, 1: 2, 2: 3}
# 16-bit instructions, measured on all 65,536 operands: the table is the function
OPS16 = frozenset({("ex2", "f16"), ("ex2", "bf16"), ("tanh", "f16"), ("tanh", "bf16")})
_MANT = np.uint32(0x7FFFFF)


@lru_cache(maxsize=None)
def table(name: str) -> np.ndarray:
    """The result words of one table (up to 2^23), mapped from the decoded copy in the cache (made on first use;
    decoded in memory when the cache cannot be written)."""
    path = cache_root() / "mufu" / f"{name}.{_tables_digest()}.npy"
    try:
        return np.load(path, mmap_mode="r")
    except (OSError, ValueError):
        pass
    words = _decode(name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".npy", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, words)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return np.load(path, mmap_mode="r")
    except (OSError, ValueError):
        return words   # a read-only cache is only slower


def _decode(name: str) -> np.ndarray:
    with np.load(TABLES) as z:
        step = z[f"{name}.step"].astype(np.int64)
        step[z[f"{name}.big_at"]] = z[f"{name}.big"]
    return np.cumsum(step).astype(np.uint32)


@lru_cache(maxsize=1)
def _tables_digest() -> str:
    """Names the decoded copies after the shipped tables' content, so new tables never meet old copies."""
    return hashlib.sha256(TABLES.read_bytes()).hexdigest()[:16]


@lru_cache(maxsize=None)
def _words16(op: str, fmt: str) -> np.ndarray:
    with np.load(TABLES) as z:
        return z[f"{op}_{fmt}.words"]


def evaluate16(op: str, fmt: str, word: np.ndarray) -> np.ndarray:
    """ex2/tanh.approx of f16 or bf16 words, from the H200's results on every operand ((op, fmt) in OPS16)."""
    return _words16(op, fmt)[np.asarray(word).astype(np.uint16)]


def _f32(w) -> np.ndarray:
    return np.asarray(w, np.uint32).view(np.float32)


def _mul(w: np.ndarray, c: float) -> np.ndarray:
    """RN(word · c) in f32 (numpy's float32 multiply), as a word."""
    return (_f32(w) * np.float32(c)).view(np.uint32)


def _subnormal(w: np.ndarray) -> np.ndarray:
    return ((w >> 23) & 0xFF == 0) & (w & _MANT != 0)


def _fields(w: np.ndarray):
    w = w.astype(np.uint32)
    return w >> 31, ((w >> 23) & 0xFF).astype(np.int64), w & _MANT


def _scaled(t: np.ndarray, shift: np.ndarray):
    """Table words with `shift` added to their exponents, and whether the result is still normal."""
    e = ((t >> 23) & 0xFF).astype(np.int64) + shift
    ok = (e > 0) & (e < 255)
    return ((np.clip(e, 0, 255).astype(np.uint32) << 23) | (t & _MANT)).astype(np.uint32), ok


def _rcp(x):
    s, e, m = _fields(x)
    w, ok = _scaled(table("rcp")[m], -(e - 127))
    return w | (s.astype(np.uint32) << 31), ok & (e > 0) & (e < 255)


def _root(x, name: str, sign: int):
    s, e, m = _fields(x)
    k = e - 127
    t = np.where(k & 1, table(f"{name}_2")[m], table(f"{name}_1")[m])
    w, ok = _scaled(t, sign * (k >> 1))
    return w, ok & (s == 0) & (e > 0) & (e < 255)


def _ex2(x):
    v = x.astype(np.uint32).view(np.float32).astype(np.float64)
    finite = np.isfinite(v) & (np.abs(v) < 128)
    q = np.trunc(np.abs(np.where(finite, v, 0)) * 2.0 ** 23).astype(np.int64)  # |x| cut to 23 fraction bits
    n, f = q >> 23, q & 0x7FFFFF
    neg = v < 0
    pos_w, pos_ok = _scaled(table("ex2_pos")[f], n - 1)  # the table holds 2^(1 + f)
    neg_w, neg_ok = _scaled(table("ex2_neg")[f], -n)
    return np.where(neg, neg_w, pos_w), finite & np.where(neg, neg_ok, pos_ok)


def _lg2(x):
    s, e, m = _fields(x)
    k = e - 127
    small = k < 0
    t = np.where(small, table("lg2_05")[m], table("lg2_1")[m]).view(np.float32).astype(np.float64)
    v = np.where(small, k + 1, k) + t  # exact in float64
    r = v.astype(np.float32)
    r = np.where(np.abs(r.astype(np.float64)) > np.abs(v), np.nextafter(r, np.float32(0)), r)  # RZ
    ok = (s == 0) & (e > 0) & (e < 255) & (r != 0)
    return r.view(np.uint32), ok


def _tanh(x):
    a = x & np.uint32(0x7FFFFFFF)
    e = ((a >> 23) & 0xFF).astype(np.int64) - 127
    r = np.where(e <= -9, a, np.uint32(0x3F800000)).astype(np.uint32)  # x below 2^-8, 1 from 16 on
    for b in range(-8, 4):
        s = e == b
        if s.any():
            r[s] = table(f"tanh_{b}")[(a[s] & _MANT) >> TANH_SHIFT.get(b, 4)]
    return r | (x & np.uint32(0x80000000)), e < 128


def _div(x, y, full: bool):
    """div.approx: x · rcp(y) (0 for |y| >= 2^126); div.full: the same, but (x/4) · rcp(y/4) for |y| >= 2^126; a
    subnormal y: (x · rcp(y·2^24))·2^24. Every step an f32 multiply (RN, subnormals kept); x and y finite, y != 0."""
    xv, yv = _f32(x), _f32(y)
    big = np.abs(yv) >= np.float32(2.0 ** 126)
    sub = _subnormal(y)
    y_in = np.where(big, _mul(y, 0.25), np.where(sub, _mul(y, 2.0 ** 24), y))
    r, ok = _unflushed("rcp", y_in, *_rcp(y_in))
    q = xv * _f32(r)
    q = np.where(sub, q * np.float32(2.0 ** 24), q)
    if full:
        q = np.where(big, (xv * np.float32(0.25)) * _f32(r), q)
    else:
        q = np.where(big, np.where((x ^ y) >> 31 == 1, np.float32(-0.0), np.float32(0.0)), q)
    return q.astype(np.float32).view(np.uint32), ok & np.isfinite(xv) & np.isfinite(yv) & (yv != 0)


_RULES = {"rcp": _rcp, "sqrt": lambda x: _root(x, "sqrt", 1), "rsqrt": lambda x: _root(x, "rsqrt", -1),
          "ex2": _ex2, "lg2": _lg2, "tanh": _tanh,
          "div": lambda x, y: _div(x, y, full=False), "div.full": lambda x, y: _div(x, y, full=True)}


def _core(op: str, *words):
    return _RULES[op](*words)


# Without .ftz, ptxas wraps the unit's instruction in scalings (read off the H200's results, each 100% of the
# random operands it covers): a subnormal operand is scaled by 2^24 first and the result corrected after with one
# f32 multiply (rcp ·2^24, sqrt ·2^-12, rsqrt ·2^12) or add (lg2 -24); rcp of |x| >= 2^126 is rcp(x/4)/4; ex2 of
# x < -126 is ex2(x/2) squared. The corrections round (RN) where the result is subnormal.
_SUB_FIX = {"rcp": ("mul", 2.0 ** 24), "sqrt": ("mul", 2.0 ** -12), "rsqrt": ("mul", 2.0 ** 12), "lg2": ("add", -24.0)}


def _unflushed(op: str, x: np.ndarray, r: np.ndarray, ok: np.ndarray):
    if op in _SUB_FIX:
        sub = _subnormal(x)
        if sub.any():
            rs, oks = _core(op, _mul(x, 2.0 ** 24))
            how, c = _SUB_FIX[op]
            fixed = _mul(rs, c) if how == "mul" else (_f32(rs) + np.float32(c)).view(np.uint32)
            r, ok = np.where(sub, fixed, r), np.where(sub, oks, ok)
    v = np.abs(_f32(x))
    if op == "rcp":
        big = np.isfinite(v) & (v >= 2.0 ** 126)
        if big.any():
            rb, okb = _core("rcp", _mul(x, 0.25))
            r, ok = np.where(big, _mul(rb, 0.25), r), np.where(big, okb, ok)
    if op == "ex2":
        low = np.isfinite(v) & (_f32(x) < -126)
        if low.any():
            rh, okh = _core("ex2", _mul(x, 0.5))
            r, ok = np.where(low, (_f32(rh) * _f32(rh)).view(np.uint32), r), np.where(low, okh, ok)
    return r, ok


def evaluate(op: str, *words: np.ndarray, ftz: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(result words, mask of the lanes these rules decide) for f32 `op.approx{.ftz}` on operand words."""
    words = [np.asarray(w).astype(np.uint32) for w in words]
    with np.errstate(all="ignore"):
        r, ok = _core(op, *words)
        if not ftz and op in ("rcp", "sqrt", "rsqrt", "lg2", "ex2"):
            r, ok = _unflushed(op, words[0], r, ok)
        if ftz and op in ("div", "div.full"):  # flushed operands and results: the RN path (it matched the H200)
            ok &= ~_subnormal(words[0]) & ~_subnormal(words[1]) & ~_subnormal(r)
    return r, ok
