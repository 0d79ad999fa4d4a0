"""volta/ir/written.py: which parameters a kernel may store through (reads of the others never race)."""
from __future__ import annotations

from volta.cli import run
from volta.ir.program import lower
from volta.ir.written import written_origins
from volta.ptx.parser import parse_text

HEAD = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_a, .param .u64 k_b, .param .u64 k_t)
{
.reg .b32 %r<8>;
.reg .f32 %f<4>;
.reg .b64 %rd<12>;
ld.param.u64 %rd1, [k_a];
ld.param.u64 %rd2, [k_b];
ld.param.u64 %rd9, [k_t];
cvta.to.global.u64 %rd3, %rd1;
cvta.to.global.u64 %rd4, %rd2;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd3, %rd5;
add.s64 %rd7, %rd4, %rd5;
ld.global.f32 %f1, [%rd6];
"""


def _origins(body: str):
    return written_origins(lower(parse_text(HEAD + body + "ret;\n}\n", "k.ptx")))


def test_a_store_through_b_writes_only_b():
    assert _origins("st.global.f32 [%rd7], %f1;\n") == {"k_b"}


def test_an_index_loaded_from_memory_keeps_the_base():
    body = "ld.global.u32 %r2, [%rd6];\nmul.wide.u32 %rd8, %r2, 4;\nadd.s64 %rd10, %rd4, %rd8;\nst.global.f32 [%rd10], %f1;\n"
    assert _origins(body) == {"k_b"}


def test_a_pointer_loaded_from_memory_is_unknown():
    body = "ld.global.u64 %rd8, [%rd6];\nst.global.f32 [%rd8], %f1;\n"
    assert _origins(body) is None
    body = "ld.global.v2.u32 {%r2, %r3}, [%rd6];\nmov.b64 %rd8, {%r2, %r3};\nst.global.f32 [%rd8], %f1;\n"
    assert _origins(body) is None


def test_atomics_and_a_loop_carried_pointer_are_followed():
    body = ("$L1:\nadd.s64 %rd7, %rd7, 512;\natom.global.add.f32 %f2, [%rd7], %f1;\nsetp.lt.u32 %p1, %r1, 3;\n"
            "@%p1 bra $L1;\n")
    head = HEAD.replace(".reg .b32 %r<8>;", ".reg .b32 %r<8>;\n.reg .pred %p<2>;")
    assert written_origins(lower(parse_text(head + body + "ret;\n}\n", "k.ptx"))) == {"k_b"}


def _races(ptx, body, a_count, capsys):
    ptx.write_text(HEAD + body + "ret;\n}\n")
    rc = run(["races", str(ptx), "--grid", "1", "--block", "64", "--buffer", f"a=f32[{a_count}]",
              "--buffer", "b=f32[64]", "--buffer", "t=f32[1]", "--args", "a,b,t"])
    return rc, capsys.readouterr().out


def test_races_still_found_on_written_buffers_and_none_on_read_only_ones(tmp_path, capsys):
    """Reading a[i+1] while writing a[i] races (a is written); reading a when only b is written is CLEAN
    (the shadow skips a's reads)."""
    rc, out = _races(tmp_path / "k.ptx", "ld.global.f32 %f2, [%rd6+4];\nst.global.f32 [%rd6], %f2;\n", 65, capsys)
    assert rc == 1 and "RACE" in out and "`a`" in out, out
    rc, out = _races(tmp_path / "k.ptx", "st.global.f32 [%rd7], %f1;\n", 64, capsys)
    assert rc == 0 and "CLEAN" in out, out
