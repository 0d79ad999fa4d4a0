"""Row selection by instruction and ptxas version (volta/numerics/mma_select.py), and the row it adds: Hopper fp8
`mma.sync` -> f32 as ptxas 12.4-12.6 compile it (two HMMAs from +0 each, FADD of the results, FADD of c).

The vectors pin what tells the three Hopper fp8 -> f32 rows apart; each expectation is derived by hand below and
checked through both the oracle and the vectorized model, next to the words of the rows it rules out.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from volta.errors import UsageError
from volta.numerics.formats import Rnd
from volta.numerics.mma_model import (HOPPER_FP8_PTXAS_12_4, HOPPER_WGMMA_FP8, PARAMS, MmaParams, mma_dot)
from volta.numerics.mma_select import (DEFAULT_PTXAS, MmaSetting, describe, make_setting, parse_ptxas,
                                       select_row)
from volta.numerics.mma_vec import mma_batch

PTXAS_12_6 = MmaSetting("mma", (12, 6))
PTXAS_12_8 = MmaSetting("mma", (12, 8))
WGMMA = MmaSetting("wgmma")


def _dot(a, b, c, in_fmt, p):
    a, b = [int(x, 16) for x in a], [int(x, 16) for x in b]
    a, b = a + [0] * (32 - len(a)), b + [0] * (32 - len(b))
    word = mma_dot(a, b, int(c, 16), "hopper", in_fmt, "f32", params=p)
    vec = int(mma_batch(np.array([a]), np.array([b]), np.array([int(c, 16)]), "hopper", in_fmt, "f32",
                        params=p)[0])
    assert word == vec
    return f"{word:08x}"


# P1: 2^6·2^6 at k0 (first HMMA), 1.5·2^-6 · 2^-6 = 1.5·2^-12 at k2 (second HMMA), c = 0. In f32 the ulp of 2^12
# is 2^-11, so the small product is 0.75 ulp.
# - chained (ptxas 12.8+): the second HMMA's group holds 2^12 (the first result) and 1.5·2^-12; quantum
#   2^(12-25) keeps it, the exact sum is rounded RZ to f32: 2^12 = 45800000.
# - summed (ptxas 12.4-12.6): the HMMAs give 2^12 and 1.5·2^-12 exactly; FADD rounds 2^12 + 0.75 ulp to nearest:
#   2^12 + 1 ulp = 45800001.
# - wgmma: one group of 32, quantum 2^(12-13) drops the small product: 45800000.
P1 = (["68", "00", "0c"], ["68", "00", "08"], "00000000")
P1_E5M2 = (["54", "00", "26"], ["54", "00", "24"], "00000000")  # the same values in e5m2


@pytest.mark.parametrize("in_fmt,vec", [("e4m3", P1), ("e5m2", P1_E5M2)])
def test_summed_hmmas_round_to_nearest_where_chained_ones_truncate(in_fmt, vec):
    assert _dot(*vec, in_fmt, select_row("hopper", in_fmt, "f32", PTXAS_12_6).params) == "45800001"
    assert _dot(*vec, in_fmt, select_row("hopper", in_fmt, "f32", PTXAS_12_8).params) == "45800000"
    assert _dot(*vec, in_fmt, select_row("hopper", in_fmt, "f32", WGMMA).params) == "45800000"


def test_the_wgmma_row_and_the_mma_rows_part_on_the_h200_vectors():
    # Q2 of test_mma_rows (measured on the H200 with CUDA 13): 2^8·2^8 - 2^8·2^8 at k0, k1, 2^-9·2^-9 at k2.
    # Both HMMA rows keep 2^-18 alone in the second HMMA (36800000); wgmma's one group (quantum 2^3) drops it.
    q2 = (["78", "78", "01"], ["78", "f8", "01"], "00000000")
    assert _dot(*q2, "e4m3", HOPPER_FP8_PTXAS_12_4) == "36800000"
    assert _dot(*q2, "e4m3", PARAMS["hopper"][("e4m3", "f32")]) == "36800000"
    assert _dot(*q2, "e4m3", HOPPER_WGMMA_FP8) == "00000000"


def test_summed_passes_are_added_before_c():
    # c = 2^12, 2^-6·2^-6 = 2^-12 (half an ulp of 2^12) at k0 and at k2. The SASS adds the two HMMA results first
    # (2^-11, exact), then c: 2^12 + 1 ulp = 45800001. Adding c to each result in turn would meet two ties, each
    # rounded to the even 2^12: 45800000 (hand-derived; not a row). The chained row also gives 45800001.
    vec = (["08", "00", "08"], ["08", "00", "08"], "45800000")
    assert _dot(*vec, "e4m3", HOPPER_FP8_PTXAS_12_4) == "45800001"
    assert _dot(*vec, "e4m3", PARAMS["hopper"][("e4m3", "f32")]) == "45800001"


def test_rows_that_do_not_depend_on_the_setting():
    """Only Hopper fp8 `mma.sync` depends on ptxas, only Hopper fp8 -> f32 on the instruction."""
    for arch, rows in PARAMS.items():
        for (i, a), p in rows.items():
            for setting in (MmaSetting(ptxas=(12, 4)), PTXAS_12_6, PTXAS_12_8, MmaSetting()):
                if arch == "hopper" and i in ("e4m3", "e5m2") and setting.ptxas < (12, 8):
                    continue
                assert select_row(arch, i, a, setting).params == p
            if arch == "hopper" and i not in ("e4m3", "e5m2", "f64"):
                assert select_row(arch, i, a, WGMMA).params == p


@pytest.mark.parametrize("arch,in_fmt,acc,setting,needle", [
    ("hopper", "e4m3", "f32", MmaSetting(ptxas=(12, 3)), "cannot compile fp8 mma.sync"),
    ("hopper", "e5m2", "f16", PTXAS_12_6, "rejects fp8 mma.sync with an f16 accumulator"),
    ("ampere", "f16", "f32", WGMMA, "wgmma exists on sm_90a"),
    ("blackwell", "e4m3", "f32", WGMMA, "wgmma exists on sm_90a"),
    ("hopper", "e4m3", "f16", WGMMA, "no measured model for hopper wgmma e4m3 -> f16"),
    ("hopper", "f64", "f64", WGMMA, "no measured model"),
    ("ampere", "e4m3", "f32", MmaSetting(), "no tensor-core model"),
])
def test_settings_no_toolkit_compiles_are_usage_errors(arch, in_fmt, acc, setting, needle):
    with pytest.raises(UsageError, match=needle):
        select_row(arch, in_fmt, acc, setting)


def test_row_names_and_json_say_instruction_toolkit_and_source():
    row = select_row("sm_90", "e4m3", "f32", PTXAS_12_6)
    assert row.name == "hopper mma.sync e4m3->f32, ptxas 12.4-12.6" and "SASS" in row.source
    assert "each from +0, summed (RNE)" in row.structure and "then c added (RNE)" in row.structure
    assert "chained from +0" in select_row("hopper", "e4m3", "f32").structure
    w = select_row("hopper", "e5m2", "f32", WGMMA)
    assert w.name == "hopper wgmma e5m2->f32, every ptxas" and "MATLAB-tensor-core" in w.source
    assert "groups of 32, 13 extra bits" in w.structure and "cut to 14 bits" in w.structure
    js = row.to_json(PTXAS_12_6)
    assert js["ptxas"] == "12.6" and js["inst"] == "mma" and js["toolkits"] == "ptxas 12.4-12.6"
    assert select_row("ampere", "f64", "f64").structure == "a chain of IEEE fused multiply-adds in increasing k"


def test_describe_follows_the_parameters():
    p = MmaParams(8, 24, None, Rnd.RM, inst_k=16, c_after=Rnd.RZ, split_mod=2, k_split=((1,), (0,)),
                  pass_sum=Rnd.RP)
    assert describe(p) == ("per k16 instruction; 2 passes over k%2 in {1} then {0}, each from +0, summed (RP); "
                           "each groups of 8, 24 extra bits, floor none, RM; then c added (RZ)")
    assert describe(dataclasses.replace(p, pass_sum=None)).count("chained from +0") == 1


def test_pass_sum_needs_c_after():
    with pytest.raises(ValueError, match="pass_sum needs c_after"):
        MmaParams(16, 25, -133, Rnd.RZ, pass_sum=Rnd.RN)


@given(major=st.integers(0, 99), minor=st.integers(0, 99), patch=st.integers(0, 999))
def test_parse_ptxas(major, minor, patch):
    assert parse_ptxas(f"{major}.{minor}") == (major, minor)
    assert parse_ptxas(f"{major}.{minor}.{patch}") == (major, minor)
    assert parse_ptxas(str(major)) == (major, 0)


@pytest.mark.parametrize("text", ["", "v13", "13.x", "12..4", "1.2.3.4", "-12"])
def test_bad_ptxas_is_a_usage_error(text):
    with pytest.raises(UsageError, match="bad --ptxas"):
        parse_ptxas(text)


def test_make_setting_prefers_the_option_then_nvcc_then_13():
    assert make_setting("mma", "12.6", (13, 0)) == MmaSetting("mma", (12, 6), "--ptxas")
    assert make_setting("wgmma", None, (12, 8)) == MmaSetting("wgmma", (12, 8), "nvcc")
    assert make_setting() == MmaSetting("mma", DEFAULT_PTXAS, "default") and DEFAULT_PTXAS == (13, 0)
    with pytest.raises(UsageError, match="unknown tensor-core instruction"):
        MmaSetting("wmma")


H200 = Path(__file__).resolve().parents[2] / "examples" / "probes" / "h200"
H200_FP8 = [("mma-vectors-e4m3.batch", "mma-vectors-e4m3.gpu", "e4m3", "f32"),
            ("mma-vectors-e5m2.batch", "mma-vectors-e5m2.gpu", "e5m2", "f32"),
            ("vectors/e4m3-f32.batch", "vectors/e4m3-f32.out", "e4m3", "f32"),
            ("vectors/e4m3-f16.batch", "vectors/e4m3-f16.out", "e4m3", "f16"),
            ("vectors/e5m2-f16.batch", "vectors/e5m2-f16.out", "e5m2", "f16")]


def _h200_matches(setting: MmaSetting, acc: str) -> tuple[int, int]:
    from volta.cli.mma_cmd import _read_batch, run_batch_text

    ok = total = 0
    for batch, out, in_fmt, acc_fmt in H200_FP8:
        if acc_fmt != acc:
            continue
        row = select_row("hopper", in_fmt, acc_fmt, setting)
        got = run_batch_text(_read_batch(str(H200 / batch)), str(H200 / batch), "hopper", in_fmt, acc_fmt, row.params)
        want = [int(w, 16) for w in (H200 / out).read_text().split()]
        ok, total = ok + sum(g == w for g, w in zip(got, want)), total + len(want)
    return ok, total


def test_the_h200_fp8_words_are_mma_sync_as_cuda_13_compiles_it():
    """examples/probes/h200: the H200 ran fp8 mma.sync compiled by CUDA 13.0 (13 words: 7 f32, 6 f16)."""
    assert _h200_matches(MmaSetting("mma", (13, 0)), "f32") == (7, 7)
    assert _h200_matches(MmaSetting("mma", (13, 0)), "f16") == (6, 6)
    assert _h200_matches(MmaSetting("mma", (12, 6)), "f32") == (7, 7)  # these vectors do not part the toolkits
    assert _h200_matches(WGMMA, "f32") == (1, 7)  # only the accumulator-cut vector (c already 14 bits) agrees
