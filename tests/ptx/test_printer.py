"""Printer properties: generated instructions and operands survive print → parse unchanged."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from volta.ptx import ast
from volta.ptx.ast import without_positions
from volta.ptx.parser import parse_text
from volta.ptx.printer import print_instruction, print_module

HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"

regs = st.sampled_from(["%r1", "%r12", "%rd3", "%f0", "%p1", "%tid.x", "%ctaid.y", "%laneid", "%SP"]).map(ast.Reg)
ints = st.integers(min_value=-(2**63), max_value=2**64 - 1).map(ast.Imm)
hexf = st.integers(min_value=0, max_value=2**32 - 1).map(lambda b: ast.FloatImm(f"0f{b:08X}", 32, b))
hexd = st.integers(min_value=0, max_value=2**64 - 1).map(lambda b: ast.FloatImm(f"0d{b:016X}", 64, b))
decf = st.sampled_from(["1.5", "0.0", "-2.25", "1e10", "3.0e-5"]).map(lambda t: ast.FloatImm(t, 64, None))
syms = st.sampled_from(["smem", "$L__BB0_3", "_Z3fooi", "k_param_0", "param0", "retval0"]).map(ast.Sym)
scalars = st.one_of(regs, ints, hexf, hexd, decf, syms)
addresses = st.builds(ast.Address, st.one_of(regs, syms), st.integers(min_value=-4096, max_value=4096))
tensor = st.builds(lambda b, c: ast.Address(b, 0, ast.Vector(tuple(c))), regs, st.lists(regs, min_size=1, max_size=5))
vectors = st.lists(st.one_of(regs, ints, hexf), min_size=1, max_size=64).map(lambda e: ast.Vector(tuple(e)))
pairs = st.builds(ast.Pair, st.one_of(regs, st.just(ast.Sink())), regs)
operands = st.one_of(scalars, addresses, tensor, vectors, pairs, regs.map(ast.NotReg), st.just(ast.Sink()),
                     st.lists(st.one_of(regs, syms), max_size=3).map(lambda i: ast.ParenList(tuple(i))))
opcodes = st.sampled_from(["add.s32", "ld.global.nc.v4.f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                           "cp.async.ca.shared.global.L2::128B", "max.NaN.f32", "tex.2d.v4.f32.f32", "ret",
                           "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "call.uni", "weird_op.x.y"])
guards = st.one_of(st.none(), st.builds(ast.Guard, st.sampled_from(["%p1", "%p12", "p"]), st.booleans()))
instructions = st.builds(lambda o, ops, g: ast.Instruction(o, tuple(ops), g, 0, 0),
                         opcodes, st.lists(operands, max_size=6), guards)


def _reparse(inst: ast.Instruction) -> ast.Instruction:
    text = f"{HEAD}.entry k()\n{{\n\t{print_instruction(inst)}\n}}\n"
    return without_positions(parse_text(text, "t.ptx", use_cache=False).entries[0].body[0])


@settings(max_examples=300, deadline=None)
@given(instructions)
def test_instruction_round_trip(inst):
    assert _reparse(inst) == inst


@settings(max_examples=50, deadline=None)
@given(st.lists(instructions, min_size=1, max_size=20))
def test_module_round_trip(insts):
    body = tuple(insts) + (ast.Block((insts[0], ast.Label("L", 0, 0))),)
    module = ast.Module("t.ptx", "8.0", ("sm_90a",), 64,
                        (ast.Function("entry", "k", (".visible",), (), (), (".maxntid 128, 1, 1",), body, 0, 0),))
    again = parse_text(print_module(module), "t.ptx", use_cache=False)
    assert without_positions(again) == module
