"""The tensor-core rows of issue 13, pinned by hand-derived discriminating vectors.

Rows (volta/numerics/mma_model.py, docs/numerics.md): Blackwell fp8 -> f32 (two chained groups of 16 — the k
with k % 4 in {0,1}, then {2,3} — then d = RNE_f32(c + sum)); Hopper and Blackwell fp8 -> f16 (two f16 HMMAs over k % 4 in {0,1} and {2,3}, then
RNE_f16(c + ...)); Ada fp8 -> f16 (native, group 16, F = 13, c in the first group, RNE f16); Blackwell f16 -> f16
and tf32 -> f32 (the Hopper rows). The rows come from GPU-measured random dot products (see the issue); these
vectors are the cases where the row and the plausible alternatives give different words. Each expected word is
derived by hand in the comment above it; for every alternative that the parameters can express, the test also
runs the oracle with that alternative and checks that it gives the other word (so each vector really
discriminates). examples/probes/issue13_vectors.json holds the same vectors for a GPU run
(examples/probes/check_vectors.py); test_probe_file_matches keeps the two identical.

Encodings used: e4m3 (bias 7, 3 fraction bits): 1 = 38, 0.5 = 30, 1.5 = 3c, 2 = 40, 2^-3 = 20, 2^-4 = 18,
2^-5 = 10, 2^-6 = 08, 2^4 = 58, 2^7 = 70, -2^7 = f0, 2^8 = 78, -2^8 = f8, 2^-9 = 01 and 3·2^-9 = 03 (subnormals).
e5m2 (bias 15, 2 fraction bits): 1 = 3c, 0.5 = 38, 2^-4 = 2c, 2^-6 = 24, 2^-9 = 18, 2^7 = 58, -2^7 = d8, 2^8 = 5c,
-2^8 = dc. f16: 1 = 3c00, 2^-12 = 0c00, 2^4 = 4c00, 2^10 = 6400, 4 = 4400, 2 = 4000, 2^-11 = 1000, 2^7 = 5800.
f32: 128 = 43000000, 4096 = 45800000, 2^16 = 47800000, 2^-18 = 36800000, 2^-25 = 33000000, 2^-20 = 35800000.
All vectors not listing K have K = 32 (one m16n8k32 instruction), zeros elsewhere.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from volta.numerics.formats import Rnd
from volta.numerics.mma_model import HOPPER_WGMMA_FP8, PARAMS, MmaParams, mma_dot
from volta.numerics.mma_vec import mma, mma_batch

P = MmaParams
BW8 = ("blackwell",)
SPLIT = ("hopper", "blackwell")
# Alternatives as parameter rows (None where the parameters cannot express the alternative: the word is then
# only hand-derived).
ALT_G32_C_IN_RZ = P(32, 25, -133, Rnd.RZ)  # the old Blackwell fp8 row (and the study's published model)
ALT_G16_C_FIRST_RZ = P(16, 25, -133, Rnd.RZ)
ALT_G16_C_FIRST_RNE = P(16, 25, -133, Rnd.RN)
ALT_G32_C_AFTER = P(32, 25, -133, Rnd.RZ, inst_k=32, c_after=Rnd.RN)
ALT_EXACT_C_AFTER = P(32, 60, None, Rnd.RZ, inst_k=32, c_after=Rnd.RN)  # exact sum, RZ to f32, + c (RNE)
ALT_RNE_GROUPS_C_AFTER = P(16, 25, -133, Rnd.RN, inst_k=32, c_after=Rnd.RN)
ALT_KORDER_C_AFTER = P(16, 25, -133, Rnd.RZ, inst_k=32, c_after=Rnd.RN)  # the words read as k0..15, k16..31
ALT_HALVES = P(16, 25, -21, Rnd.RN, inst_k=32, c_after=Rnd.RN, operand_fmt="f16")  # k < 16, then k >= 16
ALT_ONE_G32 = P(32, 25, -21, Rnd.RN, inst_k=32, c_after=Rnd.RN, operand_fmt="f16")
ALT_MOD4_C_FIRST = P(16, 25, -21, Rnd.RN, inst_k=32, split_mod=4, k_split=((0, 1), (2, 3)), operand_fmt="f16")
ALT_ADA_F25 = P(16, 25, None, Rnd.RN)
ALT_ADA_F12 = P(16, 12, None, Rnd.RN)
ALT_ADA_G32 = P(32, 13, None, Rnd.RN)
ALT_ADA_C_AFTER = P(16, 13, None, Rnd.RN, inst_k=32, c_after=Rnd.RN)
ALT_ADA_RZ = P(16, 13, None, Rnd.RZ)
ALT_AMPERE_F16 = PARAMS["ampere"][("f16", "f16")]
ALT_AMPERE_TF32 = PARAMS["ampere"][("tf32", "f32")]
ALT_TF32_G16 = P(16, 25, -133, Rnd.RZ)

# (case, archs, in, acc, c, [(k, a, b)], K, expected word, {alternative: (word, params or None)})
VECTORS = [
    # ---- Blackwell e4m3/e5m2 -> f32: two HMMA groups of 16 (k % 4 in {0,1}, then {2,3}) from +0 (F = 25, RZ),
    #      then d = RNE_f32(c + sum) ----
    # B1: c = 128 (ulp 2^-16), one product 3·2^-9 · 2^-9 = 3·2^-18 = 0.75 ulp. c after, RNE: 128 + 0.75 ulp rounds
    # up to 128 + ulp = 43000001. c inside the group (quantum 2^(7-25) = 2^-18 keeps the product) with RZ: 43000000.
    ("B1 final add is RNE", BW8, "e4m3", "f32", "43000000", [(0, "03", "01")], 32, "43000001",
     {"c in group, RZ (old row)": ("43000000", ALT_G32_C_IN_RZ), "c first, groups of 16, RZ": ("43000000",
                                                                                              ALT_G16_C_FIRST_RZ)}),
    # B2: c = 4096 (ulp 2^-11), products 2^-6·2^-6 = 2^-12 (half ulp) and 2^-9·2^-9 = 2^-18. c after: the product
    # group (Emax -12) keeps both, sum 2^-12 + 2^-18 is above the half-ulp tie: 4096 + ulp = 45800001. c first:
    # quantum 2^(12-25) = 2^-13 drops 2^-18, leaving an exact tie, RNE to even (or RZ): 45800000.
    ("B2 c is added after the products", BW8, "e4m3", "f32", "45800000", [(0, "08", "08"), (1, "01", "01")], 32,
     "45800001", {"c first, RNE": ("45800000", ALT_G16_C_FIRST_RNE), "c in group, RZ": ("45800000", ALT_G32_C_IN_RZ)}),
    ("B2' (e5m2) c after", BW8, "e5m2", "f32", "45800000", [(0, "24", "24"), (1, "18", "18")], 32, "45800001",
     {"c first, RNE": ("45800000", ALT_G16_C_FIRST_RNE)}),
    # B3: 2^8·2^8 (k0) - 2^8·2^8 (k1) + 2^-9·2^-9 (k4), all three in the first HMMA (k % 4 in {0, 1}): Emax 16,
    # quantum 2^-9 drops 2^-18: 0. The "exact sum, RZ to f32, then + c" variant the issue calls equivalent on its
    # data keeps it: 2^-18 = 36800000.
    ("B3 25 extra bits, not an exact sum", BW8, "e4m3", "f32", "00000000",
     [(0, "78", "78"), (1, "78", "f8"), (4, "01", "01")], 32, "00000000",
     {"exact sum then + c": ("36800000", ALT_EXACT_C_AFTER)}),
    # B4a: the cancelling pair at k0, k1 and 2^-18 at k2 (k % 4 = 2: the second group). Group 1 = 0, group 2 =
    # 2^-18 exactly: 36800000. One group of 32 (the old row), or groups of 16 in k order (k0..15, k16..31): the
    # quantum 2^-9 of the pair's group drops it: 0.
    ("B4a two groups split by k % 4 (small term at k2)", BW8, "e4m3", "f32", "00000000",
     [(0, "78", "78"), (1, "78", "f8"), (2, "01", "01")], 32, "36800000",
     {"one group of 32 (old row)": ("00000000", ALT_G32_C_IN_RZ),
      "one group of 32, c after": ("00000000", ALT_G32_C_AFTER),
      "groups of 16 in k order, c after": ("00000000", ALT_KORDER_C_AFTER)}),
    # B4b: the same small term at k16 (k % 4 = 0): in the pair's group, dropped: 0. Groups in k order put k16 in
    # group 2 alone: 36800000.
    ("B4b two groups split by k % 4 (small term at k16)", BW8, "e4m3", "f32", "00000000",
     [(0, "78", "78"), (1, "78", "f8"), (16, "01", "01")], 32, "00000000",
     {"groups of 16 in k order, c after": ("36800000", ALT_KORDER_C_AFTER)}),
    ("B4a' (e5m2) small term at k2", BW8, "e5m2", "f32", "00000000",
     [(0, "5c", "5c"), (1, "5c", "dc"), (2, "18", "18")], 32, "36800000",
     {"one group of 32 (old row)": ("00000000", ALT_G32_C_IN_RZ),
      "groups of 16 in k order, c after": ("00000000", ALT_KORDER_C_AFTER)}),
    # B5: c = 0, 2^16 + 3·2^-9 (0.75 ulp of 2^16 in f32; quantum 2^(16-25) = 2^-9 keeps it). Groups round RZ:
    # 47800000; the final RNE add of c = 0 changes nothing. RNE inside the groups would give 47800001.
    ("B5 groups truncate (RZ)", BW8, "e4m3", "f32", "00000000", [(0, "78", "78"), (1, "03", "38")], 32, "47800000",
     {"groups RNE, c after": ("47800001", ALT_RNE_GROUPS_C_AFTER), "c first, RNE": ("47800001", ALT_G16_C_FIRST_RNE)}),

    # ---- Hopper mma.sync fp8 -> f32, measured on an H200 (2026-12-04): Blackwell's two HMMAs with the Hopper
    #      f16 -> f32 row, not numerics.md's `wgmma` row (G 32, F 13, 14-bit cut, c inside) that volta used before.
    # Q1 (B1's input): the two HMMAs + RNE c add give 43000001; under the wgmma row c = 128 joins the one group,
    # Emax 7, quantum 2^(7-13) = 2^-6 drops 3·2^-18: 43000000.
    ("Q1 Hopper mma.sync fp8->f32: c after the HMMAs", ("hopper",), "e4m3", "f32", "43000000",
     [(0, "03", "01")], 32, "43000001", {"the wgmma row (c inside)": ("43000000", HOPPER_WGMMA_FP8)}),
    # Q2 (B4a's input): two HMMAs keep 2^-18 at k2 (36800000); one group of 32 with quantum 2^(16-13) = 8 drops it.
    ("Q2 Hopper mma.sync fp8->f32: k%4 HMMAs, not one group", ("hopper",), "e4m3", "f32", "00000000",
     [(0, "78", "78"), (1, "78", "f8"), (2, "01", "01")], 32, "36800000",
     {"the wgmma row (one group)": ("00000000", HOPPER_WGMMA_FP8)}),

    # ---- Hopper / Blackwell e4m3/e5m2 -> f16: HMMA over k%4 in {0,1}, then over {2,3}, then RNE_f16(c + .) ----
    # H1: 2^7·2^7 (k0) - 2^7·2^7 (k1) + 2^-6·2^-6 (k2). k%4 split: k0, k1 in HMMA 1 (exactly 0), k2 alone in
    # HMMA 2: 2^-12 = 0c00. First/second halves or one group of 32: all three in one group, Emax 14, quantum
    # 2^-11 drops 2^-12: 0000.
    ("H1 k%4 split (small term at k2)", SPLIT, "e4m3", "f16", "0000",
     [(0, "70", "70"), (1, "70", "f0"), (2, "08", "08")], 32, "0c00",
     {"halves k<16 | k>=16": ("0000", ALT_HALVES), "one group of 32": ("0000", ALT_ONE_G32)}),
    # H2: the same with the small term at k16 (k%4 = 0): HMMA 1 holds k0, k1, k16, drops it: 0000. Halves put k16
    # in the second HMMA alone: 0c00.
    ("H2 k%4 split (small term at k16)", SPLIT, "e4m3", "f16", "0000",
     [(0, "70", "70"), (1, "70", "f0"), (16, "08", "08")], 32, "0000",
     {"halves k<16 | k>=16": ("0c00", ALT_HALVES)}),
    ("H1' (e5m2)", SPLIT, "e5m2", "f16", "0000", [(0, "58", "58"), (1, "58", "d8"), (2, "24", "24")], 32, "0c00",
     {"halves k<16 | k>=16": ("0000", ALT_HALVES)}),
    ("H2' (e5m2)", SPLIT, "e5m2", "f16", "0000", [(0, "58", "58"), (1, "58", "d8"), (16, "24", "24")], 32, "0000",
     {"halves k<16 | k>=16": ("0c00", ALT_HALVES)}),
    # H3: c = 16 (f16 ulp 2^-6), products 2^-6·0.5 = 2^-7 and 2^-9·2^-9 = 2^-18. c after: the HMMA rounds
    # 2^-7 + 2^-18 to f16 (ulp 2^-17 there: an exact tie, even) = 2^-7; then 16 + 2^-7 is a tie, even: 16 = 4c00.
    # c in the first group (quantum 2^(4-25) keeps everything): 16 + 2^-7 + 2^-18 rounds up: 4c01.
    ("H3 c is added after, in f16", SPLIT, "e4m3", "f16", "4c00", [(0, "08", "30"), (1, "01", "01")], 32, "4c00",
     {"c first, k%4 split": ("4c01", ALT_MOD4_C_FIRST)}),
    # H4: 16 (k0, HMMA 1) then 2^-7 (k2) + 2^-18 (k3) in HMMA 2. Chained (HMMA 2 continues from HMMA 1's 16,
    # quantum 2^(4-25)): 16 + 2^-7 + 2^-18 rounds up to 4c01. Two independent HMMAs from 0 summed afterwards:
    # HMMA 2 alone rounds to 2^-7 (tie), 16 + 2^-7 ties to 16: 4c00. (Our reading is "chained"; a GPU settles it.)
    ("H4 the two HMMAs are chained", SPLIT, "e4m3", "f16", "0000",
     [(0, "58", "38"), (2, "08", "30"), (3, "01", "01")], 32, "4c01",
     {"independent HMMAs, then h1 + h2 (hand-derived)": ("4c00", None)}),

    # ---- Ada e4m3/e5m2 -> f16: group 16, F = 13, c joins group 1, each group rounded straight to f16 RNE ----
    # A1a: 2^14 - 2^14 + 1 in one group: quantum 2^(14-13) = 2 drops the 1: 0000. F = 25 keeps it: 3c00.
    ("A1a 13 extra bits (not more)", ("ada",), "e4m3", "f16", "0000",
     [(0, "70", "70"), (1, "70", "f0"), (2, "38", "38")], 32, "0000", {"F = 25": ("3c00", ALT_ADA_F25)}),
    # A1b: the same with 2 (a multiple of the quantum 2): kept, 4000. F = 12 (quantum 4) drops it: 0000.
    ("A1b 13 extra bits (not fewer)", ("ada",), "e4m3", "f16", "0000",
     [(0, "70", "70"), (1, "70", "f0"), (2, "40", "38")], 32, "4000", {"F = 12": ("0000", ALT_ADA_F12)}),
    # A2: the pair at k0, k1 and 1 at k16: groups of 16 give 1 = 3c00; one group of 32 drops it: 0000.
    ("A2 groups of 16", ("ada",), "e4m3", "f16", "0000", [(0, "70", "70"), (1, "70", "f0"), (16, "38", "38")], 32,
     "3c00", {"one group of 32": ("0000", ALT_ADA_G32)}),
    ("A2' (e5m2) groups of 16", ("ada",), "e5m2", "f16", "0000", [(0, "58", "58"), (1, "58", "d8"), (16, "3c", "3c")],
     32, "3c00", {"one group of 32": ("0000", ALT_ADA_G32)}),
    # A3: c = 1024 (f16 ulp 1), products 0.5 and 2^-4. c in group 1: quantum 2^(10-13) = 2^-3 drops 2^-4, leaving
    # the tie 1024.5, even: 6400. c after (products summed first, 0.5625 exact, then RNE(1024 + 0.5625)): 6401.
    ("A3 c joins the first group", ("ada",), "e4m3", "f16", "6400", [(0, "30", "38"), (1, "18", "38")], 32, "6400",
     {"c after": ("6401", ALT_ADA_C_AFTER), "F = 25": ("6401", ALT_ADA_F25)}),
    ("A3' (e5m2) c joins the first group", ("ada",), "e5m2", "f16", "6400", [(0, "38", "3c"), (1, "2c", "3c")], 32,
     "6400", {"c after": ("6401", ALT_ADA_C_AFTER)}),
    # A4: 1.5·2 + 1 + 2^-3·2^-6 + 2^-6·2^-6 = 4 + 2^-9 + 2^-12 (Emax 1, quantum 2^-12 keeps all). Straight to f16
    # (ulp 2^-8 at 4): above the tie, 4 + 2^-8 = 4401. Through the f32 row (RZ, 14-bit cut at exponent 2 drops
    # 2^-12) and cvt.rn.f16: tie, even, 4400. RZ to f16: 4400.
    ("A4 rounded straight to f16", ("ada",), "e4m3", "f16", "0000",
     [(0, "3c", "40"), (1, "38", "38"), (2, "20", "08"), (3, "08", "08")], 32, "4401",
     {"f32 row (14-bit cut) then cvt.rn.f16 (hand-derived)": ("4400", None), "RZ": ("4400", ALT_ADA_RZ)}),
    # A5: group 1 = 1 + 2^-12 rounds to f16 1.0 (quarter ulp); group 2 adds 2^-6·2^-5 = 2^-11: 1 + 2^-11 is a tie,
    # even: 3c00. Keeping group 1 in f32 (1 + 2^-12) and rounding to f16 only at the end: 1 + 3·2^-12, 3c01.
    ("A5 f16 accumulator between groups", ("ada",), "e4m3", "f16", "0000",
     [(0, "38", "38"), (1, "08", "08"), (16, "08", "10")], 32, "3c00",
     {"f32 accumulator between groups, f16 at the end (hand-derived)": ("3c01", None),
      "one group of 32": ("3c01", ALT_ADA_G32)}),

    # ---- Blackwell f16 -> f16 and tf32 -> f32: the Hopper rows ----
    # W1 (f16 -> f16, K = 3): 2^14 - 2^14 + 2^-11. Hopper F = 25: quantum 2^-11 keeps it, 1000. Ampere F = 24: 0000.
    ("W1 f16->f16 25 extra bits", ("blackwell", "hopper"), "f16", "f16", "0000",
     [(0, "5800", "5800"), (1, "5800", "d800"), (2, "1000", "3c00")], 3, "1000",
     {"Ampere row (F = 24)": ("0000", ALT_AMPERE_F16)}),
    # W2 (K = 16): the pair at k0, k1, 2^-12 at k8. Group 16: same group, quantum 2^-11 drops it: 0000. Group 8
    # (Ampere): k8 starts group 2, 2^-12 = 0c00.
    ("W2 f16->f16 group of 16", ("blackwell", "hopper"), "f16", "f16", "0000",
     [(0, "5800", "5800"), (1, "5800", "d800"), (8, "0c00", "3c00")], 16, "0000",
     {"Ampere row (group 8)": ("0c00", ALT_AMPERE_F16)}),
    # W3 (tf32, K = 3): 1 - 1 + 2^-12·2^-13: Emax 0, F = 25 keeps 2^-25: 33000000; F = 24 (Ampere): 0.
    ("W3 tf32 25 extra bits", ("blackwell", "hopper"), "tf32", "f32", "00000000",
     [(0, "3f800000", "3f800000"), (1, "3f800000", "bf800000"), (2, "39800000", "39000000")], 3, "33000000",
     {"Ampere row (F = 24)": ("00000000", ALT_AMPERE_TF32)}),
    # W4a (K = 16): 2^10·2^10 - 2^10·2^10 + 2^-10·2^-10 at k4: group 8 holds all (quantum 2^-5): 0; group 4
    # (Ampere) puts k4 in group 2: 2^-20 = 35800000.
    ("W4a tf32 group of 8 (not 4)", ("blackwell", "hopper"), "tf32", "f32", "00000000",
     [(0, "44800000", "44800000"), (1, "44800000", "c4800000"), (4, "3a800000", "3a800000")], 16, "00000000",
     {"Ampere row (group 4)": ("35800000", ALT_AMPERE_TF32)}),
    # W4b: the small term at k8 starts group 2 of 8: 35800000; a group of 16 drops it: 0.
    ("W4b tf32 group of 8 (not 16)", ("blackwell", "hopper"), "tf32", "f32", "00000000",
     [(0, "44800000", "44800000"), (1, "44800000", "c4800000"), (8, "3a800000", "3a800000")], 16, "35800000",
     {"group 16": ("00000000", ALT_TF32_G16)}),
]


def _words(pairs, K):
    a, b = [0] * K, [0] * K
    for k, x, y in pairs:
        a[k], b[k] = int(x, 16), int(y, 16)
    return a, b


def _cases():
    for case, archs, fi, fa, c, pairs, K, want, alts in VECTORS:
        for arch in archs:
            yield pytest.param(arch, fi, fa, c, pairs, K, want, alts, id=f"{case}-{arch}")


@pytest.mark.parametrize("arch,fi,fa,c,pairs,K,want,alts", list(_cases()))
def test_row_vector(arch, fi, fa, c, pairs, K, want, alts):
    a, b = _words(pairs, K)
    cw = int(c, 16)
    hexw = 8 if fa == "f32" else 4
    assert f"{mma_dot(a, b, cw, arch, fi, fa):0{hexw}x}" == want
    assert f"{int(mma_batch(np.array([a]), np.array([b]), np.array([cw]), arch, fi, fa)[0]):0{hexw}x}" == want
    tile = mma(np.array([a]), np.array(b)[:, None], np.array([[cw]]), arch, fi, fa)
    assert f"{int(tile[0, 0]):0{hexw}x}" == want
    for name, (alt_word, alt_params) in alts.items():
        assert alt_word != want, name  # the vector discriminates
        if alt_params is not None:
            assert f"{mma_dot(a, b, cw, arch, fi, fa, params=alt_params):0{hexw}x}" == alt_word, name


def test_every_new_row_has_vectors():
    rows = {("blackwell", i, "f32") for i in ("e4m3", "e5m2")} | {
        (arch, i, "f16") for arch in ("hopper", "blackwell", "ada") for i in ("e4m3", "e5m2")} | {
        ("blackwell", "f16", "f16"), ("blackwell", "tf32", "f32")}
    covered = {(arch, fi, fa) for _, archs, fi, fa, *_ in VECTORS for arch in archs}
    assert rows <= covered
    for arch, fi, fa in rows:
        assert (fi, fa) in PARAMS[arch]


def test_blackwell_fp8_chains_instructions_through_c():
    """K = 64 is two m16n8k32 instructions, each d = RNE_f32(c + its own sum). c = 128 (ulp u = 2^-16), two
    products 2^-18 = u/4 in each instruction: instruction 1 gives RNE(128 + u/2) = 128 (tie, even), instruction 2
    the same: 43000000. Adding c once after all 64 products (inst_k = 64) gives RNE(128 + u) = 43000001."""
    import dataclasses

    a, b = [0] * 64, [0] * 64
    for k in (0, 1, 32, 33):
        a[k], b[k] = 0x01, 0x01
    p = PARAMS["blackwell"][("e4m3", "f32")]
    assert _both(a, b, 0x43000000, "blackwell", "e4m3", "f32", p) == 0x43000000
    assert _both(a, b, 0x43000000, "blackwell", "e4m3", "f32", dataclasses.replace(p, inst_k=64)) == 0x43000001


PROBE_FILE = Path(__file__).resolve().parents[2] / "examples" / "probes" / "issue13_vectors.json"
PROBE_ABOUT = ("Discriminating single dot products for the tensor-core rows of issue 13 (Blackwell fp8->f32, Hopper/"
               "Blackwell fp8->f16, Ada fp8->f16, Blackwell f16->f16 and tf32->f32). Words are hex of the input format; "
               "c and expect are words of the accumulator format (acc). 'expect' is the model's word for every "
               "architecture in 'archs'; 'alternatives' are the words the plausible alternative models give. "
               "Hand-derived: the derivations are the comments of tests/numerics/test_mma_rows.py, which checks this "
               "file against its table (regenerate with `python tests/numerics/test_mma_rows.py`). Run on a GPU with "
               "examples/probes/check_vectors.py.")


def probe_file_data() -> dict:
    out = []
    for case, archs, fi, fa, c, pairs, K, want, alts in VECTORS:
        a, b = _words(pairs, K)
        w = len(pairs[0][1])
        out.append({"case": case, "archs": list(archs), "in": fi, "acc": fa, "c": c,
                    "a": [f"{x:0{w}x}" for x in a], "b": [f"{x:0{w}x}" for x in b],
                    "expect": want, "alternatives": {k: v[0] for k, v in alts.items()}})
    return {"about": PROBE_ABOUT, "vectors": out}


def test_probe_file_matches():
    assert json.loads(PROBE_FILE.read_text()) == probe_file_data()


# ---- the rounding parameter is honoured by both models -------------------------------------------------------

def _both(a, b, c, arch, fi, fa, p):
    o = mma_dot(a, b, c, arch, fi, fa, params=p)
    v = int(mma_batch(np.array([a]), np.array([b]), np.array([c]), arch, fi, fa, params=p)[0])
    t = int(mma(np.array([a]), np.array(b)[:, None], np.array([[c]]), arch, fi, fa, params=p)[0, 0])
    assert o == v == t
    return o


@pytest.mark.parametrize("rnd,want", [(Rnd.RZ, 0x4C100000), (Rnd.RN, 0x4C100001), (Rnd.RP, 0x4C100001),
                                      (Rnd.RM, 0x4C100000)])
def test_rounding_parameter_f32(rnd, want):
    """(1.5·2^12)^2 + 3·1 = 2.25·2^24 + 3: f32 ulp 4 there, 3/4 ulp above 4c100000."""
    import dataclasses

    p = dataclasses.replace(PARAMS["hopper"][("bf16", "f32")], rounding=rnd)
    assert _both([0x45C0, 0x4040], [0x45C0, 0x3F80], 0, "hopper", "bf16", "f32", p) == want
    neg = _both([0x45C0, 0x4040], [0xC5C0, 0xBF80], 0, "hopper", "bf16", "f32", p)
    assert neg == {Rnd.RZ: 0xCC100000, Rnd.RN: 0xCC100001, Rnd.RP: 0xCC100000, Rnd.RM: 0xCC100001}[rnd]


@pytest.mark.parametrize("rnd,want", [(Rnd.RN, 0x3C01), (Rnd.RZ, 0x3C00), (Rnd.RP, 0x3C01), (Rnd.RM, 0x3C00)])
def test_rounding_parameter_f16(rnd, want):
    """1 + 2^-11 + 2^-12 in f16 (ulp 2^-10): 3/4 ulp above 1."""
    import dataclasses

    p = dataclasses.replace(PARAMS["hopper"][("f16", "f16")], rounding=rnd)
    assert _both([0x3C00, 0x1000, 0x0C00], [0x3C00, 0x3C00, 0x3C00], 0, "hopper", "f16", "f16", p) == want


def test_rounding_overflow_f16_rz_is_max_finite():
    """65504 + 16 = 65520 (would be inf under RN): RZ keeps 7bff; RN gives 7c00 (inf)."""
    import dataclasses

    base = PARAMS["hopper"][("f16", "f16")]
    a, b = [0x7BFF, 0x4C00], [0x3C00, 0x3C00]
    assert _both(a, b, 0, "hopper", "f16", "f16", dataclasses.replace(base, rounding=Rnd.RZ)) == 0x7BFF
    assert _both(a, b, 0, "hopper", "f16", "f16", base) == 0x7C00


def test_c_after_rounding_parameter():
    """The c_after addition honours its own rounding (RZ goes through the exact scalar add)."""
    import dataclasses

    p = PARAMS["blackwell"][("e4m3", "f32")]
    a, b = [0] * 32, [0] * 32
    a[0], b[0] = 0x03, 0x01
    assert _both(a, b, 0x43000000, "blackwell", "e4m3", "f32", p) == 0x43000001
    assert _both(a, b, 0x43000000, "blackwell", "e4m3", "f32", dataclasses.replace(p, c_after=Rnd.RZ)) == 0x43000000


def test_bad_structure_is_rejected():
    with pytest.raises(ValueError):
        P(16, 25, -21, Rnd.RN, split_mod=4, k_split=((0, 1), (2, 3)))  # split without inst_k
    with pytest.raises(ValueError):
        P(16, 25, -21, Rnd.RN, inst_k=32, split_mod=4, k_split=((0, 1), (2,)))  # not a partition
    with pytest.raises(ValueError):
        P(16, 25, -21, Rnd.RNA)


if __name__ == "__main__":  # rewrite the probe file from VECTORS
    data = probe_file_data()  # one vector per line
    PROBE_FILE.write_text('{"about": ' + json.dumps(data["about"]) + ',\n "vectors": [\n  '
                          + ",\n  ".join(json.dumps(v) for v in data["vectors"]) + "\n ]\n}\n")
    print(f"wrote {len(VECTORS)} vectors to {PROBE_FILE}")
