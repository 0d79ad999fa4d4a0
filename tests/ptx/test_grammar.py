"""One small hand-written PTX text per construct of ptx.md "Grammar facts that bite"."""
from __future__ import annotations

import pytest

from volta.errors import PtxSyntaxError
from volta.ptx import ast
from volta.ptx.decode import decode_module
from volta.ptx.parser import parse_text

HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"


def kernel(body: str, params: str = "", extra: str = "") -> ast.Module:
    text = f"{HEAD}{extra}\n.visible .entry k({params})\n{{\n{body}\n}}\n"
    module = parse_text(text, "t.ptx", use_cache=False)
    decode_module(module)
    return module


def insts(module: ast.Module) -> list[ast.Instruction]:
    from volta.ptx.decode import iter_instructions

    return list(iter_instructions(module.entries[0].body))


def one(line: str) -> ast.Instruction:
    (inst,) = insts(kernel(line))
    return inst


def test_header_comma_target_and_version_is_not_a_float():
    m = parse_text(".version 9.0\n.target sm_80, debug\n.address_size 64\n", "t.ptx", use_cache=False)
    assert (m.version, m.target, m.address_size) == ("9.0", ("sm_80", "debug"), 64)


def test_performance_directives_and_pragma():
    text = (f"{HEAD}.visible .entry k()\n.maxntid 256, 1, 1\n.reqntid 128\n.minnctapersm 2\n.maxnreg 64\n"
            ".reqnctapercluster 2, 1, 1\n.explicitcluster\n{\n.pragma \"nounroll\";\nret;\n}\n")
    fn = parse_text(text, "t.ptx", use_cache=False).entries[0]
    assert fn.perf == (".maxntid 256, 1, 1", ".reqntid 128", ".minnctapersm 2", ".maxnreg 64",
                       ".reqnctapercluster 2, 1, 1", ".explicitcluster")
    assert fn.body[0] == ast.Pragma('.pragma "nounroll"')
    assert parse_text(HEAD + '.pragma "nounroll";\n', "t.ptx", use_cache=False).items == (ast.Pragma('.pragma "nounroll"'),)


def test_loc_and_file_directives():
    m = kernel(".loc 1 10 3\n.loc 1 12 5, function_name $L__info_string0, inlined_at 1 10 3\nret;",
               extra='.file 1 "/tmp/a.cu", 1700000000, 1234\n.file 2 "/tmp/b.h"\n')
    assert m.files == {1: "/tmp/a.cu", 2: "/tmp/b.h"}
    locs = [s for s in m.entries[0].body if isinstance(s, ast.Loc)]
    assert locs[0] == ast.Loc(1, 10, 3, "")
    assert locs[1].rest == ", function_name $L__info_string0, inlined_at 1 10 3"


def test_dwarf_sections_are_kept_verbatim():
    text = HEAD + "\t.section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95,90,0\n\t}\n\t.section .debug_abbrev\n\t{\n.b8 1\n\t}\n"
    m = parse_text(text, "t.ptx", use_cache=False)
    assert len(m.sections) == 2 and m.sections[0].startswith(".section") and "95,90" in m.sections[0]


def test_register_ranges():
    m = kernel(".reg .b32 %r<39>;\n.reg .pred %p<4>, %q;\nret;")
    decl = m.entries[0].body[0]
    assert decl.names == (ast.DeclName("%r", (), 39),) and decl.type == ".b32"


def test_inline_asm_scopes_redeclare_names_without_percent():
    body = """
    .reg .b32 %r<3>;
    { .reg .pred p; .reg .b32 tmp;
    LAB_WAIT:
    setp.eq.u32 p, %r1, 0;
    @p bra LAB_WAIT;
    add.s32 tmp, %r1, 1;
    }
    {
    .reg .pred p;
    LAB_WAIT:
    setp.eq.u32 p, %r2, 0;
    @!p bra LAB_WAIT;
    elect.sync _|p, -1;
    }
    mov.u32 %r1, tmp;
    """
    m = kernel(body)
    blocks = [s for s in m.entries[0].body if isinstance(s, ast.Block)]
    assert len(blocks) == 2
    first = [s for s in blocks[0].body if isinstance(s, ast.Instruction)]
    assert first[0].operands[0] == ast.Reg("p")
    assert first[2].operands[0] == ast.Reg("tmp")
    assert first[1].guard == ast.Guard("p", False) and first[1].operands == (ast.Sym("LAB_WAIT"),)
    labels = [s.name for b in blocks for s in b.body if isinstance(s, ast.Label)]
    assert labels == ["LAB_WAIT", "LAB_WAIT"]
    second = [s for s in blocks[1].body if isinstance(s, ast.Instruction)]
    assert second[2].operands[0] == ast.Pair(ast.Sink(), ast.Reg("p"))
    # outside its block `tmp` is not a register any more
    assert insts(m)[-1].operands[1] == ast.Sym("tmp")


def test_callprototype_label_is_not_an_opcode_and_indirect_call():
    body = """
    .reg .b64 %rd<3>;
    prototype_5 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b64 _);
    {
    .param .b32 param0;
    .param .b32 retval0;
    call (retval0), %rd1, (param0), prototype_5;
    }
    """
    m = kernel(body)
    proto = m.entries[0].body[1]
    assert isinstance(proto, ast.CallPrototype) and proto.label == "prototype_5" and proto.name == "_"
    assert len(proto.params) == 2 and proto.returns[0].type == ".b32"
    call = insts(m)[0]
    assert call.operands == (ast.ParenList((ast.Sym("retval0"),)), ast.Reg("%rd1"),
                             ast.ParenList((ast.Sym("param0"),)), ast.Sym("prototype_5"))


def test_multi_line_call_uni():
    m = kernel("{\n.param .b32 param0;\n.param .b32 retval0;\ncall.uni (retval0),\n\tf,\n\t(\n\tparam0\n\t);\n}",
               extra=".func (.param .b32 r) f(.param .b32 a)\n{\nret;\n}\n")
    call = insts(m)[0]
    assert call.opcode == "call.uni" and call.operands[1] == ast.Sym("f")


def test_64_element_vector():
    regs = ", ".join(f"%f{i}" for i in range(64))
    inst = one(f".reg .f32 %f<64>;\n.reg .b64 %rd<3>;\n"
               f"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{regs}}}, %rd1, %rd2, 1, 1, 1, 0, 1;")
    assert len(inst.operands[0].elems) == 64


@pytest.mark.parametrize("text, address", [
    ("[%rd1+-512]", ast.Address(ast.Reg("%rd1"), -512)),
    ("[%rd1-512]", ast.Address(ast.Reg("%rd1"), -512)),
    ("[ %rd1 + 0 ]", ast.Address(ast.Reg("%rd1"), 0)),
    ("[smem+8]", ast.Address(ast.Sym("smem"), 8)),
    ("[%rd1+0x10]", ast.Address(ast.Reg("%rd1"), 16)),
    ("[1024]", ast.Address(ast.Imm(1024), 0)),
])
def test_addresses(text, address):
    inst = one(f".reg .f32 %f<2>;\n.reg .b64 %rd<2>;\nld.global.f32 %f1, {text};")
    assert inst.operands[1] == address


def test_tensor_map_address():
    inst = one(".reg .b32 %r<5>;\n.reg .b64 %rd<2>;\n"
               "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[%r1], [%rd1, {%r2, %r3}], [%r4];")
    assert inst.operands[1] == ast.Address(ast.Reg("%rd1"), 0, ast.Vector((ast.Reg("%r2"), ast.Reg("%r3"))))


def test_pair_hex_floats_and_minus_one_mask():
    inst = one(".reg .b32 %r<4>;\n.reg .pred %p<2>;\nshfl.sync.bfly.b32 %r2|%p1, %r3, 16, 31, -1;")
    assert inst.operands[0] == ast.Pair(ast.Reg("%r2"), ast.Reg("%p1"))
    assert inst.operands[-1] == ast.Imm(-1)
    f = one(".reg .f32 %f<2>;\nmov.f32 %f1, 0f3F800000;").operands[1]
    assert f == ast.FloatImm("0f3F800000", 32, 0x3F800000)
    d = one(".reg .f64 %fd<2>;\nmov.f64 %fd1, 0d3FF0000000000000;").operands[1]
    assert d.width == 64 and d.bits == 0x3FF0000000000000


def test_vectors_with_immediates_and_sinks():
    inst = one(".reg .b32 %r<2>;\n.reg .b16 %rs<2>;\nmov.b32 %r1, {0, %rs1};")
    assert inst.operands[1] == ast.Vector((ast.Imm(0), ast.Reg("%rs1")))
    inst = one(".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nmbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 8192;")
    assert inst.operands[0] == ast.Sink()


def test_params_ptr_and_by_value_struct():
    m = kernel("ret;", params=".param .u64 .ptr .global .align 1 a, .param .align 8 .b8 s[40]")
    a, s = m.entries[0].params
    assert a.attrs == (".param", ".u64", ".ptr", ".global", ".align 1") and a.names[0].name == "a"
    assert s.align == 8 and s.names[0].dims == (40,)


def test_shared_declarations_and_initializers():
    extra = (".extern .shared .align 16 .b8 dyn[];\n.shared .align 16 .b8 smem[4096];\n"
             ".global .align 4 .b8 tab[4] = {1, 2, 0xff, 0};\n.global .align 8 .u64 p[2] = {generic(tab), tab+4};\n"
             ".const .align 4 .f32 c[2] = {0f3F800000, 1.5};\n")
    g = kernel("ret;", extra=extra).globals
    assert g[0].attrs[0] == ".extern" and g[0].names[0].dims == (None,)
    assert g[2].init == (1, 2, 255, 0)
    assert g[3].init == ("list", (("generic", "generic", "tab"), ("offset", "tab", 4)))


def test_megabyte_initializer():
    values = ", ".join(str(i % 251) for i in range(250_000))
    m = parse_text(f"{HEAD}.global .align 1 .b8 big[250000] = {{{values}}};\n", "t.ptx", use_cache=False)
    assert len(m.globals[0].init) == 250_000 and m.globals[0].init[250] == 250 % 251


def test_modifiers_with_colons_digits_capitals():
    kernel(".reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n.reg .f32 %f<3>;\n"
           "cp.async.ca.shared.global.L2::128B [%r1], [%rd1], 16;\nmax.NaN.f32 %f1, %f2, %f2;\n"
           "ld.shared::cta.u32 %r1, [%r2];")


def test_lowercase_labels_and_underscore_names():
    m = kernel(".reg .b64 %rd<2>;\ndone:\nmov.u64 %rd1, _Z3fooi;\nbra done;", extra=".global .b8 _Z3fooi[1];\n")
    assert m.entries[0].body[1] == ast.Label("done", 9, 1)


def test_comments_are_ignored():
    kernel("// line comment\n/* block\n comment */ ret; // trailing")


@pytest.mark.parametrize("body, where", [
    ("add.s32 %r1, %r2 %r3;", (7, 18)),
    ("add.s32 %r1, , %r3;", (7, 14)),
    ("ld.global.f32 %f1, [%rd1+x];", (7, 26)),
    ("add.s32 %r1, %r2, 12abc;", (7, 21)),
    ("{ ret;", None),
])
def test_syntax_errors_name_line_and_column(body, where):
    with pytest.raises(PtxSyntaxError) as info:
        kernel(body)
    err = info.value
    assert err.span.file == "t.ptx"
    if where is not None:
        assert (err.span.line, err.span.col) == where, str(err)
    assert "\n" not in str(err)


def test_fast_path_and_general_rule_agree():
    """`/**/` after the opcode forces the general rule; both must build the same instruction."""
    lines = ["add.s32 %r1, %r2, -1;", "@!%p1 bra $L__BB0_1;", "ld.global.f32 %f1, [%rd1+-512];",
             "mov.f32 %f1, 0f3F800000;", "st.shared.u32 [smem+8], %r1;", "mov.u64 %rd1, _;",
             "setp.lt.s32 %p1, %r1, 0x1F;", "mov.f64 %fd1, 1.5e3;", "ld.param.u64 %rd1, [k_param_0];"]
    for line in lines:
        fast = parse_text(f"{HEAD}.entry k()\n{{\n{line}\n}}\n", "t.ptx", use_cache=False).entries[0].body[0]
        opcode_end = line.index(" ", 1 if line[0] != "@" else line.index(" ") + 1)
        slow_line = line[:opcode_end] + " /**/" + line[opcode_end:]
        slow = parse_text(f"{HEAD}.entry k()\n{{\n{slow_line}\n}}\n", "t.ptx", use_cache=False).entries[0].body[0]
        assert fast == slow, line
