"""cuRAND's XORWOW generator written independently in numpy (Marsaglia's xorwow as curand_kernel.h documents
it), for checking what `volta run` computes from the PTX nvcc makes of curand_init / curand_uniform.

The subsequence skip-ahead of `curand_init(seed, subsequence, 0, &s)` advances the 160-bit xorshift state by
subsequence · 2^67 steps. cuRAND does that with its precalculated matrix tables (in the PTX as
`precalc_xorwow_matrix`); here the one-step transition is built as a 160×160 matrix over GF(2) and raised to
2^67 by squaring, so the tables are not used. The Weyl counter `d` is not moved by a subsequence skip (2^67 ·
362437 ≡ 0 mod 2^32).
"""
from __future__ import annotations

import numpy as np

M32 = 0xFFFFFFFF


def _step(v):
    t = (v[0] ^ (v[0] >> 2)) & M32
    return [v[1], v[2], v[3], v[4], ((v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))) & M32]


def _bits(v) -> np.ndarray:
    return np.array([(v[i // 32] >> (i % 32)) & 1 for i in range(160)], np.int64)


def _words(b) -> list:
    return [int(sum(int(b[32 * w + k]) << k for k in range(32))) for w in range(5)]


def _transition() -> np.ndarray:
    """Column j: the state after one step from the state with only bit j set (the step is GF(2)-linear)."""
    cols = []
    for j in range(160):
        v = [0] * 5
        v[j // 32] = 1 << (j % 32)
        cols.append(_bits(_step(v)))
    return np.array(cols, np.int64).T


def _gf2_mul(a, b):
    return (a @ b) & 1


def subsequence_jumps(count: int) -> list:
    """J^s for s = 0..count-1, where J = (one step)^(2^67)."""
    j = _transition()
    for _ in range(67):
        j = _gf2_mul(j, j)
    out = [np.eye(160, dtype=np.int64)]
    for _ in range(1, count):
        out.append(_gf2_mul(j, out[-1]))
    return out


def init(seed: int, subsequence: int, jumps=None, offset: int = 0):
    """(v[0..4], d) after curand_init(seed, subsequence, offset) (the offset by stepping: keep it small)."""
    s0 = (seed & M32) ^ 0xAAD26B49
    s1 = ((seed >> 32) & M32) ^ 0xF7DCEFDD
    t0 = (1099087573 * s0) & M32
    t1 = (2591861531 * s1) & M32
    d = (6615241 + t1 + t0) & M32
    v = [(123456789 + t0) & M32, 362436069 ^ t0, (521288629 + t1) & M32, 88675123 ^ t1, (5783321 + t0) & M32]
    if subsequence:
        jump = (jumps or subsequence_jumps(subsequence + 1))[subsequence]
        v = _words((jump @ _bits(v)) & 1)
    for _ in range(offset):
        v = _step(v)
    return v, (d + 362437 * offset) & M32


def next_u32(v, d):
    """curand(): (value, new v, new d)."""
    v = _step(v)
    d = (d + 362437) & M32
    return (v[4] + d) & M32, v, d


def uniform(x: int) -> np.float32:
    """_curand_uniform: x · 2^-32 + 2^-33 in float32 (the product is exact, so fma and mul+add agree)."""
    return np.float32(np.float32(np.uint32(x)) * np.float32(2.0 ** -32) + np.float32(2.0 ** -33))


def first_uniforms(seed: int, n: int) -> np.ndarray:
    """What curand_init(seed, tid, 0, &s); curand_uniform(&s) gives thread tid = 0..n-1."""
    jumps = subsequence_jumps(n)
    out = np.empty(n, np.float32)
    for tid in range(n):
        v, d = init(seed, tid, jumps)
        x, _, _ = next_u32(v, d)
        out[tid] = uniform(x)
    return out
