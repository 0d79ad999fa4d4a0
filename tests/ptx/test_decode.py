"""Decoder completeness: one line per tier-1/tier-2 form of ptx.md, tier-3 forms parse and decode,
and illegal opcodes or modifier combinations are errors naming file:line:col and the token."""
from __future__ import annotations

import pytest

from volta.errors import PtxSyntaxError
from volta.ptx.decode import decode, decode_module
from volta.ptx.parser import parse_text

DECLS = """
.reg .pred %p<4>; .reg .b16 %rs<8>; .reg .b32 %r<40>; .reg .f32 %f<70>; .reg .b64 %rd<8>; .reg .f64 %fd<4>;
"""


def decode_line(line: str, target: str = "sm_90a"):
    text = (f".version 8.0\n.target {target}\n.address_size 64\n.shared .b8 smem[64];\n.global .b8 gbl[64];\n"
            f".func (.param .b32 r) f(.param .b32 a)\n{{\nret;\n}}\n"
            f".entry k(.param .u64 k_param_0)\n{{\n{DECLS}\n{line}\n}}\n")
    module = parse_text(text, "t.ptx", use_cache=False)
    decoded = decode_module(module)["k"]
    return decoded[-1]


# (line, op, family, selected fields)
TIER1 = [
    ("mov.u32 %r1, %tid.x;", "mov", {"type": ".u32"}),
    ("mov.b32 %r1, {%rs1, %rs2};", "mov", {}),
    ("mov.b32 {%rs1, %rs2}, %r1;", "mov", {}),
    ("mov.b64 %rd1, {%r1, %r2};", "mov", {}),
    ("ld.param.u64 %rd1, [k_param_0];", "ld", {"space": ".param"}),
    ("cvta.to.global.u64 %rd1, %rd2;", "cvta", {"space": ".global"}),
    ("add.s32 %r1, %r2, %r3;", "add", {"type": ".s32"}),
    ("add.sat.s32 %r1, %r2, %r3;", "add", {}),
    ("add.cc.u32 %r1, %r2, %r3;", "add", {}),
    ("addc.u32 %r1, %r2, %r3;", "addc", {}),
    ("sub.s64 %rd1, %rd2, %rd3;", "sub", {}),
    ("mul.lo.s32 %r1, %r2, %r3;", "mul", {}),
    ("mul.wide.s32 %rd1, %r2, %r3;", "mul", {}),
    ("mul.hi.u32 %r1, %r2, %r3;", "mul", {}),
    ("mad.lo.s32 %r1, %r2, %r3, %r4;", "mad", {}),
    ("mad.wide.u32 %rd1, %r2, %r3, %rd4;", "mad", {}),
    ("div.s32 %r1, %r2, %r3;", "div", {}),
    ("div.u32 %r1, %r2, %r3;", "div", {}),
    ("rem.s32 %r1, %r2, %r3;", "rem", {}),
    ("min.s32 %r1, %r2, %r3;", "min", {}),
    ("max.u32 %r1, %r2, %r3;", "max", {}),
    ("abs.s32 %r1, %r2;", "abs", {}),
    ("neg.s32 %r1, %r2;", "neg", {}),
    ("shl.b32 %r1, %r2, 3;", "shl", {}),
    ("shr.s32 %r1, %r2, %r3;", "shr", {}),
    ("shr.u64 %rd1, %rd2, 3;", "shr", {}),
    ("and.b32 %r1, %r2, %r3;", "and", {}),
    ("or.pred %p1, %p2, %p3;", "or", {}),
    ("xor.b32 %r1, %r2, 1;", "xor", {}),
    ("not.b32 %r1, %r2;", "not", {}),
    ("cnot.b32 %r1, %r2;", "cnot", {}),
    ("popc.b32 %r1, %r2;", "popc", {}),
    ("clz.b64 %r1, %rd2;", "clz", {}),
    ("brev.b32 %r1, %r2;", "brev", {}),
    ("bfe.u32 %r1, %r2, 8, 4;", "bfe", {}),
    ("bfi.b32 %r1, %r2, %r3, 8, 4;", "bfi", {}),
    ("bfind.u32 %r1, %r2;", "bfind", {}),
    ("setp.lt.s32 %p1, %r1, %r2;", "setp", {"cmp": ".lt"}),
    ("setp.hs.u32 %p1, %r1, %r2;", "setp", {"cmp": ".hs"}),
    ("setp.gtu.f32 %p1, %f1, %f2;", "setp", {"cmp": ".gtu"}),
    ("setp.neu.f32 %p1, %f1, %f2;", "setp", {"cmp": ".neu"}),
    ("setp.nan.f32 %p1, %f1, %f2;", "setp", {"cmp": ".nan"}),
    ("setp.eq.and.s32 %p1|%p2, %r1, %r2, %p3;", "setp", {"boolop": ".and"}),
    ("selp.b32 %r1, %r2, %r3, %p1;", "selp", {}),
    ("cvt.rn.f32.s32 %f1, %r1;", "cvt", {"rounding": ".rn", "types": (".f32", ".s32")}),
    ("cvt.rzi.s32.f32 %r1, %f1;", "cvt", {"rounding": ".rzi"}),
    ("cvt.rni.f32.f32 %f1, %f2;", "cvt", {}),
    ("cvt.s64.s32 %rd1, %r1;", "cvt", {}),
    ("cvt.u32.u64 %r1, %rd1;", "cvt", {}),
    ("cvt.f64.f32 %fd1, %f1;", "cvt", {}),
    ("cvt.rn.f32.f64 %f1, %fd1;", "cvt", {}),
    ("cvt.rn.f16.f32 %rs1, %f1;", "cvt", {}),
    ("cvt.f32.f16 %f1, %rs1;", "cvt", {}),
    ("cvt.rn.bf16.f32 %rs1, %f1;", "cvt", {}),
    ("cvt.rn.f16x2.f32 %r1, %f1, %f2;", "cvt", {}),
    ("cvt.rna.tf32.f32 %r1, %f1;", "cvt", {}),
    ("cvt.sat.f32.f32 %f1, %f2;", "cvt", {}),
    ("cvt.rzi.ftz.s32.f32 %r1, %f1;", "cvt", {}),
    ("add.f32 %f1, %f2, %f3;", "add", {}),
    ("add.rn.f32 %f1, %f2, %f3;", "add", {"rounding": ".rn"}),
    ("add.ftz.f32 %f1, %f2, %f3;", "add", {}),
    ("sub.rz.f64 %fd1, %fd2, %fd3;", "sub", {}),
    ("mul.rn.f32 %f1, %f2, %f3;", "mul", {}),
    ("fma.rn.f32 %f1, %f2, %f3, %f4;", "fma", {}),
    ("fma.rm.ftz.f32 %f1, %f2, %f3, %f4;", "fma", {}),
    ("fma.rn.f64 %fd1, %fd2, %fd3, %fd1;", "fma", {}),
    ("div.rn.f32 %f1, %f2, %f3;", "div", {}),
    ("div.approx.f32 %f1, %f2, %f3;", "div", {}),
    ("div.full.f32 %f1, %f2, %f3;", "div", {}),
    ("div.rn.f64 %fd1, %fd2, %fd3;", "div", {}),
    ("rcp.rn.f32 %f1, %f2;", "rcp", {}),
    ("rcp.approx.ftz.f64 %fd1, %fd2;", "rcp", {}),
    ("sqrt.rn.f32 %f1, %f2;", "sqrt", {}),
    ("sqrt.approx.f32 %f1, %f2;", "sqrt", {}),
    ("rsqrt.approx.f32 %f1, %f2;", "rsqrt", {}),
    ("ex2.approx.ftz.f32 %f1, %f2;", "ex2", {}),
    ("lg2.approx.f32 %f1, %f2;", "lg2", {}),
    ("sin.approx.f32 %f1, %f2;", "sin", {}),
    ("cos.approx.ftz.f32 %f1, %f2;", "cos", {}),
    ("tanh.approx.f32 %f1, %f2;", "tanh", {}),
    ("abs.f32 %f1, %f2;", "abs", {}),
    ("neg.f32 %f1, %f2;", "neg", {}),
    ("min.f32 %f1, %f2, %f3;", "min", {}),
    ("max.NaN.f32 %f1, %f2, %f3;", "max", {}),
    ("copysign.f32 %f1, %f2, %f3;", "copysign", {}),
    ("testp.finite.f32 %p1, %f1;", "testp", {}),
    ("bra $L__BB0_1;", "bra", {}),
    ("bra.uni $L__BB0_1;", "bra", {}),
    ("@%p1 bra $L__BB0_1;", "bra", {}),
    ("ret;", "ret", {}),
    ("exit;", "exit", {}),
    ("trap;", "trap", {}),
    ("{\n.param .b32 param0;\n.param .b32 retval0;\ncall.uni (retval0), f, (param0);\n}", "call", {}),
    ("ld.global.f32 %f1, [%rd1];", "ld", {"space": ".global"}),
    ("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];", "ld", {"vec": 4}),
    ("ld.shared.v2.u32 {%r1, %r2}, [%r3];", "ld", {"vec": 2}),
    ("ld.local.u32 %r1, [%rd1];", "ld", {}),
    ("ld.const.f32 %f1, [%rd1];", "ld", {}),
    ("ld.volatile.shared.f32 %f1, [%r1];", "ld", {"order": ".volatile"}),
    ("ld.acquire.gpu.global.u32 %r1, [%rd1];", "ld", {"order": ".acquire", "scope": ".gpu"}),
    ("ld.f32 %f1, [%rd1];", "ld", {"space": None}),
    ("st.global.f32 [%rd1], %f1;", "st", {}),
    ("st.shared.v4.u32 [%r1], {%r2, %r3, %r4, %r5};", "st", {}),
    ("st.release.sys.global.u32 [%rd1], %r1;", "st", {}),
    ("st.global.cs.f32 [%rd1], %f1;", "st", {}),
    ("bar.sync 0;", "bar", {}),
    ("barrier.sync 0;", "barrier", {}),
    ("bar.warp.sync -1;", "bar", {}),
    ("bar.red.popc.u32 %r1, 0, %p1;", "bar", {}),
    ("bar.red.and.pred %p1, 0, %p2;", "bar", {}),
    ("membar.gl;", "membar", {}),
    ("membar.cta;", "membar", {}),
    ("fence.acq_rel.gpu;", "fence", {}),
    ("fence.sc.sys;", "fence", {}),
    ("atom.global.add.f32 %f1, [%rd1], %f2;", "atom", {}),
    ("atom.global.gpu.acq_rel.add.f32 %f1, [%rd1], %f2;", "atom", {"order": ".acq_rel"}),
    ("atom.add.release.gpu.u32 %r1, [%rd1], 1;", "atom", {}),
    ("atom.shared.cas.b32 %r1, [%r2], %r3, %r4;", "atom", {}),
    ("atom.global.exch.b32 %r1, [%rd1], %r2;", "atom", {}),
    ("atom.global.max.s32 %r1, [%rd1], %r2;", "atom", {}),
    ("red.global.add.f32 [%rd1], %f1;", "red", {}),
    ("red.shared.add.u32 [%r1], 1;", "red", {}),
    ("shfl.sync.bfly.b32 %r1, %r2, 16, 31, -1;", "shfl", {}),
    ("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;", "shfl", {}),
    ("shfl.sync.idx.b32 %r1, %r2, 0, 31, -1;", "shfl", {}),
    ("shfl.sync.up.b32 %r1, %r2, 1, 0, -1;", "shfl", {}),
    ("nanosleep.u32 100;", "nanosleep", {}),
]
TIER2 = [
    ("vote.sync.ballot.b32 %r1, %p1, -1;", "vote", {}),
    ("vote.sync.all.pred %p1, %p2, -1;", "vote", {}),
    ("match.any.sync.b32 %r1, %r2, -1;", "match", {}),
    ("redux.sync.add.s32 %r1, %r2, -1;", "redux", {}),
    ("activemask.b32 %r1;", "activemask", {}),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
     "{%r5, %r6}, {%f5, %f6, %f7, %f8};", "mma", {"shape": ".m16n8k16"}),
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
     "{%r5, %r6}, {%f5, %f6, %f7, %f8};", "mma", {}),
    ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
     "{%r5, %r6}, {%f5, %f6, %f7, %f8};", "mma", {"shape": ".m16n8k8"}),
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, "
     "{%r5, %r6}, {%r7, %r8, %r9, %r10};", "mma", {"shape": ".m16n8k32"}),
    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
     "{%r5, %r6}, {%f5, %f6, %f7, %f8};", "mma", {}),
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;",
     "wmma", {"shape": ".m16n16k16"}),
    ("wmma.load.b.sync.aligned.col.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%r10], %r9;",
     "wmma", {}),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, "
     "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
     "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};", "wmma", {}),
    ("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r1;",
     "wmma", {}),
    ("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r2];", "ldmatrix", {"shape": ".m8n8"}),
    ("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r2}, [%r3];", "ldmatrix", {}),
    ("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];", "ldmatrix", {}),
    ("cp.async.ca.shared.global [%r1], [%rd1], 4;", "cp", {}),
    ("cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16, %r2;", "cp", {}),
    ("cp.async.commit_group;", "cp", {}),
    ("cp.async.wait_group 0;", "cp", {}),
    ("cp.async.wait_all;", "cp", {}),
    ("add.rn.f16 %rs1, %rs2, %rs3;", "add", {}),
    ("fma.rn.f16x2 %r1, %r2, %r3, %r4;", "fma", {}),
    ("mul.rn.bf16x2 %r1, %r2, %r3;", "mul", {}),
    ("max.f16x2 %r1, %r2, %r3;", "max", {}),
    ("ex2.approx.f16x2 %r1, %r2;", "ex2", {}),
    ("cvt.rn.bf16x2.f32 %r1, %f1, %f2;", "cvt", {}),
    ("prmt.b32 %r1, %r2, %r3, 0x5410;", "prmt", {}),
    ("shf.l.wrap.b32 %r1, %r2, %r3, %r4;", "shf", {}),
    ("shf.r.clamp.b32 %r1, %r2, %r3, 5;", "shf", {}),
    ("dp4a.s32.s32 %r1, %r2, %r3, %r4;", "dp4a", {}),
    ("lop3.b32 %r1, %r2, %r3, %r4, 0xF8;", "lop3", {}),
    ("atom.global.cta.relaxed.add.u32 %r1, [%rd1], 1;", "atom", {"scope": ".cta"}),
    ("red.release.gpu.global.add.u32 [%rd1], 1;", "red", {}),
    ("prefetch.global.L2 [%rd1];", "prefetch", {}),   # .level = .L1 | .L2 (was a parse error)
    ("prefetch.L1 [%rd1];", "prefetch", {}),
    ("prefetch.global.L2::evict_last [%rd1];", "prefetch", {}),
]
TIER3 = [
    "wgmma.fence.sync.aligned;",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 1;",
    "wgmma.commit_group.sync.aligned;",
    "wgmma.wait_group.sync.aligned 0;",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];",
    "mbarrier.init.shared::cta.b64 [%r1], 1;",
    "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 8192;",
    "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;",
    "fence.proxy.async.shared::cta;",
    "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], {%r2, %r3, %r4, %r5};",
    "elect.sync _|%p1, -1;",
    "setmaxnreg.inc.sync.aligned.u32 240;",
    "griddepcontrol.wait;",
    "mov.u32 %r1, %cluster_ctarank;",
    "barrier.cluster.arrive;",
    "mapa.shared::cluster.u32 %r1, %r2, %r3;",
]


def _check(line, op, fields):
    d = decode_line(line)
    assert d.op == op
    for name, value in fields.items():
        assert getattr(d, name) == value, (line, name)


@pytest.mark.parametrize("line, op, fields", TIER1, ids=[t[0].split(" ")[0] for t in TIER1])
def test_tier1_forms_decode(line, op, fields):
    _check(line, op, fields)
    assert decode_line(line).tier == 1 or op in ("prmt",)


@pytest.mark.parametrize("line, op, fields", TIER2, ids=[t[0].split(" ")[0] for t in TIER2])
def test_tier2_forms_decode(line, op, fields):
    _check(line, op, fields)


@pytest.mark.parametrize("line", TIER3, ids=[t.split(" ")[0] for t in TIER3])
def test_tier3_forms_parse_and_decode(line):
    decode_line(line, "sm_90a")


ILLEGAL = [
    ("add.rn.s32 %r1, %r2, %r3;", "`.rn`"),
    ("ld.global.rn.f32 %f1, [%rd1];", "`.rn`"),
    ("setp.s32 %p1, %r1, %r2;", "comparison"),
    ("mma.sync.aligned.m16n8k17.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
     "{%r5, %r6}, {%f5, %f6, %f7, %f8};", "`.m16n8k17`"),
    ("mma.sync.aligned.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r5}, {%f5};", "shape"),
    ("frobnicate.s32 %r1, %r2;", "`frobnicate`"),
    ("add.s33 %r1, %r2, %r3;", "`.s33`"),
    ("mul.lo.f32 %f1, %f2, %f3;", "`.lo`"),
    ("mul.wide.f32 %f1, %f2, %f3;", "`.wide`"),
    ("add.ftz.s32 %r1, %r2, %r3;", "`.ftz`"),
    ("min.NaN.s32 %r1, %r2, %r3;", "`.NaN`"),
    ("div.rn.s32 %r1, %r2, %r3;", "`.rn`"),
    ("sin.approx.s32 %r1, %r2;", "`sin`"),
    ("shl.f32 %f1, %f2, 1;", "`shl`"),
    ("cvt.rn.s32.f32 %r1, %f1;", "`.rn`"),
    ("cvt.rni.f32.s32 %f1, %r1;", "`.rni`"),
    ("cvt.f32 %f1, %r1;", "cvt"),
    ("setp.ltu.s32 %p1, %r1, %r2;", "`.ltu`"),
    ("setp.lo.f32 %p1, %f1, %f2;", "`.lo`"),
    ("setp.eq.lt.s32 %p1, %r1, %r2;", "`.lt`"),
    ("ld.global.shared.f32 %f1, [%rd1];", "`.shared`"),
    ("add %r1, %r2, %r3;", "type"),
    ("add.s32.s64 %r1, %r2, %r3;", "one type"),
    ("add.s32 %r1, %r2;", "operands"),
    ("ldmatrix.sync.aligned.m8n8.shared.b16 {%r1}, [%r2];", ".x1"),
    ("ldmatrix.sync.aligned.m9n9.x1.shared.b16 {%r1}, [%r2];", "`.m9n9`"),
    ("wmma.load.a.sync.aligned.row.m16n16k15.global.f16 {%r1}, [%rd1], %r9;", "`.m16n16k15`"),
    ("bar.sync.rn 0;", "`.rn`"),
]


@pytest.mark.parametrize("line, token", ILLEGAL, ids=[t[0].split(" ")[0] for t in ILLEGAL])
def test_illegal_forms_name_position_and_token(line, token):
    with pytest.raises(PtxSyntaxError) as info:
        decode_line(line)
    message = str(info.value)
    assert message.startswith("t.ptx:15:1:"), message
    assert token in message, message


def test_decode_defaults_to_a_placeholder_file_name():
    from volta.ptx import ast

    with pytest.raises(PtxSyntaxError) as info:
        decode(ast.Instruction("nope.s32", (), None, 3, 4))
    assert info.value.span.line == 3 and info.value.span.col == 4
