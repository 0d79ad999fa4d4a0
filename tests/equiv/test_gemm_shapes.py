"""The Volta paper's GEMM shape (one CTA of 512 threads, 64x64 tile) on the lane-structured path.

Every optimized variant (examples/eq_gemm64_naive_*) runs without a single data instruction falling off the
lane-structured path, stores its outputs as LaneSym rows (no per-element expressions, no object array over the
output buffer), and is decided in bulk; buffers declared far larger than the CTA touches are fine. The
fast-vs-per-lane differential for these pairs is in test_lanepoly_path.py (it runs every eq_ pair both ways).
"""
from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from volta.equiv import check as CK
from volta.launch.args import entries
from volta.launch.spec import Buffer, Dim3, KernelLaunch, LaunchSpec, load_manifest
from volta.symbolic.lanepoly import LanePoly

EX = Path(__file__).resolve().parents[2] / "examples"
VARIANTS = ["tiled", "regblock", "float4", "dbuf", "tpad"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_gemm64_pair_stays_lane_structured(variant):
    spec = load_manifest(EX / f"eq_gemm64_naive_{variant}" / "manifest.toml")
    for role in ("ref", "opt"):
        m = CK.execute(spec, role, lane_structured=True)
        assert m.lane_fallbacks == {}, (role, m.lane_fallbacks)
        region = m.buffer_regions["C"]
        assert region.sym is None   # nothing stored as per-lane expressions: no object array at all
        outs = CK.outputs(m, spec, rows=True)["C"]
        assert len(outs.poly_at) == 8192 and all(isinstance(outs[i], CK.PolyRow) for i in outs.poly_at)


def _gemm(variant: str, k: int, size: int) -> LaunchSpec:
    d = EX / f"eq_gemm64_naive_{variant}"
    args = entries(f"A,B,C,{size},{size},{k}")
    ref = KernelLaunch(d / "ref.sm80.ptx", "sgemm64_naive", Dim3(1), Dim3(512), args)
    opt = KernelLaunch(d / "opt.sm80.ptx", f"sgemm64_{variant}", Dim3(1), Dim3(512), args)
    bufs = {"A": Buffer("A", "f32", size * k, "in"), "B": Buffer("B", "f32", k * size, "in"),
            "C": Buffer("C", "f32", size * size, "out")}
    return LaunchSpec({"ref": ref, "opt": opt}, bufs, source=f"gemm64 {variant}")


def test_gemm64_in_a_larger_declared_matrix():
    """One CTA of a 256 x 256 problem: the 64 x 64 tile is proved, the rest is untouched on both sides."""
    report = CK.check(_gemm("float4", 32, 256))
    assert report.verdict == "equivalent"
    assert report.compared == 256 * 256
    assert report.proved_by == {"normal-form": 4096, "identical": 256 * 256 - 4096}


def test_gemm64_wrong_variant_is_refuted_in_bulk(tmp_path):
    """A kernel that drops one k term of one output is not proved by the bulk comparison (and the per-element
    path refutes it): the grouping by stored value never proves a group's differing lane."""
    src = (EX / "eq_gemm64_naive_tiled" / "ref.sm80.ptx").read_text()
    spec = _gemm("tiled", 32, 64)
    rows = {role: CK.outputs(CK.execute(spec, role, lane_structured=True), spec, rows=True) for role in ("ref", "opt")}
    assert CK._bulk_equal(rows["ref"]["C"], rows["opt"]["C"]).all()
    # the same values, one element perturbed: swap the stored rows of two outputs on one side
    opt = CK.Elements(rows["opt"]["C"])
    opt.poly_at = rows["opt"]["C"].poly_at
    opt[5], opt[70] = opt[70], opt[5]
    proved = CK._bulk_equal(rows["ref"]["C"], opt)
    assert not proved[5] and not proved[70] and proved.sum() == 4094
    assert src   # the PTX is there (the pair's sources are part of the corpus)


@pytest.mark.parametrize("seed", range(6))
def test_lanepoly_product_fast_path_matches_per_lane(seed):
    """Products with a one-term factor (the broadcast path of __mul__) equal the per-lane products."""
    from volta.symbolic import expr as E
    from volta.symbolic.normal import Normalizer, equal, normalize

    rng = np.random.default_rng(seed)
    lanes = 7

    def poly(terms):
        p = LanePoly.constant(0, lanes)
        for _ in range(terms):
            leaf = LanePoly.leaf(rng.choice(["A", "B"]), rng.integers(0, 5, lanes))
            p = p + leaf.scale(Fraction(int(rng.integers(-3, 4)), int(rng.integers(1, 3))))
        return p

    a, b = poly(1), poly(int(rng.integers(1, 5)))
    a = a if seed % 2 else a * LanePoly.leaf("C", rng.integers(0, 3, lanes))   # two-factor single terms too
    norm = Normalizer()
    for x, y in ((a, b), (b, a)):
        got = (x * y).to_exprs()
        want = [E.mul(p, q) for p, q in zip(x.to_exprs(), y.to_exprs())]
        assert all(equal(normalize(g, norm), normalize(w, norm)) for g, w in zip(got, want))
        assert (x * y).term_count() == sum(i.shape[0] for bl in (x * y).groups.values() for i, _ in bl)
    values = {n: np.array([random.Random(seed + ord(n)).randint(-9, 9) for _ in range(5)], float) for n in "ABC"}
    assert np.allclose((a * b).evaluate_float(values), a.evaluate_float(values) * b.evaluate_float(values))
