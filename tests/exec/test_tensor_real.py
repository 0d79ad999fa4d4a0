"""Tensor-core instructions over the reals in volta check (volta/exec/handlers/tensor_real.py): wmma.load/store/mma,
mma.sync and ldmatrix move element expressions and compute D = C + sum_k A*B exactly, so a tensor-core tile
is EQUIVALENT to a naive gemm, a layout defect is NOT EQUIVALENT with a witness that concrete re-execution of
both kernels confirms, and shapes and types outside the real model are UNSUPPORTED naming the instruction.
PTX: tests/exec/data/tensor_real/tensor_real.sm80.ptx (nvcc 13 from tensor_real.cu, command in its header).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from real_asserts import not_equivalent_replayed  # tests/exec/real_asserts.py
from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "tensor_real" / "tensor_real.sm80.ptx"


def _spec(ref, opt, *, elem="f16", out="f32", m=16, n=16, k=32, ref_block="16x16", ref_grid="1",
          opt_grid=None, b_count=None):
    buffers = [f"A={elem}[{m * k}]:in", f"B={elem}[{b_count or k * n}]:in", f"C={out}[{m * n}]:out"]
    return pair_from_options(str(PTX), str(PTX), buffers, block="32", args=f"A,B,C,{m},{n},{k}",
                             ref={"kernel": ref, "grid": ref_grid, "block": ref_block},
                             opt={"kernel": opt, "grid": opt_grid or f"{n // 8}x{m // 16}"})


def _unsupported_at(spec, instruction, role="opt"):
    report = check(spec)
    assert report.verdict == "unsupported", report.verdict
    where, err = report.unsupported
    assert where == role and instruction in str(err), str(err)
    return str(err)


def test_mma_m16n8k16_from_ldmatrix_fragments_is_equivalent_to_the_naive_gemm():
    # ldmatrix .x4 for A and .x2.trans for B, two k steps accumulated through C
    report = check(_spec("naive_f16", "mma_ldmatrix"))
    assert report.verdict == "equivalent", (report.unsupported, report.unknown)
    assert report.compared == 16 * 16


def test_ldmatrix_without_trans_on_b_is_not_equivalent_with_a_replayed_witness(tmp_path):
    report = not_equivalent_replayed(_spec("naive_f16", "mma_ldmatrix_notrans"), tmp_path)
    assert report.counterexample.buffer == "C"


def test_movmatrix_trans_turns_untransposed_ldmatrix_blocks_into_the_b_fragment():
    # ldmatrix without .trans, then movmatrix.trans per 8x8 block: the same fragment as ldmatrix .trans
    report = check(_spec("naive_f16", "mma_movmatrix"))
    assert report.verdict == "equivalent", (report.unsupported, report.unknown)


def test_movmatrix_kernel_against_the_transposed_reference_is_not_equivalent(tmp_path):
    not_equivalent_replayed(_spec("naive_f16_nt", "mma_movmatrix", k=16), tmp_path)


def test_movmatrix_bits_match_the_ldmatrix_trans_kernel_under_ieee():
    # the bit handler: on concrete inputs the movmatrix kernel writes the same words as the .trans kernel
    from volta.equiv.check import execute, outputs
    spec = _spec("mma_ldmatrix", "mma_movmatrix", ref_grid="2x1", ref_block="32")
    values = {role: outputs(execute(spec, role, input_values={
        "A": {i: (i % 7) - 3 for i in range(512)}, "B": {i: (i % 5) - 2 for i in range(512)}}), spec)["C"]
        for role in ("ref", "opt")}
    assert [str(v) for v in values["ref"]] == [str(v) for v in values["opt"]]
    assert len(set(str(v) for v in values["opt"])) > 4


def test_mma_m16n8k8_tf32_is_equivalent_to_the_naive_sgemm():
    # cvt.rna.tf32.f32 is the identity over the reals, the m16n8k8 .tf32 layouts put each element in place
    report = check(_spec("naive_f32", "mma_tf32", elem="f32"))
    assert report.verdict == "equivalent", (report.unsupported, report.unknown)


def test_mma_ldmatrix_against_the_transposed_reference_is_not_equivalent(tmp_path):
    # the correct kernel against C = A * B^T (B read as [N][K]): the B fragment layout must matter
    spec = _spec("naive_f16_nt", "mma_ldmatrix", m=16, n=16, k=16)
    not_equivalent_replayed(spec, tmp_path)


def test_mma_m8n8k4_f64_is_equivalent_to_the_naive_dgemm():
    report = check(_spec("naive_f64", "mma_f64", elem="f64", out="f64", m=8, n=8, k=8, ref_block="8x8",
                         opt_grid="1x1"))
    assert report.verdict == "equivalent", (report.unsupported, report.unknown)
    assert report.compared == 64


def test_wmma_col_major_fragment_reads_a_transposed_b_as_the_naive_nt_gemm():
    spec = _spec("naive_f16_nt", "wmma_nt_col", b_count=16 * 32, opt_grid="1x1")
    report = check(spec)
    assert report.verdict == "equivalent", (report.unsupported, report.unknown)


def test_wmma_row_major_fragment_over_the_same_b_is_not_equivalent(tmp_path):
    spec = _spec("naive_f16_nt", "wmma_nt_row", b_count=16 * 32, opt_grid="1x1")
    not_equivalent_replayed(spec, tmp_path)


def test_wmma_col_major_fragment_against_the_row_major_reference_is_not_equivalent(tmp_path):
    # and the other way round: the col_major kernel is not the NN gemm
    spec = _spec("naive_f16", "wmma_nt_col", k=16, opt_grid="1x1")
    not_equivalent_replayed(spec, tmp_path)


def _refused(kernel, buffers):
    """The kernel as both sides: the reference runs first and stops at the instruction."""
    return pair_from_options(str(PTX), str(PTX), buffers, grid="1", block="32", args="A,B,C",
                             ref={"kernel": kernel}, opt={"kernel": kernel})


@pytest.mark.parametrize("kernel,buffers,instruction,why", [
    ("mma_s8", ["A=s32[128]:in", "B=s32[64]:in", "C=s32[128]:out"],
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "s8 data is not modelled over the reals"),
    ("mma_m8n8k4_f16", ["A=u32[64]:in", "B=u32[64]:in", "C=f32[256]:out"],
     "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", "shape .m8n8k4 with .f16 inputs is not modelled"),
    ("wmma_s8", ["A=s8[256]:in", "B=s8[256]:in", "C=s32[256]:out"],
     "wmma.load.a.sync.aligned.row.m16n16k16.global.s8", "s8 data is not modelled over the reals"),
])
def test_shapes_and_types_outside_the_real_model_are_unsupported_naming_the_instruction(kernel, buffers,
                                                                                         instruction, why):
    message = _unsupported_at(_refused(kernel, buffers), instruction, role="ref")
    assert why in message
