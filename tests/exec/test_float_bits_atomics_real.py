"""Integer atomics on a float's bits in volta check over the reals.

`atomicMax((unsigned*)out, __float_as_uint(x[i]))` and `atomicMin((int*)out, __float_as_int(x[i]))` order the
bits, not the values: unsigned, a negative float is above every positive one; signed, negative floats order
backwards. Over the reals the bits carry the float's value, and atomics_real combined them as the values:
both pairs were proved EQUIVALENT to the float max/min loops (x = {-1, 2}: the unsigned max is -1, the float
max 2). Now an integer atomic whose contribution or updated element is a float's bits is UNSUPPORTED; integer
atomics on integer data are still decided.
PTX: tests/exec/data/float_bits_atomics/float_bits_atomics.sm80.ptx (nvcc 13 from float_bits_atomics.cu,
command in its header).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "float_bits_atomics" / "float_bits_atomics.sm80.ptx"


def _check(ref, opt, dtype="f32"):
    spec = pair_from_options(str(PTX), str(PTX), [f"x={dtype}[4]:in", f"out={dtype}[1]:out"], grid="1", block="4",
                             args="x,out,4", ref={"kernel": ref}, opt={"kernel": opt})
    return check(spec)


@pytest.mark.parametrize("ref,opt,op", [("max_unsigned_bits", "max_loop", "atom.global.max.u32"),
                                        ("min_signed_bits", "min_loop", "atom.global.min.s32"),
                                        ("max_loaded_bits", "max_loop", "atom.global.max.s32"),
                                        ("add_bits", "add_loop", "atom.global.add.u32")])
def test_integer_atomics_on_float_bits_are_unsupported(ref, opt, op):
    report = _check(ref, opt)   # the first two were EQUIVALENT
    assert report.verdict == "unsupported", report.verdict
    where, err = report.unsupported
    assert where == "ref" and op in str(err) and "float's bits" in str(err), str(err)


def test_integer_atomics_on_integers_are_still_decided():
    report = _check("max_ints", "max_ints_loop", "s32")
    assert report.verdict == "equivalent", (report.verdict, report.unsupported)
