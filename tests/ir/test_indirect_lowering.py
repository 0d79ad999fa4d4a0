"""Lowering of function addresses and calls through a register (volta/ir/indirect.py, PTX ISA §9.7.13.4)."""
from __future__ import annotations

import pytest

from volta.errors import Unsupported
from volta.ir import indirect
from volta.ir.program import lower
from volta.ptx.parser import parse_text

HEAD = """
.version 9.0
.target sm_80
.address_size 64
.func (.param .b32 func_retval0) sq(.param .b32 sq_p)
{
    .reg .f32 %f<3>;
    ld.param.f32 %f1, [sq_p];
    mul.f32 %f2, %f1, %f1;
    st.param.f32 [func_retval0+0], %f2;
    ret;
}
.func (.param .b32 func_retval0) twice(.param .b32 twice_p)
{
    .reg .f32 %f<3>;
    ld.param.f32 %f1, [twice_p];
    add.f32 %f2, %f1, %f1;
    st.param.f32 [func_retval0+0], %f2;
    ret;
}
.func (.param .b32 func_retval0) two(.param .b32 two_a, .param .b32 two_b)
{
    .reg .f32 %f<4>;
    ld.param.f32 %f1, [two_a];
    ld.param.f32 %f2, [two_b];
    sub.f32 %f3, %f1, %f2;
    st.param.f32 [func_retval0+0], %f3;
    ret;
}
"""

CALL = """
    {
    .param .b32 param0;
    st.param.f32 [param0+0], %f1;
    .param .b32 retval0;
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (retval0), %rd1, (param0), prototype_0;
    ld.param.f32 %f2, [retval0+0];
    }
"""


def _kernel(prelude: str, pick: str, extra_globals: str = "") -> str:
    return HEAD + extra_globals + f"""
.visible .entry k(.param .u64 k_x)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    {prelude}
    mov.f32 %f1, 0f3F800000;
    {pick}
{CALL}
    ret;
}}
"""


def _ops(prog):
    return [op.op for op in prog.ops]


def test_a_register_with_one_mov_of_a_function_is_a_direct_call():
    prog = lower(parse_text(_kernel("", "mov.u64 %rd1, sq;"), "k.ptx"))
    names = _ops(prog)
    assert indirect.MISS_OP not in names and "setp" not in names
    assert "mul" in names and "add" not in names  # sq's body inlined, twice's not


def test_a_selected_pointer_becomes_a_chain_over_the_address_taken_functions():
    pick = """mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.b32 %p1, %r2, 1;
    mov.u64 %rd2, sq;
    mov.u64 %rd3, twice;
    selp.b64 %rd1, %rd3, %rd2, %p1;"""
    prog = lower(parse_text(_kernel("", pick), "k.ptx"))
    names = _ops(prog)
    assert names.count(indirect.MISS_OP) == 1
    (miss,) = [op for op in prog.ops if op.op == indirect.MISS_OP][0].operands
    assert [n for n, _ in miss.candidates] == ["sq", "twice"]  # `two` is neither taken nor of this arity
    # one compare per candidate against its address, both bodies inlined
    addrs = indirect.function_addresses(parse_text(_kernel("", pick), "k.ptx"))
    compares = [op for op in prog.ops if op.op == "setp" and op.d.cmp == ".ne"]
    assert [op.operands[2].value for op in compares] == [addrs["sq"], addrs["twice"]]
    assert "mul" in names and "add" in names
    # the mov of a function's name is its address
    movs = [op for op in prog.ops if op.op == "mov" and op.d.type == ".u64"]
    assert {op.operands[1].value for op in movs} == {addrs["sq"], addrs["twice"]}


def test_a_function_of_another_arity_is_no_candidate_and_says_why():
    pick = """mov.u64 %rd2, two;
    mov.u64 %rd3, sq;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    selp.b64 %rd1, %rd2, %rd3, %p1;"""
    prog = lower(parse_text(_kernel("", pick), "k.ptx"))
    (miss,) = [op for op in prog.ops if op.op == indirect.MISS_OP][0].operands
    assert [n for n, _ in miss.candidates] == ["sq"]
    assert [(n, why) for n, _, why in miss.skipped] == [
        ("two", "takes 2 parameters and returns 1 values; the call passes 1 and expects 1")]


def test_function_names_in_an_initializer_are_their_addresses():
    table = ".global .align 8 .u64 table[3] = {sq, twice, sq};\n"
    text = _kernel("", "mov.u64 %rd2, table;\n    ld.global.u64 %rd1, [%rd2];", table)
    module = parse_text(text, "k.ptx")
    prog = lower(module)
    addrs = indirect.function_addresses(module)
    init = prog.variables["table"].init
    assert [int.from_bytes(init[8 * k: 8 * k + 8], "little") for k in range(3)] == [
        addrs["sq"], addrs["twice"], addrs["sq"]]
    assert indirect.MISS_OP in _ops(prog)  # a loaded pointer: decided per lane at run time


def test_function_addresses_are_distinct_and_outside_memory():
    addrs = indirect.function_addresses(parse_text(_kernel("", "mov.u64 %rd1, sq;"), "k.ptx"))
    assert len(set(addrs.values())) == len(addrs) == 4
    assert all(a >> 56 == 0 and (a >> 40) > 0xFF for a in addrs.values())  # generic → global, no region id


def test_an_initializer_with_a_variable_address_is_unsupported_at_its_line():
    extra = ".global .align 4 .u32 data[2];\n.global .align 8 .u64 ptrs[1] = {data};\n"
    text = _kernel("", "mov.u64 %rd1, sq;", extra)
    with pytest.raises(Unsupported) as err:
        lower(parse_text(text, "k.ptx"))
    assert "`data`" in err.value.message and err.value.span is not None
    assert err.value.span.line == text.splitlines().index(".global .align 8 .u64 ptrs[1] = {data};") + 1


@pytest.mark.parametrize("defs", [
    "mov.u64 %rd1, sq;\n    mov.u64 %rd1, twice;",          # two definitions
    "setp.eq.u32 %p1, %r1, 0;\n    @%p1 mov.u64 %rd1, sq;",   # a guarded one
    "mov.u64 %rd2, sq;\n    mov.u64 %rd1, %rd2;",            # a copy, not a function name
])
def test_only_a_single_unguarded_mov_of_a_name_resolves_statically(defs):
    prog = lower(parse_text(_kernel("mov.u32 %r1, %tid.x;", defs), "k.ptx"))
    assert indirect.MISS_OP in _ops(prog)


def test_a_guarded_indirect_call_branches_around_the_chain():
    text = _kernel("", "mov.u64 %rd2, sq;\n    mov.u64 %rd3, twice;\n    mov.u32 %r1, %tid.x;\n"
                   "    setp.eq.u32 %p1, %r1, 0;\n    selp.b64 %rd1, %rd2, %rd3, %p1;")
    text = text.replace("call (retval0), %rd1", "@%p1 call (retval0), %rd1")
    prog = lower(parse_text(text, "k.ptx"))
    miss = [op.index for op in prog.ops if op.op == indirect.MISS_OP][0]
    first_bra = next(op for op in prog.ops if op.op == "bra")
    assert first_bra.guard is not None and first_bra.operands[0][1] == miss + 1  # skip to after the chain


def test_a_name_redeclared_in_a_nested_scope_is_not_resolved_by_name():
    # the inner %rd1 is another register: its mov says nothing about the outer one the call reads
    defs = "{\n    .reg .b64 %rd1;\n    mov.u64 %rd1, sq;\n    }"
    prog = lower(parse_text(_kernel("", defs), "k.ptx"))
    assert indirect.MISS_OP in _ops(prog)
