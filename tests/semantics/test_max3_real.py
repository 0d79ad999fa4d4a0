"""Three-input and `.relu` integer max over the reals (volta check): max(a, b, c) reduces left to right and
`.relu` clamps at 0 — once a TypeError (two-argument lambdas) and a silently ignored `.relu`."""
from __future__ import annotations

from pathlib import Path

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = str(Path(__file__).parent / "data" / "max3_relu.ptx")


def _verdict(opt):
    spec = pair_from_options(PTX, PTX, ["x=s32[24]:in", "y=s32[8]:out"], grid="1", block="8", args="x,y",
                             ref={"kernel": "max3_two"}, opt={"kernel": opt})
    return check(spec).verdict


def test_three_input_relu_max_equals_two_maxes_and_a_clamp():
    assert _verdict("max3_one") == "equivalent"


def test_dropping_the_relu_is_not_equivalent():
    assert _verdict("max3_norelu") == "not-equivalent"
