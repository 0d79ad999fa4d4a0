"""Tensor-core MMA in the bit-identity proof (issue 12): `mma.sync` is an uninterpreted term per model whose
operands are A's row and B's column in k order and c; ldmatrix/movmatrix move terms. Same chain of MMAs ⇒
BIT-IDENTICAL; another chain (k halves swapped, split-K) ⇒ never, and the sampled search with the concrete
tensor-core model shows the bits really differ (the strictness is justified, not over-cautious).

PTX: tests/equiv/data/bitproof/mma_chain.sm80.ptx (nvcc, regenerate.sh) and the Triton split-K matmul space
of examples/triton (splitk_matmul_configs.toml, TF32 mma.sync m16n8k8 fed by ldmatrix).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from volta.cli import run
from volta.equiv.bitproof import TermMachine, element_terms, prove_bits
from volta.equiv.diverge import check_bits
from volta.equiv.classes import load_configs
from volta.launch.spec import LaunchSpec, pair_from_options
from volta.ir.program import lower
from volta.ptx.parser import parse_file
from volta.symbolic import expr as E

DATA = Path(__file__).parent / "data" / "bitproof"
MMA = DATA / "mma_chain.sm80.ptx"
SPACE = Path(__file__).resolve().parents[2] / "examples" / "triton" / "splitk_matmul_configs.toml"
BUFFERS = ["A=f32[256]:in", "B=f32[128]:in", "D=f32[128]:out"]


def _nvcc_pair(ref, opt):
    return pair_from_options(str(MMA), str(MMA), BUFFERS, grid="1", block="32", args="A,B,D",
                             ref={"kernel": ref}, opt={"kernel": opt})


def _triton_pair(ref_label, opt_label):
    configs, buffers, symbols = load_configs(SPACE)
    by_label = {c.label: c.launch for c in configs}
    return LaunchSpec({"ref": by_label[ref_label], "opt": by_label[opt_label]}, buffers, symbols)


def _terms(spec, role, fp="ampere"):
    launch = spec.launches[role]
    m = TermMachine(lower(parse_file(launch.ptx), launch.kernel), launch, spec.buffers, spec.symbols, fp=fp).run()
    assert not m.findings
    return element_terms(m, spec)


def _chain(node):
    """The MMA terms from an output back through the accumulator operand (the last argument)."""
    names = []
    while node.op is E.CALL and node.data.startswith("mma."):
        names.append(node)
        node = node.args[-1]
    return names, node


@pytest.mark.parametrize("fp", ["ampere", "hopper"])
def test_same_mma_chain_is_bit_identical(fp):
    proof = prove_bits(_nvcc_pair("mma_k_in_order", "mma_k_in_order_reloaded"), fp=fp)
    assert proof.verdict == "bit-identical" and proof.proved == proof.compared == 128


def test_an_output_is_the_chain_of_model_named_mma_terms_in_k_order():
    terms = _terms(_nvcc_pair("mma_k_in_order", "mma_k_in_order"), "ref")["D"]
    chain, start = _chain(terms[0])                  # D[0][0]
    assert len(chain) == 2 and start.data == ".b32#0"  # two k8 steps chained from a zero accumulator
    assert all(n.data == "mma.ampere.m16n8k8.row.col.f32.tf32.tf32.f32" for n in chain)
    last, first = chain
    # operands: A[0][k] for k in the step, B[k][0], then c: layouts have vanished into matrix coordinates
    assert [str(a) for a in first.args[:8]] == [str(E.var("A", k)) for k in range(8)]
    assert [str(a) for a in first.args[8:16]] == [str(E.var("B", 8 * k)) for k in range(8)]
    assert [str(a) for a in last.args[:8]] == [str(E.var("A", k)) for k in range(8, 16)]
    hopper = _terms(_nvcc_pair("mma_k_in_order", "mma_k_in_order"), "ref", fp="hopper")["D"][0]
    assert hopper is not terms[0]                    # another model is another function


@pytest.mark.parametrize("opt", ["mma_k_halves_swapped", "mma_k_split"])
def test_another_mma_chain_is_never_bit_identical(opt):
    spec = _nvcc_pair("mma_k_in_order", opt)
    proof = prove_bits(spec, fp="ampere", trials=2)
    assert proof.verdict == "bits-differ" and proof.proved == 0, (proof.verdict, proof.proved)
    # the strictness is justified: the concrete tensor-core model gives other bits on sampled inputs
    report, _, _ = check_bits(spec, fp="ampere", trials=2)
    assert not report.identical and report.witness is not None


def test_ieee_has_no_tensor_core_semantics():
    proof = prove_bits(_nvcc_pair("mma_k_in_order", "mma_k_in_order"), fp="ieee")
    assert proof.verdict == "unsupported" and "no IEEE semantics" in str(proof.unsupported[1])


def test_cli_mma_pair(capsys):
    code = run(["check", str(MMA), str(MMA), "--ref-kernel", "mma_k_in_order", "--opt-kernel", "mma_k_split",
                *[x for b in BUFFERS for x in ("--buffer", b)], "--grid", "1", "--block", "32", "--args", "A,B,D", "--fp", "ampere",
                "--prove", "-q", "--trials", "1"])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("BITS DIFFER"), out


def test_triton_tiled_matmul_same_chain_other_warps_and_block_k_is_bit_identical():
    # BK 8 vs 16 and num_warps 1 vs 2: the same m16n8k8 steps chained in the same k order
    for ref, opt in (("BK=8 SPLIT_K=1 num_warps=1", "BK=16 SPLIT_K=1 num_warps=2"),
                     ("BK=16 SPLIT_K=1 num_warps=1", "BK=32 SPLIT_K=1 num_warps=2")):
        proof = prove_bits(_triton_pair(ref, opt), fp="ampere")
        assert proof.verdict == "bit-identical" and proof.compared == 1024, (ref, opt, proof.verdict)


def test_triton_chain_of_four_k8_steps_through_ldmatrix():
    spec = _triton_pair("BK=16 SPLIT_K=1 num_warps=2", "BK=16 SPLIT_K=1 num_warps=2")
    out = _terms(spec, "ref")["C"][33]       # C[1][1] = (+0.0) + part: the kernel's `acc += part` stays
    # (x + 0 is not x: -0 + +0 = +0); add is commutative, so its operands' order is the interning order
    zero = [a for a in out.args if a.data == ".f32#0"]
    part = [a for a in out.args if a.data != ".f32#0"]
    assert out.data == "add.f32" and len(zero) == 1 and len(part) == 1
    chain, start = _chain(part[0])           # K = 32 is four m16n8k8 steps
    assert len(chain) == 4 and start.data == ".b32#0"
    first = chain[-1]
    assert [str(a) for a in first.args[:8]] == [str(E.var("A", 32 + k)) for k in range(8)]
    assert [str(a) for a in first.args[8:16]] == [str(E.var("B", 1 + 32 * k)) for k in range(8)]


@pytest.mark.slow
@pytest.mark.parametrize("ref, opt", [("BK=8 SPLIT_K=1 num_warps=1", "BK=8 SPLIT_K=2 num_warps=1"),
                                      ("BK=16 SPLIT_K=1 num_warps=2", "BK=16 SPLIT_K=2 num_warps=2"),
                                      ("BK=8 SPLIT_K=2 num_warps=1", "BK=8 SPLIT_K=4 num_warps=1")])
def test_triton_split_k_is_never_bit_identical_and_the_bits_really_differ(ref, opt):
    spec = _triton_pair(ref, opt)
    proof = prove_bits(spec, fp="ampere", trials=2)
    assert proof.verdict == "bits-differ" and proof.proved < proof.compared
    report, _, _ = check_bits(spec, fp="ampere", trials=2)
    assert not report.identical and report.witness is not None


def _model_reversal_changes(arch, fmt, trials=200):
    """How often reversing k in one m16n8k8 TF32 instruction changes the model's bits (proofs/mma_terms.md)."""
    import random
    import struct

    from volta.numerics.mma_model import mma_dot

    def word(x):
        return struct.unpack("<I", struct.pack("<f", x))[0]

    rnd, changed = random.Random(1), 0
    for _ in range(trials):
        a = [word(rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-8, 8)) for _ in range(8)]
        b = [word(rnd.uniform(-1, 1)) for _ in range(8)]
        c = word(rnd.uniform(-1, 1))
        changed += mma_dot(a, b, c, arch, fmt, "f32") != mma_dot(a[::-1], b[::-1], c, arch, fmt, "f32")
    return changed


def test_k_order_matters_in_the_ampere_model_so_terms_keep_it():
    # groups of 4 rounded in increasing k: a permutation across groups changes bits; the proof stays strict
    assert _model_reversal_changes("ampere", "tf32") > 50


F16 = DATA / "mma_f16.sm80.ptx"
F16_BUFFERS = ["A=f16[256]:in", "B=f16[128]:in", "D=f32[128]:out"]


def _f16_pair(ref, opt):
    return pair_from_options(str(F16), str(F16), F16_BUFFERS, grid="1", block="32", args="A,B,D",
                             ref={"kernel": ref}, opt={"kernel": opt})


def test_fragments_by_ldmatrix_and_trans_are_the_directly_gathered_ones():
    # two independent routes to the same m16n8k16 fragments: packed global loads vs shared memory through
    # ldmatrix.x4 (A) and ldmatrix.x2.trans (B); the sampled tensor-core runs agree too
    spec = _f16_pair("mma_f16_direct", "mma_f16_ldmatrix")
    proof = prove_bits(spec, fp="ampere")
    assert proof.verdict == "bit-identical" and proof.proved == proof.compared == 128
    report, _, _ = check_bits(spec, fp="ampere", trials=1)
    assert report.identical and report.unsupported is None


def test_movmatrix_moves_terms():
    assert prove_bits(_f16_pair("mma_f16_direct", "mma_f16_movmatrix_twice"), fp="ampere").verdict == "bit-identical"
    # one transpose is each 8x8 block of A read transposed, gathered by another route
    proof = prove_bits(_f16_pair("mma_f16_blocks_transposed", "mma_f16_movmatrix_once"), fp="ampere")
    assert proof.verdict == "bit-identical" and proof.compared == 128
    assert prove_bits(_f16_pair("mma_f16_direct", "mma_f16_movmatrix_once"), fp="ampere",
                      trials=1).verdict != "bit-identical"


def test_cuda_and_triton_split_k_configurations_share_classes():
    from volta.equiv.bits import GENERATORS, make_inputs, output_words
    from volta.equiv.classes import partition
    from volta.exec.machine import Machine

    configs, buffers, symbols = load_configs(SPACE.parent / "splitk_matmul_cuda_configs.toml")
    result = partition(configs, buffers, symbols, fp="ampere")
    labels = [sorted(configs[k].label for k in members) for members in result.classes]
    assert not result.unsupported and len(labels) == 4
    assert ["CUDA SPLIT_K=1", "CUDA SPLIT_K=1 n halves swapped", "Triton BK=16 SPLIT_K=1 num_warps=2"] in labels
    assert ["CUDA SPLIT_K=2", "Triton BK=8 SPLIT_K=2 num_warps=1"] in labels
    assert ["CUDA SPLIT_K=1 k steps reversed"] in labels
    assert all(s.witness is not None for s in result.separations)
    # no over-merge: members of a class agree bitwise under the tensor-core model on inputs the proof never saw
    spec = LaunchSpec({"ref": configs[0].launch, "opt": configs[0].launch}, buffers)
    for gen in GENERATORS[:3]:
        inputs, _ = make_inputs(spec, gen, 4242)
        for members in result.classes:
            words = []
            for k in members:
                c = configs[k]
                m = Machine(lower(parse_file(c.launch.ptx), c.launch.kernel), c.launch, buffers, {},
                            inputs={n: v.copy() for n, v in inputs.items()}, structured=False, check_races=False,
                            fp="ampere").run()
                words.append(output_words(m, spec)["C"])
            assert all(np.array_equal(words[0], w) for w in words[1:]), (gen, members)


def test_packing_identities_are_checked_and_the_check_can_fail(monkeypatch):
    import importlib.util
    import random

    import volta.equiv.bitproof as bp

    spec = importlib.util.spec_from_file_location("bit_identities", SPACE.parents[2] / "proofs" / "bit_identities.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.check_packing(random.Random(0), trials=50) == 0
    real = bp.element
    monkeypatch.setattr(bp, "element", lambda w, sub, ew: real(w, 1 - sub if ew == 16 else sub, ew))
    assert module.check_packing(random.Random(0), trials=50) > 0


def test_f64_mma_is_an_exact_fma_chain_under_ieee():
    def pair(ref, opt):
        return pair_from_options(str(MMA), str(MMA), ["A=f64[64]:in", "B=f64[64]:in", "D=f64[64]:out"], grid="1",
                                 block="32", args="A,B,D", ref={"kernel": ref}, opt={"kernel": opt})

    proof = prove_bits(pair("mma_f64_in_order", "mma_f64_in_order"), fp="ieee")
    assert proof.verdict == "bit-identical" and proof.compared == 64
    chain, _ = _chain(_terms(pair("mma_f64_in_order", "mma_f64_in_order"), "ref", fp="ieee")["D"][0])
    assert [n.data for n in chain] == ["mma.f64-fma-chain.m8n8k4.row.col.f64.f64.f64.f64"] * 2
    swapped = prove_bits(pair("mma_f64_in_order", "mma_f64_swapped"), fp="ieee", trials=2)
    assert swapped.verdict == "bits-differ" and swapped.proved == 0
