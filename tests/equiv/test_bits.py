"""Bit-exact comparison (`volta check --fp ieee`): real-equivalent pairs that do or do not differ in bits."""
from pathlib import Path

import numpy as np
import pytest

from volta.equiv.bits import GENERATORS, compare_bits, make_inputs, relative_difference, ulp_distance
from volta.launch.spec import load_manifest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def spec(name):
    return load_manifest(EXAMPLES / name / "manifest.toml")


def test_same_summation_order_shows_no_bit_difference():
    report = compare_bits(spec("eq_gemm_naive_tiled"), trials=1)
    assert report.identical and report.verdict == "no-difference-found"
    assert report.compared == len(GENERATORS) * 1024 and report.differing == 0 and report.witness is None
    assert set(report.generators) == set(GENERATORS)


def test_reassociated_float_sum_differs_with_ulp_figures():
    report = compare_bits(spec("eq_bits_reduce_seq_tree_f32"), trials=2, generators=("uniform", "cancellation"))
    assert not report.identical and report.verdict == "bits-differ"
    uniform = report.generators["uniform"]
    assert 0 < uniform.fraction <= 1 and 1 <= uniform.max_ulps < 1e4 and 0 < uniform.max_relative < 1e-3
    # cancellation: a tiny exact result, so reassociation changes it by far more than a few ulps
    assert report.generators["cancellation"].max_ulps > uniform.max_ulps
    w = report.witness
    assert w.buffer == "partial" and w.ref_bits != w.opt_bits and w.ulps == report.max_ulps
    again, _ = make_inputs(spec("eq_bits_reduce_seq_tree_f32"), w.generator, w.seed)
    assert all(np.array_equal(again[k], w.inputs[k]) for k in again)


def test_bf16_downcast_at_the_store_differs():
    report = compare_bits(spec("eq_bits_bf16_store"), trials=1, generators=("uniform", "boundary"))
    assert not report.identical
    u = report.generators["uniform"]
    assert u.fraction > 0.5
    # bf16 keeps 8 of f32's 24 significand bits: up to 2^15 f32 ulps, relative error up to 2^-9
    assert 2 ** 10 < u.max_ulps <= 2 ** 15 and u.max_relative <= 2 ** -8


def test_ulp_distance_counts_representable_values():
    one = np.array([0x3F800000], np.uint32)
    assert ulp_distance(one, one + 3, "f32")[0] == 3
    neg_zero, pos_zero = np.array([0x80000000], np.uint32), np.array([0], np.uint32)
    assert ulp_distance(neg_zero, pos_zero, "f32")[0] == 0
    tiny = np.array([1], np.uint32)
    assert ulp_distance(tiny | 0x80000000, tiny, "f32")[0] == 2  # -min subnormal .. +min subnormal
    nan = np.array([0x7FC00000], np.uint32)
    assert ulp_distance(nan, nan, "f32")[0] == 0 and ulp_distance(nan, one, "f32")[0] == np.inf
    assert ulp_distance(np.array([0x3F80], np.uint16), np.array([0x3F81], np.uint16), "bf16")[0] == 1
    assert relative_difference(one, one, "f32")[0] == 0


@pytest.mark.parametrize("gen", GENERATORS)
def test_generators_fit_each_format(gen):
    s = spec("eq_bits_bf16_store")
    inputs, _ = make_inputs(s, gen, 7)
    assert inputs["A"].dtype == np.float32 and inputs["A"].size == 4096 and np.isfinite(inputs["A"]).all()
    if gen == "subnormal":
        assert (np.abs(inputs["A"]) < np.finfo(np.float32).tiny).any()
    if gen == "wide":
        mags = np.abs(inputs["A"])
        assert mags.min() < 2 ** -15 and mags.max() > 2 ** 15
