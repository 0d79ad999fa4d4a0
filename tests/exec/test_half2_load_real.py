"""f16/bf16 buffers read 32 bits at a time (a __half2 load is `ld.global.u32`, taken apart by
`mov.b32 {lo, hi}`): each 4-byte read of two whole input elements is the pair f16x2/bf16x2(low, high), which
packed arithmetic, stores and the unpacking move take as they already did for pairs made by `cvt`. These
kernels were UNSUPPORTED ("reads 4-byte pieces of the f16 buffer"). A bf16 pair read as __half2 stays
UNSUPPORTED (other numbers), and an input element of which the kernel wrote one byte before reading it is
UNSUPPORTED (it was read as the input element: a wrong EQUIVALENT to a copy).
PTX: tests/exec/data/half2_load/half2_load.sm80.ptx (nvcc 13 from half2_load.cu, command in its header)."""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = str(Path(__file__).parent / "data" / "half2_load" / "half2_load.sm80.ptx")


def _check(ref, opt, n, x, y):
    return check(pair_from_options(PTX, PTX, [f"x={x}:in", f"y={y}:out"], grid="2", block="32", args=f"x,y,{n}",
                                   ref={"kernel": ref}, opt={"kernel": opt}))


@pytest.mark.parametrize("ref,opt,n,x,y", [
    ("pair_sum", "pair_sum_half2", 128, "f16[128]", "f32[64]"),
    ("octet_sum", "octet_sum_uint4", 512, "f16[512]", "f32[64]"),
    ("scale_add", "scale_add_half2", 64, "f16[64]", "f16[64]"),
    ("bf16_pair_sum", "bf16_pair_sum_bf162", 128, "bf16[128]", "f32[64]"),
])
def test_pairs_read_from_half_buffers_are_decided(ref, opt, n, x, y):
    report = _check(ref, opt, n, x, y)
    assert report.verdict == "equivalent", (report.verdict, report.unsupported)


def test_a_wrong_weight_on_the_high_element_is_found():
    report = _check("pair_sum", "pair_sum_half2_high_twice", 128, "f16[128]", "f32[64]")
    assert report.verdict == "not-equivalent", (report.verdict, report.unsupported)


def test_a_bf16_pair_read_as_half2_is_refused():
    report = _check("bf16_pair_sum", "bf16_read_as_half2", 128, "bf16[128]", "f32[64]")
    assert report.verdict == "unsupported", report.verdict
    assert "reads elements of bf16 buffer `x` as f16" in str(report.unsupported[1])


def test_an_input_element_written_in_part_is_not_read_as_the_input():
    report = _check("copy", "top_byte_zeroed_then_copy", 64, "f32[64]", "f32[64]")
    assert report.verdict == "unsupported", report.verdict
    assert "wrote only some" in str(report.unsupported[1])
