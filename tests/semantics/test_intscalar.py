"""volta/semantics/intscalar.py (Python-int integer arithmetic of the one-thread executor) against
compute.TABLE, the lane-array semantics every other path uses: equal bits for random raw register bits."""
from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.ir.program import lower
from volta.ptx.parser import parse_text
from volta.semantics import compute as C
from volta.semantics import intscalar

FORMS = [
    "add.s32", "add.u32", "add.s64", "add.u64", "add.s16", "sub.s32", "sub.u64", "sub.u16",
    "mul.lo.s32", "mul.lo.u32", "mul.lo.s64", "mul.lo.u64", "mul.wide.s32", "mul.wide.u32", "mul.wide.s16",
    "mul.wide.u16", "mad.lo.s32", "mad.lo.u32", "mad.lo.s64", "mad.wide.s32", "mad.wide.u32",
    "shl.b32", "shl.b64", "shl.b16", "shr.u32", "shr.s32", "shr.u64", "shr.s64", "shr.b32", "shr.s16",
    "and.b32", "or.b32", "xor.b32", "and.b64", "or.b64", "xor.b64", "not.b32", "not.b64", "not.b16",
    "cvt.s64.s32", "cvt.u64.u32", "cvt.u32.u64", "cvt.s32.s64", "cvt.s32.s8", "cvt.u16.u32", "cvt.s32.s16",
    "cvt.u8.u32", "cvt.s64.u32", "cvt.u64.s32",
]
COMPARES = ["setp.lt.s32", "setp.ge.u32", "setp.ne.s64", "setp.eq.u64", "setp.le.s16", "setp.hi.u32",
            "setp.lo.u64", "setp.gt.s64", "setp.hs.u16", "setp.ls.u32"]


@cache   # parsed once per opcode, not once per hypothesis example (7,350 parses were nine tenths of the file)
def _decoded(opcode):
    arity = 1 if opcode.startswith(("not", "cvt")) else 3 if opcode.startswith("mad") else 2
    srcs = ", ".join(f"%rd{k + 2}" for k in range(arity))
    dst = "%p1" if opcode.startswith("setp") else "%rd1"
    text = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .pred %p<2>;\n"
            f".reg .b64 %rd<6>;\n{opcode} {dst}, {srcs};\nret;\n}}\n")
    return lower(parse_text(text, use_cache=False), "k").ops[0].d


BITS = st.integers(min_value=0, max_value=(1 << 64) - 1) | st.sampled_from(
    [0, 1, 2, 31, 32, 33, 63, 64, 65, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, (1 << 63), (1 << 64) - 1, 0xFFFF, 0x8000])


@pytest.mark.parametrize("opcode", FORMS)
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(BITS, BITS, BITS), min_size=1, max_size=16))
def test_scalar_ops_match_the_table(opcode, triples):
    """Each example is a batch of operand triples, one per lane, that the table computes at once and the scalar
    function one by one (150 single-lane examples a form were mostly hypothesis's per-example overhead)."""
    d = _decoded(opcode)
    fn = intscalar.scalar_op(d)
    assert fn is not None, opcode
    n = fn.__code__.co_argcount
    want = C.TABLE[d.op](d, *[np.array([t[k] for t in triples], np.uint64) for k in range(n)])
    for lane, t in enumerate(triples):
        assert fn(*t[:n]) == int(want[lane]), (opcode, t[:n])


@pytest.mark.parametrize("opcode", COMPARES)
@settings(max_examples=150, deadline=None)
@given(a=BITS, b=BITS)
def test_compares_match_the_table(opcode, a, b):
    d = _decoded(opcode)
    want = C.compare(d, np.array([a], np.uint64), np.array([b], np.uint64))
    assert intscalar.compare(d)(a, b) == bool(want[0])


@pytest.mark.parametrize("opcode", ["add.sat.s32", "mul.hi.s32", "add.cc.u32", "mul.wide.u64", "add.f32",
                                    "cvt.rn.f32.s32", "and.pred"])
def test_other_forms_go_to_the_table(opcode):
    d = _decoded(opcode)
    assert intscalar.scalar_op(d) is None
