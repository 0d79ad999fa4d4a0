"""Stores into some of the bytes of a stored value, and loads that start inside one, in volta check.

Only the first byte of a stored expression names it (region.sym, or lsref); its other bytes hold placeholder
bits. Before region.cover, a 16-bit store into the high half of a shared f32 value left the expression in place
(the f32 read back was EQUIVALENT to the value before the store), and a 4-byte load of the high word of an f64
value read the placeholders (EQUIVALENT to zeros). Now each is UNSUPPORTED naming the load; stores that leave a
read value intact, and buffers reused at another width after whole rewrites, are still decided.
PTX: tests/exec/data/overlap/overlap.sm80.ptx (nvcc 13 from overlap.cu, command in its header).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from volta.equiv.check import check
from volta.exec.state import access as A
from volta.exec.state.memory import Region
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "overlap" / "overlap.sm80.ptx"


def _check(ref, opt, x="f32", y="f32", block=32):
    spec = pair_from_options(str(PTX), str(PTX), [f"x={x}[{block}]:in", f"y={y}[{block}]:out"], grid="1",
                             args=f"x,y,{block}", ref={"kernel": ref, "block": str(block)},
                             opt={"kernel": opt, "block": str(block)})
    return check(spec)


@pytest.mark.parametrize("block", [32, 1])   # 1: the one-thread executor falls back to the same loads
def test_a_narrow_store_into_a_stored_value_makes_it_unreadable(block):
    report = _check("twice", "high_half_zeroed", block=block)
    assert report.verdict == "unsupported", report.verdict
    where, err = report.unsupported
    assert where == "opt" and "ld.shared.f32" in str(err) and "partly overwritten" in str(err), str(err)


def test_a_load_starting_inside_a_wider_value_is_unsupported():
    report = _check("zeros", "high_word_read", x="f64")
    assert report.verdict == "unsupported", report.verdict
    assert "starting inside a wider value" in str(report.unsupported[1])


def test_the_other_word_of_a_partly_overwritten_double_is_unsupported():
    report = _check("twice_f64", "low_word_replaced", x="f64", y="f64")
    assert report.verdict == "unsupported", report.verdict
    assert "ld.shared.f64" in str(report.unsupported[1]) and "partly overwritten" in str(report.unsupported[1])


def test_an_output_element_partly_overwritten_names_the_narrow_store():
    report = _check("twice", "output_high_half_zeroed")
    assert report.verdict == "unsupported", report.verdict
    err = str(report.unsupported[1])
    assert "element 0 of `y`" in err and "partly overwritten" in err and "st.global.u16" in err, err


@pytest.mark.parametrize("opt,ref", [("neighbour_zeroed", "twice"), ("reused_as_halves", "twice"),
                                     ("overwritten_whole", "two")])
def test_values_left_whole_are_still_decided(opt, ref):
    report = _check(ref, opt)
    assert report.verdict == "equivalent", (report.verdict, report.unsupported)


# ---- region.cover itself ------------------------------------------------------------------------------------

def _region():
    return Region(1, "s", ".shared", 32, 1)


def _store(region, off, size, expr):
    lanes = np.zeros(1, np.int64)
    A.store_sym(None, region, lanes, np.array([off]), size, np.array([expr], dtype=object))


def _why(region, off, size):
    why = A.unreadable(region, np.zeros(1, np.int64), np.array([off]), size)
    return None if why is None else why[0]


def test_cover_marks_what_each_store_leaves():
    region = _region()
    _store(region, 0, 8, "f64 value")
    assert _why(region, 0, 8) is None and "starting inside" in _why(region, 4, 4)
    _store(region, 4, 4, None)                        # a concrete word over the high half
    assert "partly overwritten" in _why(region, 0, 8) and "partly overwritten" in _why(region, 0, 4)
    assert _why(region, 4, 4) is None                 # the new word itself is readable
    assert region.sym[0, 0] is None                   # the expression is dropped, not left readable
    _store(region, 0, 4, "low word")                  # a whole rewrite of the dead bytes revives them
    assert _why(region, 0, 4) is None                 # (an 8-byte load there meets load_sym's width check)
    _store(region, 16, 2, "half")
    assert "narrower value stored inside" in _why(region, 14, 4)
    _store(region, 14, 4, "wider")                    # covers the half whole: nothing dead
    assert _why(region, 14, 4) is None and region.sym[0, 16] is None
