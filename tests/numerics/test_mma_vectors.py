"""Every discriminating vector of mma-vectors.json and numerics.md, for every architecture it lists,
through both the exact oracle and the vectorized model."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from volta.numerics.mma_model import HOPPER_WGMMA_FP8, mma_dot
from volta.numerics.mma_vec import mma, mma_batch

SPEC = Path("/work/shared/specs/mma-vectors.json")
if not SPEC.exists():  # a copy may live beside the tests in other checkouts
    SPEC = Path(__file__).with_name("mma-vectors.json")


def _cases():
    if not SPEC.exists():
        return []
    out = []
    for v in json.loads(SPEC.read_text())["vectors"]:
        for arch, want in v["expect"].items():
            out.append(pytest.param(v, arch, int(want, 16), id=f"{v['case']}-{arch}"))
    return out


CASES = _cases()


# The spec's Hopper fp8 -> f32 words are numerics.md's `wgmma` row. An H200 gives other words for `mma.sync`
# (examples/probes/results/h200/hk-*.gpu), which volta's hopper row now follows: the spec's Hopper fp8 words are
# checked against the wgmma row, and the H200's against the hopper row.
H200_MMA_SYNC = {"FP8 GROUPS (veritor)": "3f800000", "FP8 14-bit acc truncation": "3f800001",
                 "FP8 14-bit acc": "3f800400", "FP8 precision": "3f800020", "FP8 e5m2 precision": "3f800080"}


def _wgmma(vec, arch):
    return HOPPER_WGMMA_FP8 if arch == "hopper" and vec["in"] in ("e4m3", "e5m2") else None


@pytest.mark.skipif(not CASES, reason="mma-vectors.json not available")
@pytest.mark.parametrize("vec,arch,want", CASES)
def test_json_vector(vec, arch, want):
    a = [int(w, 16) for w in vec["a"]]
    b = [int(w, 16) for w in vec["b"]]
    c = int(vec["c"], 16)
    p = _wgmma(vec, arch)
    assert mma_dot(a, b, c, arch, vec["in"], vec["acc"], params=p) == want
    got = mma_batch(np.array([a]), np.array([b]), np.array([c]), arch, vec["in"], vec["acc"], params=p)
    assert int(got[0]) == want
    if p is None:
        tile = mma(np.array([a]), np.array(b)[:, None], np.array([[c]]), arch, vec["in"], vec["acc"])
        assert int(tile[0, 0]) == want
    else:  # the mma.sync row: the words the H200 gave
        h200 = int(H200_MMA_SYNC[vec["case"]], 16)
        assert mma_dot(a, b, c, arch, vec["in"], vec["acc"]) == h200
        tile = mma(np.array([a]), np.array(b)[:, None], np.array([[c]]), arch, vec["in"], vec["acc"])
        assert int(tile[0, 0]) == h200


def test_json_has_173_expectations():
    if not CASES:
        pytest.skip("mma-vectors.json not available")
    assert len(CASES) == 173


# The table in numerics.md, written out: (case, in, acc, c, [(k, a, b)], K, {arch: result}).
BF, F16 = "bf16", "f16"
Z = "0000"


def _k(pairs, K):
    a, b = [Z] * K, [Z] * K
    for k, x, y in pairs:
        a[k], b[k] = x, y
    return a, b


MD_TABLE = [
    ("internal 2^-23", BF, "00000000", [(0, "3f80", "3f80"), (1, "3f80", "bf80"), (2, "3a00", "3980")], 3,
     {"ampere": "34000000", "ada": "34000000", "hopper": "34000000"}),
    ("internal 2^-24", BF, "00000000", [(0, "3f80", "3f80"), (1, "3f80", "bf80"), (2, "3980", "3980")], 3,
     {"ampere": "33800000", "hopper": "33800000"}),
    ("internal 2^-25", BF, "00000000", [(0, "3f80", "3f80"), (1, "3f80", "bf80"), (2, "3980", "3900")], 3,
     {"ampere": "00000000", "hopper": "33000000"}),
    ("product not normalized", BF, "00000000", [(0, "3fc0", "3fc0"), (1, "3fc0", "bfc0"), (2, "3980", "3900")],
     3, {"ampere": "00000000", "hopper": "33000000"}),
    ("subnormal input", F16, "00000000", [(0, "0200", "7400"), (1, "0200", "f400"), (2, "0c00", "0800")], 3,
     {"ampere": "00000000", "hopper": "33000000", "volta": "00000000"}),
    ("extended range", BF, "00000000", [(0, "7f00", "4000"), (1, "7f00", "c000"), (2, "7f00", "3f80")], 3,
     {"ampere": "7f000000", "hopper": "7f000000"}),
    ("floor 2^-132", BF, "00000000", [(0, "1e80", "1e80"), (1, "1880", "9880")], 2,
     {"ampere": "0001ffff", "hopper": "0001ffff"}),
    ("floor 2^-134", BF, "00000000", [(0, "1e00", "1e00"), (1, "1800", "9800")], 2,
     {"ampere": "00008000", "hopper": "00007fff"}),
    ("final RZ up", BF, "00000000", [(0, "45c0", "45c0"), (1, "4040", "3f80")], 2,
     {"ampere": "4c100000", "hopper": "4c100000"}),
    ("final RZ down", BF, "00000000", [(0, "45c0", "45c0"), (1, "3f80", "bf80")], 2,
     {"ampere": "4c0fffff", "hopper": "4c0fffff"}),
    ("per-term truncation", BF, "3f800000", [(0, "3800", "b800")], 1, {"ampere": "3f800000", "hopper": "3f800000"}),
    ("group boundary", BF, "00000000", [(0, "4480", "4480"), (1, "4480", "c480"), (8, "3d00", "3d00")], 16,
     {"ampere": "3a800000", "hopper": "00000000"}),
    ("acc joins group 1", BF, "3f800000", [(0, "4980", "4980"), (1, "4980", "c980")], 16,
     {"ampere": "00000000", "hopper": "00000000"}),
    ("extra alignment bit", F16, "bf7fffff", [(0, "3c00", "3c00")], 1,
     {"ampere": "33800000", "hopper": "33800000", "volta": "34000000"}),
    ("carry bits", F16, "3ff00000", [(0, "3c00", "3c00"), (1, "3c00", "3e00"), (2, "3c00", "3f00"),
                                     (3, "3c00", "3f80")], 4,
     {"ampere": "41000000", "hopper": "41000000", "volta": "41000000"}),
    ("non-monotone a", F16, "3f7fffff", [(0, "3800", "0001"), (1, "3800", "0001"), (2, "3800", "0001"),
                                         (3, "3800", "0003")], 4,
     {"ampere": "3f800001", "hopper": "3f800001", "volta": "3f800000"}),
    ("non-monotone b", F16, "3f800000", [(0, "3800", "0001"), (1, "3800", "0001"), (2, "3800", "0001"),
                                         (3, "3800", "0003")], 4,
     {"ampere": "3f800000", "hopper": "3f800001", "volta": "3f800000"}),
    ("two extra alignment bits", BF, "3f800000", [(0, "3380", "3f80"), (1, "3380", "3f00"), (2, "3380", "3f00")],
     3, {"ampere": "3f800000", "hopper": "3f800001"}),
    ("sticky overflow", BF, "00000000", [(0, "5f80", "5f80"), (8, "df80", "5f80")], 16,
     {"ampere": "7f800000", "hopper": "00000000"}),
    ("overflow cancelled", BF, "00000000", [(0, "5f80", "5f80"), (1, "df80", "5f80")], 16,
     {"ampere": "00000000", "hopper": "00000000"}),
]
FP8_TABLE = [
    # hopper: mma.sync as measured on an H200 (two HMMAs, F = 25, no 14-bit cut; numerics.md's words are wgmma's)
    ("fp8 groups", "00000000", [(0, "78", "78"), (1, "78", "f8"), (16, "38", "38")], {"ada": "3f800000",
                                                                                      "hopper": "3f800000"}),
    ("fp8 acc cut", "3f800001", [], {"ada": "3f800000", "hopper": "3f800001"}),
    ("fp8 precision", "00000000", [(0, "38", "38"), (1, "01", "01")], {"ada": "3f800000", "hopper": "3f800020"}),
]


def _md_params():
    for name, fmt, c, pairs, K, expect in MD_TABLE:
        a, b = _k(pairs, K)
        for arch, want in expect.items():
            yield pytest.param(fmt, c, a, b, arch, want, id=f"{name}-{arch}")
    for name, c, pairs, expect in FP8_TABLE:
        a, b = ["00"] * 32, ["00"] * 32
        for k, x, y in pairs:
            a[k], b[k] = x, y
        for arch, want in expect.items():
            yield pytest.param("e4m3", c, a, b, arch, want, id=f"{name}-{arch}")


@pytest.mark.parametrize("fmt,c,a,b,arch,want", list(_md_params()))
def test_numerics_md_table(fmt, c, a, b, arch, want):
    aw, bw, cw = [int(w, 16) for w in a], [int(w, 16) for w in b], int(c, 16)
    assert f"{mma_dot(aw, bw, cw, arch, fmt, 'f32'):08x}" == want
    got = mma_batch(np.array([aw]), np.array([bw]), np.array([cw]), arch, fmt, "f32")
    assert f"{int(got[0]):08x}" == want
