"""Uninitialized values follow every path to an output (issue 8 §1): vector and sub-word shared
accesses, shuffles, warp reductions, atomics on a never-zeroed accumulator, cp.async that leaves
slots unwritten, thread-local arrays. `volta races` reports each; `volta check` never proves an
`*_undef` kernel equivalent to its initialized `*_ok` twin (both agree over the reals once the
undefined memory reads as zero, which is exactly how the false EQUIVALENT happened).
PTX: tests/exec/data/taint/taint.sm80.ptx (nvcc 13 from taint.cu, regenerate.sh).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.exec import findings as F
from volta.launch.spec import from_options, pair_from_options
from volta.session.races import CLEAN, FINDINGS, analyze

PTX = Path(__file__).parent / "data" / "taint" / "taint.sm80.ptx"
# kernel stem -> (buffers, args)
KERNELS = {
    "vec4": (["x=f32[128]:in", "out=f32[64]:out"], "x,out"),
    "bytes": (["x=u8[64]:in", "out=s32[64]:out"], "x,out"),
    "shuffle": (["x=f32[64]:in", "out=f32[64]:out"], "x,out"),
    "atomic": (["x=s32[64]:in", "out=s32[2]:out"], "x,out"),
    "redux": (["x=s32[64]:in", "out=s32[64]:out"], "x,out"),
    "cpasync": (["x=f32[64]:in", "out=f32[64]:out"], "x,out"),
    "local": (["x=f32[64]:in", "out=f32[64]:out"], "x,out,5"),
}
PAIRS = ["vec4", "bytes", "shuffle", "atomic"]


def _races(name, stem):
    buffers, args = KERNELS[stem]
    return analyze(from_options(str(PTX), name, "2", "32", args, buffers))


@pytest.mark.parametrize("stem", sorted(KERNELS))
def test_undefined_value_reaches_the_output(stem):
    report = _races(f"{stem}_undef", stem)
    assert report.verdict == FINDINGS, (report.verdict, report.error)
    assert F.UNINITIALIZED in {f.kind for f in report.findings}, [f.message for f in report.findings]


@pytest.mark.parametrize("stem", PAIRS)
def test_initialized_twin_is_clean(stem):
    assert _races(f"{stem}_ok", stem).verdict == CLEAN


@pytest.mark.parametrize("stem", PAIRS)
def test_check_never_proves_the_undefined_kernel_equivalent(stem):
    buffers, args = KERNELS[stem]
    spec = pair_from_options(str(PTX), str(PTX), buffers, grid="2", block="32", args=args,
                             ref={"kernel": f"{stem}_ok"}, opt={"kernel": f"{stem}_undef"})
    report = check(spec)
    assert report.verdict != "equivalent"
    if report.verdict == "findings":
        assert F.UNINITIALIZED in {f.kind for f in report.findings["opt"]}


_ROUND_TRIP = """
.version 7.0
.target sm_80
.address_size 64
.visible .entry round_{name}(.param .u64 px, .param .u64 pout)
{{
  .reg .b32 %r<5>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 junk[128];
  .shared .align 4 .b8 tile[128];
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, junk;
  add.s32 %r3, %r3, %r2;
  {second}
  add.f32 %f3, %f1, %f2;
  mov.u32 %r4, tile;
  add.s32 %r4, %r4, %r2;
  st.shared.f32 [%r4], %f3;
  bar.sync 0;
  ld.shared.f32 %f4, [%r4];
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f4;
  ret;
}}
"""


def test_undefined_value_comes_back_from_a_lane_structured_shared_tile(tmp_path):
    """x + (a never-written shared word) stored to a shared tile and read back, where the read takes the
    lane-structured path (one lane polynomial for the warp): the UNDEF taint must come back with it, or the
    kernel is proved equal to its twin that adds 0 (the round trip is where the taint could be dropped)."""
    ptx = tmp_path / "round.ptx"
    ptx.write_text(_ROUND_TRIP.format(name="undef", second="ld.shared.f32 %f2, [%r3];")
                   + _ROUND_TRIP.format(name="ok", second="mov.f32 %f2, 0f00000000;").split(".address_size 64", 1)[1])
    spec = pair_from_options(str(ptx), str(ptx), ["x=f32[32]:in", "out=f32[32]:out"], grid="1", block="32",
                             args="x,out", ref={"kernel": "round_ok"}, opt={"kernel": "round_undef"})
    report = check(spec)
    assert report.verdict == "findings", report.verdict
    assert F.UNINITIALIZED in {f.kind for f in report.findings["opt"]}
    twin = pair_from_options(str(ptx), str(ptx), ["x=f32[32]:in", "out=f32[32]:out"], grid="1", block="32",
                             args="x,out", ref={"kernel": "round_ok"}, opt={"kernel": "round_ok"})
    assert check(twin).verdict == "equivalent"
