"""The pure layout functions of wgmma (volta/exec/handlers/wgmma_layout.py) against the PTX ISA's own statements.

Fragments (§9.7.15.5.1.1, Figures 148-153) are checked against CUTLASS's CuTe thread-value layouts of the same
figures (cute/atom/mma_traits_sm90_gmma.hpp: CLayout_64xN, ALayout_64x8/64x16/64x32), evaluated here by a small
CuTe layout evaluator: an independent transcription. Shared-memory addresses are checked against the "Exact
layout" examples of §9.7.15.5.1.2.1.3 (K-major no-swizzle tf32, MN-major none/32B/64B bf16) and the swizzle
against Swizzle<B,4,3> over byte addresses with its pattern boundaries (§9.7.15.5.1.2.2)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from volta.exec.handlers import wgmma_layout as L


def cute(shape, stride, coord):
    """A CuTe layout (nested shape/stride tuples) at a linear coordinate (colexicographic)."""
    if isinstance(shape, int):
        return coord * stride
    out = 0
    for s, d in zip(shape, stride):
        size = int(np.prod(_flat(s)))
        out += cute(s, d, coord % size)
        coord //= size
    return out


def _flat(s):
    return [s] if isinstance(s, int) else [x for y in s for x in _flat(y)]


# CUTLASS thread-value layouts: (thread, value) -> index of a column-major M x cols tile, M = 64
TV = {
    "C": lambda n: (((4, 8, 4), (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512))),
    8: lambda n: (((4, 8, 4), (2, 2)), ((64, 1, 16), (8, 256))),
    16: lambda n: (((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512))),
    32: lambda n: (((4, 8, 4), (4, 2, 2)), ((256, 1, 16), (64, 8, 1024))),
}


def _cute_cells(which, cols, slots):
    (tshape, vshape), (tstride, vstride) = TV[which](cols)
    idx = np.array([[cute(tshape, tstride, t) + cute(vshape, vstride, v) for v in range(slots)] for t in range(128)])
    return idx % 64, idx // 64


@pytest.mark.parametrize("n", [8, 16, 64, 96, 248, 256])
def test_accumulator_layout_is_cutlass_clayout(n):
    rows, cols = L.table(L.accumulator, n // 2)
    want = _cute_cells("C", n, n // 2)
    assert (rows == want[0]).all() and (cols == want[1]).all()
    assert len(set(zip(rows.ravel().tolist(), cols.ravel().tolist()))) == 64 * n   # every element once


@pytest.mark.parametrize("k", [8, 16, 32])
def test_a_fragment_layout_is_cutlass_alayout(k):
    rows, cols = L.table(L.A_LAYOUT[k], 64 * k // 128)
    want = _cute_cells(k, k, 64 * k // 128)
    assert (rows == want[0]).all() and (cols == want[1]).all()
    assert len(set(zip(rows.ravel().tolist(), cols.ravel().tolist()))) == 64 * k


@given(st.integers(0, (1 << 18) - 16), st.integers(0, (1 << 18) - 16), st.integers(0, (1 << 18) - 16),
       st.sampled_from([0, 32, 64, 128]))
def test_descriptor_fields_round_trip(start, lbo, sbo, swz):
    """§9.7.15.5.1.2.2: bits 13-0, 29-16, 45-32 hold matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4, 63-62 the
    swizzle (0 none, 1 128B, 2 64B, 3 32B)."""
    d = L.decode_descriptor(L.encode_descriptor(start, lbo, sbo, swz))
    assert (d.start, d.lbo, d.sbo, d.swizzle, d.base_offset) == (start & ~15, lbo & ~15, sbo & ~15, swz, 0)
    assert d.undocumented_bits == 0
    assert L.decode_descriptor(L.encode_descriptor(start, lbo, sbo, swz) | 1 << 47).undocumented_bits == 1 << 47


def test_swizzle_codes():
    word = L.encode_descriptor(0, 0, 0, 32)
    assert word >> 62 == 3 and L.decode_descriptor(1 << 62).swizzle == 128 and L.decode_descriptor(2 << 62).swizzle == 64


@pytest.mark.parametrize("width,pattern", [(32, 256), (64, 512), (128, 1024)])
def test_swizzle_permutes_chunks_within_each_pattern(width, pattern):
    """Swizzle<B,4,3>: bits [4, 4+B) ^= bits [7, 7+B); a permutation of 16-byte chunks inside each `width`-byte
    segment, by the index of its 128-byte line, that repeats every `pattern` bytes (§9.7.15.5.1.2.2's table)."""
    addr = np.arange(4 * pattern)
    sw = L.swizzle(addr, width)
    assert sorted(sw.tolist()) == addr.tolist()
    assert (sw // width == addr // width).all()                  # stays in its row
    assert (sw % 16 == addr % 16).all()                          # moves whole 16-byte chunks
    assert (sw[pattern:] - sw[:-pattern] == pattern).all()       # repeats every pattern
    assert (sw[:128] == addr[:128]).all() and not (sw[128:128 + width] == addr[128:128 + width]).all()


def _exact(shape, stride, mn, k, esize):
    """An 'Exact layout' of the manual: element (mn, k) -> byte offset; shape ((MN modes), (K modes))."""
    out = np.zeros((mn, k), np.int64)
    for i in range(mn):
        for j in range(k):
            out[i, j] = (cute(shape[0], stride[0], i) + cute(shape[1], stride[1], j)) * esize
    return out


@pytest.mark.parametrize("case", [
    # K-major, no swizzle, tf32: Swizzle<0,4,3> o ((8,2),(4,4)):((4,32),(1,64)), LBO 64*4, SBO 32*4 (Figure 166)
    dict(mn_major=False, esize=4, swz=0, lbo=256, sbo=128, shape=((8, 2), (4, 4)), stride=((4, 32), (1, 64)), k=8),
    # MN-major, no swizzle, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)), LBO 128*2, SBO 64*2 (Figure 168)
    dict(mn_major=True, esize=2, swz=0, lbo=256, sbo=128, shape=((8, 1, 2), (8, 2)), stride=((1, 8, 64), (8, 128)), k=16),
    # MN-major, 32B swizzle, bf16: ((8,2,2),(8,2)):((1,8,128),(16,256)), LBO 128*2, SBO 256*2 (Figure 169)
    dict(mn_major=True, esize=2, swz=32, lbo=256, sbo=512, shape=((8, 2, 2), (8, 2)), stride=((1, 8, 128), (16, 256)),
         k=16),
    # MN-major, 64B swizzle, bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)), LBO 256*2, SBO 512*2 (Figure 170)
    dict(mn_major=True, esize=2, swz=64, lbo=512, sbo=1024, shape=((8, 4, 2), (8, 2)), stride=((1, 8, 256), (32, 512)),
         k=16),
])
def test_operand_addresses_are_the_manuals_exact_layouts(case):
    mn = int(np.prod(_flat(case["shape"][0])))
    k = case["k"]
    desc = L.decode_descriptor(L.encode_descriptor(4096, case["lbo"], case["sbo"], case["swz"]))
    got = L.operand_addresses(desc, mn, k, case["esize"], case["mn_major"])
    want = L.swizzle(4096 + _exact(case["shape"], case["stride"], mn, k, case["esize"]), case["swz"])
    assert (got == want).all()


@pytest.mark.parametrize("swz", [32, 64, 128])
def test_k_major_swizzled_rows_are_one_atom_apart(swz):
    """K-major with a W-byte swizzle: ((8,m),(T,2k)):((W/16·T,SBO),(1,T)) — rows W bytes apart within 8, SBO per 8
    rows, K contiguous; LBO unused (§9.7.15.5.1.2.1.1: 'not used, assumed to be 1')."""
    desc = L.decode_descriptor(L.encode_descriptor(8192, 16, 8 * swz, swz))
    got = L.operand_addresses(desc, 64, 16, 2, False)
    i, j = np.arange(64)[:, None], np.arange(16)[None, :]
    assert (got == L.swizzle(8192 + (i % 8) * swz + (i // 8) * 8 * swz + 2 * j, swz)).all()
    other = L.decode_descriptor(L.encode_descriptor(8192, 4096, 8 * swz, swz))   # another LBO: the same addresses
    assert (L.operand_addresses(other, 64, 16, 2, False) == got).all()


def test_forms_of_the_isa():
    assert L.FLOAT_N == set(range(8, 257, 8)) and 40 not in L.INT_N and 48 in L.INT_N and 24 in L.INT_N
    assert L.K_OF == {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}
