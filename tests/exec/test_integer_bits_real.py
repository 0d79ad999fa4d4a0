"""Float arithmetic on integer data is UNSUPPORTED in volta check (machine._refuse_integer_bits): over the reals
an int's bits read as a float (`__int_as_float`) would be the same number as the int, so `x + 1` on s32 and
`__float_as_int(__int_as_float(x) + 1.0f)` were proved EQUIVALENT. Moving an int through a float register
without arithmetic keeps its bits and is still decided. Elements moved by ldmatrix are read by mma in their
buffer's own format only (tensor_real._refuse_other_format).
PTX: tests/exec/data/integer_bits/integer_bits.sm80.ptx (nvcc 13 from integer_bits.cu, command in its header).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "integer_bits" / "integer_bits.sm80.ptx"


def _check(ref, opt):
    spec = pair_from_options(str(PTX), str(PTX), ["x=s32[64]:in", "out=s32[64]:out"], grid="2", block="32",
                             args="x,out,64", ref={"kernel": ref}, opt={"kernel": opt})
    return check(spec)


def test_integer_data_added_as_a_float_is_unsupported():
    report = _check("plus_one", "plus_one_as_float")
    assert report.verdict == "unsupported", report.verdict
    where, err = report.unsupported
    assert where == "opt" and "add.f32" in str(err) and "integer data" in str(err), str(err)


def test_integer_sums_still_equivalent():
    assert _check("plus_one", "one_plus").verdict == "equivalent"


def test_integer_moved_through_a_float_register_still_equivalent():
    assert _check("plus_one", "plus_one_moved").verdict == "equivalent"


@pytest.mark.parametrize("dtype, why", [("u16", "integer data"), ("bf16", "bf16 buffer `A` as f16"),
                                        ("f16", None)])
def test_mma_on_ldmatrix_fragments_reads_them_in_their_own_format(dtype, why):
    """ldmatrix moves 16-bit elements without a format; an f16 mma then read a u16 or bf16 buffer's bits as
    halves (the same bits, another number): UNSUPPORTED. From an f16 buffer it is decided."""
    ptx = str(Path(__file__).parents[2] / "examples" / "eq_gemm_naive_mma_ldmatrix" / "opt.sm80.ptx")
    spec = pair_from_options(ptx, ptx, [f"A={dtype}[1024]:in", "B=f16[1024]:in", "C=f32[1024]:out"], grid="2x2",
                             block="64", args="A,B,C,32,32,32", kernel="gemm_mma_ldmatrix")
    report = check(spec)
    if why is None:
        assert report.verdict == "equivalent", report.verdict
        return
    assert report.verdict == "unsupported", report.verdict
    assert "mma.sync" in str(report.unsupported[1]) and why in str(report.unsupported[1])
