"""`volta check --fp ieee --prove` (issue 12): BIT-IDENTICAL only when proved, never for kernels whose
bits differ on some input: fma vs mul+add, another reduction tree, another split-K chunking, `.ftz`.

PTX: tests/equiv/data/bitproof (nvcc 13 from reductions.cu, with and without -ftz=true), the
examples' pairs, and the Triton reductions of examples/triton.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from volta.cli import run
from volta.equiv.bitproof import prove_bits
from volta.launch.spec import load_manifest, pair_from_options

DATA = Path(__file__).parent / "data" / "bitproof"
PTX, FTZ = DATA / "reductions.sm80.ptx", DATA / "reductions.ftz.sm80.ptx"
EX = Path(__file__).resolve().parents[2] / "examples"
BUFFERS = ["a=f32[2048]:in", "b=f32[256]:in", "out=f32[8]:out"]


def _proof(ref, opt, ref_ptx=PTX, opt_ptx=PTX):
    spec = pair_from_options(str(ref_ptx), str(opt_ptx), BUFFERS, grid="2", block="4", args="a,b,out",
                             ref={"kernel": ref}, opt={"kernel": opt})
    return prove_bits(spec, trials=2)


@pytest.mark.parametrize("opt", ["dot_seq", "dot_seq_swapped", "dot_seq_unrolled"])
def test_same_rounded_operations_in_the_same_order_are_bit_identical(opt):
    proof = _proof("dot_seq", opt)
    assert proof.verdict == "bit-identical" and proof.proved == proof.compared == 8


@pytest.mark.slow
@pytest.mark.parametrize("ref, opt", [("dot_seq", "dot_mul_add"), ("dot_seq", "dot_split64"),
                                      ("dot_split64", "dot_split128")])
def test_different_rounding_steps_are_never_bit_identical(ref, opt):
    proof = _proof(ref, opt)
    assert proof.verdict == "bits-differ", (proof.verdict, proof.unproved[:3])
    assert proof.sampled.witness is not None and proof.proved == 0


@pytest.mark.slow
def test_ftz_is_never_bit_identical_to_the_ieee_kernel():
    proof = _proof("dot_seq", "dot_seq", opt_ptx=FTZ)
    assert proof.verdict in ("bits-differ", "unknown") and proof.proved == 0


def test_integer_reductions_in_any_tree_are_bit_identical():
    # addition modulo 2^32 is associative: sequential, tree and shuffle sums have the same bits
    for case in ("eq_reduce_seq_tree", "eq_reduce_seq_shuffle"):
        assert prove_bits(load_manifest(EX / case / "manifest.toml")).verdict == "bit-identical", case


def test_float_tree_reduction_differs_with_a_witness():
    proof = prove_bits(load_manifest(EX / "eq_bits_reduce_seq_tree_f32" / "manifest.toml"), trials=2)
    assert proof.verdict == "bits-differ" and proof.divergence is not None


def test_layouts_vanish_gemm_naive_vs_tiled():
    proof = prove_bits(load_manifest(EX / "eq_gemm_naive_tiled" / "manifest.toml"))
    assert proof.verdict == "bit-identical" and proof.compared == 1024


def test_cli(capsys):
    code = run(["check", str(EX / "eq_reduce_seq_tree" / "manifest.toml"), "--fp", "ieee", "--prove", "-q"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("BIT-IDENTICAL: ")
    code = run(["check", str(EX / "eq_relu_fmax_select" / "manifest.toml"), "--fp", "ieee", "--prove", "-q",
                "--json", "--trials", "1"])
    data = json.loads(capsys.readouterr().out)
    assert code == 3 and data["verdict"] == "unknown" and data["unproved_count"] == 512
    assert run(["check", str(EX / "eq_reduce_seq_tree" / "manifest.toml"), "--prove", "-q"]) == 2


def test_the_identities_used_hold_in_the_bit_exact_semantics():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bit_identities", EX.parent / "proofs" / "bit_identities.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main() == 0
    # and the check can fail: sub does not commute, lt is not symmetric
    import random
    assert module.check_commutative("sub.f32", random.Random(0)) > 0
    assert module.check_compare("setp.lt.f32", random.Random(0)) > 0


@pytest.mark.parametrize("kernel, verdict", [("dot_batch_invariant", "bit-identical"),
                                             ("dot_batch_dependent", "bits-differ")])
def test_batch_invariance(kernel, verdict):
    spec = pair_from_options(str(PTX), str(PTX), ["a=f32[2048]:in", "b=f32[256]:in", "out=f32[8]:out"],
                             kernel=kernel, block="4", ref={"grid": "1", "args": "a,b,out,4"},
                             opt={"grid": "2", "args": "a,b,out,8"})
    proof = prove_bits(spec, trials=2, batch_invariant=True)
    assert proof.verdict == verdict and proof.compared == 4
    if verdict == "bits-differ":
        assert proof.witness["ref_bits"] != proof.witness["opt_bits"]


def test_triton_rowsum_is_batch_invariant(capsys):
    ptx = str(EX / "triton" / "rowsum.b256.w4.sm80.ptx")
    code = run(["check", ptx, ptx, "--block", "128", "--ref-grid", "4", "--opt-grid", "8",
                "--args", "out,x,256,scratch,profile", "--buffer", "x=f32[2048]:in", "--buffer", "out=f32[8]:out",
                "--buffer", "scratch=u8[64]:in", "--buffer", "profile=u8[64]:in", "--shared-dynamic", "16",
                "--fp", "ieee", "--prove", "--batch-invariant", "-q"])
    assert code == 0 and "BIT-IDENTICAL" in capsys.readouterr().out
