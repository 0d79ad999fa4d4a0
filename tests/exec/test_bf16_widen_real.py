"""`mov.b32 %f, {0, %h}`: how nvcc (sm_80) writes __bfloat162float. A bf16 value above 16 zero bits is the f32
of the same number, so volta check carries its expression over when `h` certainly holds bf16 bits (every writer
converts to .bf16, or the value is an element of a bf16 buffer); it was UNSUPPORTED for every bf16 kernel that
converted to float ("packing tensor data into a wider register"). The same widening of an f16 value, of a
float rounded to a u16, or of an f16 buffer's element (inline PTX) is another number: still UNSUPPORTED.
PTX: tests/exec/data/bf16_widen/bf16_widen.sm80.ptx (nvcc 13 from bf16_widen.cu, command in its header)."""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = str(Path(__file__).parent / "data" / "bf16_widen" / "bf16_widen.sm80.ptx")


def _check(ref, opt, dtype):
    return check(pair_from_options(PTX, PTX, [f"x={dtype}[64]:in", "y=f32[64]:out"], grid="2", block="32",
                                   args="x,y,64", ref={"kernel": ref}, opt={"kernel": opt}))


@pytest.mark.parametrize("ref,opt,dtype", [("copy", "bf16_round_trip", "f32"),
                                           ("bf16_load", "bf16_load_twice_half", "bf16")])
def test_bf16_widened_to_f32_is_decided(ref, opt, dtype):
    report = _check(ref, opt, dtype)
    assert report.verdict == "equivalent", (report.verdict, report.unsupported)


@pytest.mark.parametrize("ref,opt,dtype", [("copy", "f16_bits_widened", "f32"), ("copy", "u16_widened", "f32"),
                                           ("f16_load", "f16_load_widened", "f16")])
def test_other_16_bit_values_widened_are_refused(ref, opt, dtype):
    report = _check(ref, opt, dtype)
    assert report.verdict == "unsupported", report.verdict
    assert "not certainly bf16" in str(report.unsupported[1])



def test_a_wrong_bf16_kernel_is_not_equivalent_with_a_replayed_witness():
    # the replay reads input elements as constants; they are bf16 here (no other 16-bit value in the launch)
    report = _check("bf16_load", "bf16_load_next", "bf16")
    assert report.verdict == "not-equivalent", (report.verdict, report.unsupported, report.unknown)
