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
