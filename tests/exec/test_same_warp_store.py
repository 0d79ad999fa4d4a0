"""Threads of one warp storing to one address in one instruction (issue 8 §2).

Triton ends every reduction's butterfly with an unpredicated `st.shared` by all 32 lanes of a warp to
one slot. CUDA defines it (one write lands), so it is clean when the values are provably equal, a
NONDETERMINISTIC WRITE when they can differ, and still a RACE between lanes of different warps.
The PTX is real Triton 3.x output (examples/triton/regenerate.py); variants are one-line edits of it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.exec import findings as F
from volta.launch.spec import from_options, pair_from_options
from volta.session.races import CLEAN, FINDINGS, analyze

TRITON = Path(__file__).resolve().parents[2] / "examples" / "triton"
ROWSUM = TRITON / "rowsum.b256.w4.sm80.ptx"
SOFTMAX = TRITON / "softmax.b128.w4.sm80.ptx"
STORE = "st.shared.b32 \t[%r25], %r21;"   # each warp's butterfly result, stored by all 32 lanes


def _spec(ptx, rows=4, cols=200):
    return from_options(str(ptx), None, str(rows), "128", f"out,x,{cols},scratch,profile",
                        [f"x=f32[{rows * cols}]", f"out=f32[{rows * cols}]", "scratch=u8[16]", "profile=u8[16]"],
                        shared_dynamic=16)


def _variant(tmp_path, old, new, name="variant.ptx"):
    text = ROWSUM.read_text()
    assert text.count(old) == 1, old
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("ptx", [ROWSUM, SOFTMAX], ids=lambda p: p.name)
def test_triton_reductions_are_clean(ptx):
    report = analyze(_spec(ptx))
    assert report.verdict == CLEAN, [f.message for f in report.findings] or report.error


def test_lanes_storing_different_data_is_a_nondeterministic_write(tmp_path):
    # the partial sum before the butterfly: every lane holds a different value
    path = _variant(tmp_path, STORE, "st.shared.b32 \t[%r25], %r11;")
    report = analyze(_spec(path))
    assert report.verdict == FINDINGS
    kinds = {f.kind for f in report.findings}
    assert kinds == {F.NONDETERMINISTIC}, [f.message for f in report.findings]
    f = report.findings[0]
    store_line = next(i for i, line in enumerate(path.read_text().splitlines(), 1) if "[%r25], %r11" in line)
    assert "lanes 0 and" in f.message and "`global_smem`[0]" in f.message and f.sites[0].line == store_line
    assert f.threads[0].block == f.threads[1].block and f.threads[0].thread != f.threads[1].thread


def test_lanes_storing_different_concrete_values(tmp_path):
    path = _variant(tmp_path, STORE, "st.shared.b32 \t[%r25], %r7;")  # the thread index
    report = analyze(_spec(path))
    assert [f.kind for f in report.findings] == [F.NONDETERMINISTIC]


def test_same_address_from_different_warps_is_still_a_race(tmp_path):
    # every warp now writes slot 0 (the warp offset dropped from the address)
    path = _variant(tmp_path, "add.s32 \t%r25, %r24, %r23;", "mov.b32 \t%r25, %r24;")
    report = analyze(_spec(path))
    assert F.RACE in {f.kind for f in report.findings}, [f.message for f in report.findings]


def test_triton_softmax_equivalent_to_cuda_naive_softmax():
    ref = TRITON.parent / "eq_softmax_naive_online" / "ref.sm80.ptx"
    spec = pair_from_options(str(ref), str(SOFTMAX), ["x=f32[512]:in", "y=f32[512]:out", "scratch=u8[16]:in",
                                                      "profile=u8[16]:in"],
                             ref={"grid": "4", "block": "32", "args": "x,y,4,128"},
                             opt={"grid": "4", "block": "128", "args": "y,x,128,scratch,profile"},
                             shared_dynamic=16)
    report = check(spec)
    assert report.verdict == "equivalent", (report.verdict, report.unsupported, report.unknown)


def test_check_refuses_equivalence_when_lanes_store_different_values(tmp_path):
    bad = _variant(tmp_path, STORE, "st.shared.b32 \t[%r25], %r11;")
    buffers = ["x=f32[800]:in", "out=f32[4]:out", "scratch=u8[16]:in", "profile=u8[16]:in"]
    args = "out,x,200,scratch,profile"
    spec = pair_from_options(str(ROWSUM), str(bad), buffers, grid="4", block="128", args=args, shared_dynamic=16)
    report = check(spec)
    assert report.verdict == "findings"
    assert [f.kind for f in report.findings["opt"]] == [F.NONDETERMINISTIC]
