"""f16x2/bf16x2 registers over the reals in volta check (volta/exec/handlers/tensor_real.py packed_compute,
store_pairs): `cvt.rn.f16x2.f32 d, a, b` is the pair f16x2(b, a), arithmetic on packed registers works on each half, a
4-byte store of a pair lands as its two 16-bit elements, a shuffle moves the pair, and mma.sync reads fragments packed
in registers from f32. A packing with the halves swapped or another low half is NOT EQUIVALENT with a replayed
witness; pairs stored into buffers of another element type, per-half comparisons, integer arithmetic on a pair's
bits, atomics on pairs, and data stored with a width other than the buffer's element width are UNSUPPORTED
naming the instruction.

Before this model `cvt.rn.f16x2.f32` kept only its first source (the high half), so pack_xy vs pack_zy (different
low halves) was proved EQUIVALENT, and a 4-byte store into an f16 buffer was read back as one element.
PTX: tests/exec/data/packed_real/packed_real.sm80.ptx (nvcc 13 from packed_real.cu, command in its header).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from real_asserts import not_equivalent_replayed  # tests/exec/real_asserts.py
from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "packed_real" / "packed_real.sm80.ptx"
N = 64


def _spec(ref, opt, out="f16[128]"):
    buffers = [f"x=f32[{N}]:in", f"y=f32[{N}]:in", f"z=f32[{N}]:in", f"out={out}:out"]
    return pair_from_options(str(PTX), str(PTX), buffers, grid="2", block="32", args="x,y,z,out",
                             ref={"kernel": ref}, opt={"kernel": opt})


def _equivalent(spec):
    report = check(spec)
    assert report.verdict == "equivalent", (report.verdict, report.unsupported, report.unknown)
    return report


def _unsupported_at(spec, instruction, why, role="ref"):
    report = check(spec)
    assert report.verdict == "unsupported", (report.verdict, report.unknown)
    where, err = report.unsupported
    assert where == role and instruction in str(err) and why in str(err), str(err)


def test_packed_pair_stores_the_same_halves_as_two_f16_stores():
    report = _equivalent(_spec("pack_xy", "separate_xy"))
    assert report.compared == 2 * N


def test_another_low_half_is_not_equivalent():
    # the case the old model proved EQUIVALENT: it kept only cvt's first source (the high half, y)
    report = check(_spec("pack_xy", "pack_zy"))
    assert report.verdict == "not-equivalent"
    assert report.counterexample.index % 2 == 0   # a low half differs


def test_swapped_halves_are_not_equivalent_with_a_replayed_witness(tmp_path):
    not_equivalent_replayed(_spec("pack_yx", "separate_xy"), tmp_path)


def test_a_shuffle_moves_the_packed_pair():
    _equivalent(_spec("pack_shuffled", "pack_xy"))


def test_fma_on_packed_halves_with_a_constant_pair_is_the_f32_computation_per_half():
    # fma.rn.f16x2 with a concrete register: its bits are read as the two f16 constants (1, 2)
    _equivalent(_spec("fma_halves", "fma_separate"))


def test_add_mul_sub_on_packed_halves_is_the_f32_computation_per_half():
    _equivalent(_spec("add_sub_halves", "add_sub_separate"))


def test_per_half_arithmetic_is_not_whole_register_arithmetic(tmp_path):
    # the halves are computed apart: (x*y + 1, y*z + 2) is not (x + z - z*z, y + x - x*x)
    not_equivalent_replayed(_spec("fma_halves", "add_sub_separate"), tmp_path)


def test_bf16_pair_stores_its_halves_into_a_bf16_buffer():
    _equivalent(_spec("bf16_pack", "bf16_separate", out="bf16[128]"))


@pytest.mark.parametrize("kernel,out,instruction,why", [
    ("pack_into_f32", "f32[64]", "st.global.u32", "f16x2 pairs into `out` (f32)"),
    ("bf16_pack_into_f16", "f16[128]", "st.global.u32", "bf16x2 pairs into `out` (f16)"),
    ("f32_over_halves", "f16[128]", "st.global.f32", "stores 4-byte tensor data into the 2-byte f16 elements"),
    ("compare_halves", "f16[128]", "setp.gt.f16x2", "packed setp/set (two predicates) is not modelled"),
    ("pair_bits_plus_one", "u32[64]", "add.s32", "computes with the bits of a register holding two 16-bit"),
    ("pair_atomic_add", "f16[64]", "atom.add.noftz.f16x2", "atomics on pairs of 16-bit elements"),
])
def test_outside_the_model_is_unsupported_naming_the_instruction(kernel, out, instruction, why):
    _unsupported_at(_spec(kernel, kernel, out=out), instruction, why)


def _gemm(opt, m=32, n=16, k=32):
    buffers = [f"A=f32[{m * k}]:in", f"B=f32[{k * n}]:in", f"C=f32[{m * n}]:out"]
    return pair_from_options(str(PTX), str(PTX), buffers, args=f"A,B,C,{m},{n},{k}",
                             ref={"kernel": "gemm_f32_naive", "grid": f"1x{m // 16}", "block": f"{n}x16"},
                             opt={"kernel": opt, "grid": f"{n // 8}x{m // 16}", "block": "32"})


def test_mma_fragments_packed_from_f32_in_registers_are_the_f32_gemm():
    # over the reals cvt.rn.f16x2.f32 is exact, so the tensor-core product is the f32 one
    report = _equivalent(_gemm("gemm_mma_packed"))
    assert report.compared == 32 * 16


def test_mma_fragment_with_swapped_halves_is_not_equivalent_with_a_replayed_witness(tmp_path):
    report = not_equivalent_replayed(_gemm("gemm_mma_packed_swapped"), tmp_path)
    assert report.counterexample.buffer == "C"
