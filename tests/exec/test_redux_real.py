"""redux.sync over the reals (volta/exec/handlers/redux_real.py): add is the sum of the member lanes' values, min/max
the min/max over them (also the sm_100a .f32 forms, .abs included); bitwise reductions of data, integer reductions of
a float's bits, an unsigned max of signed data and a lane outside its own membermask are UNSUPPORTED; half-warps
with their own masks reduce separately (the bit handler too). Kernels: data/redux_real/redux.cu (sm_80), redux_f32.cu (sm_100a)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from volta.cli import run
from volta.exec.handlers.dispatch import _reduce_bits

DATA = Path(__file__).parent / "data" / "redux_real"
PTX = str(DATA / "redux.ptx")
F32 = str(DATA / "redux_f32.ptx")
SUM = ["--buffer", "a=s32[256]:in", "--buffer", "out=s32[8]:out", "--args", "a,out,256"]
MINMAX = ["--buffer", "a=s32[256]:in", "--buffer", "out=s32[16]:out", "--args", "a,out,256"]


def _check(ref, opt, buffers, capsys, ptx=PTX):
    rc = run(["check", ptx, ptx, "--ref-kernel", ref, "--opt-kernel", opt, "--ref-grid", "1", "--ref-block", "1",
              "--opt-grid", "2", "--opt-block", "128", *buffers])
    return rc, capsys.readouterr().out


@pytest.mark.parametrize("opt", ["sum_redux", "sum_redux_first_lane"])
def test_warp_sums_equal_the_sequential_sums(opt, capsys):
    rc, out = _check("sum_ref", opt, SUM, capsys)
    assert rc == 0, out
    assert "EQUIVALENT" in out and "NOT" not in out


def test_warp_min_and_max_equal_the_sequential_ones(capsys):
    rc, out = _check("minmax_ref", "minmax_redux", MINMAX, capsys)
    assert rc == 0 and "EQUIVALENT" in out and "NOT" not in out, out


def test_unsigned_min(capsys):
    u32 = ["--buffer", "a=u32[256]:in", "--buffer", "out=u32[8]:out", "--args", "a,out,256"]
    rc, out = _check("umin_ref", "umin_redux", u32, capsys)
    assert rc == 0, out


def test_half_warp_masks_reduce_separately_not_equivalent(capsys):
    rc, out = _check("sum_ref", "sum_redux_half_mask", SUM, capsys)
    assert rc == 1, out
    assert "NOT EQUIVALENT: out[0] differs: ref = 32, opt = 16" in out and "exact rational arithmetic" in out


def test_max_where_min_was_meant_is_not_equivalent(capsys):
    rc, out = _check("minmax_ref", "minmax_redux_swapped", MINMAX, capsys)
    assert rc == 1 and "NOT EQUIVALENT: out[0] differs" in out, out


@pytest.mark.parametrize("opt, why", [
    ("or_redux", "`redux.sync.or.b32` on tensor data: a bitwise reduction (or) has no real-number meaning"),
    ("and_redux", "`redux.sync.and.b32` on tensor data: a bitwise reduction (and) has no real-number meaning"),
    ("sum_redux_outside_mask", "lane 31 runs it outside its own membermask 0x7fffffff"),
    ("umax_of_signed", "`redux.sync.max.u32` compares u32 bits, and the bounds of a[0] do not prove it lies in "
                       "the u32 range"),
])
def test_unsupported_reductions_name_the_instruction(opt, why, capsys):
    rc, out = _check("sum_ref", opt, SUM, capsys)
    assert rc == 3, out
    assert "UNSUPPORTED" in out and why in out and "redux.ptx:" in out


def test_an_integer_max_of_float_bits_is_unsupported(capsys):
    f = ["--buffer", "a=f32[256]:in", "--buffer", "out=f32[8]:out", "--args", "a,out,256"]
    rc, out = _check("fmax_bits_ref", "fmax_bits_redux", f, capsys)
    assert rc == 3 and "`redux.sync.max.s32` does integer arithmetic on the bits of a float" in out, out


def test_f32_max_abs_and_min(capsys):
    f = ["--buffer", "x=f32[256]:in", "--buffer", "out=f32[16]:out", "--args", "x,out,256"]
    rc, out = _check("fminmax_ref", "fminmax_redux", f, capsys, ptx=F32)
    assert rc == 0 and "EQUIVALENT" in out and "NOT" not in out, out
    rc, out = _check("fminmax_ref", "fminmax_redux_noabs", f, capsys, ptx=F32)
    assert rc == 1 and "NOT EQUIVALENT: out[0] differs" in out, out


def test_the_bit_handler_reduces_half_warps_separately(tmp_path, capsys):
    outs = {}
    for k, grid, block in (("sum_ref", "1", "1"), ("sum_redux_half_mask", "2", "128")):
        f = tmp_path / f"{k}.npz"
        assert run(["run", PTX, "--kernel", k, "--grid", grid, "--block", block, *SUM, "--no-races",
                    "--out", str(f)]) == 0
        outs[k] = np.load(f)
    capsys.readouterr()
    a = outs["sum_ref"]["a"].astype(np.int64).reshape(8, 32)
    assert (outs["sum_ref"]["out"] == a.sum(1)).all()
    assert (outs["sum_redux_half_mask"]["out"] == a[:, :16].sum(1)).all()


class _D:
    def __init__(self, *mods):
        self.mods = mods

    def has(self, *m):
        return any(x in self.mods for x in m)


class _Op:
    def __init__(self, *mods):
        self.d = _D(*mods)


def _bits(*floats):
    return np.array(np.array(floats, np.float32).view(np.uint32), np.uint64)


def test_f32_bits_signed_zero_and_nan():
    nan = 0x7FC00000
    assert _reduce_bits(_Op(".max"), ".f32", _bits(-0.0, 0.0)) == 0x00000000        # +0 > -0
    assert _reduce_bits(_Op(".min"), ".f32", _bits(0.0, -0.0)) == 0x80000000
    assert _reduce_bits(_Op(".max", ".abs"), ".f32", _bits(-3.0, 2.0)) == int(_bits(3.0)[0])
    with_nan = np.append(_bits(1.0, -5.0), np.uint64(nan))
    assert _reduce_bits(_Op(".min"), ".f32", with_nan) == int(_bits(-5.0)[0])       # NaN ignored
    assert _reduce_bits(_Op(".min", ".NaN"), ".f32", with_nan) == 0x7FFFFFFF        # canonical NaN
    assert _reduce_bits(_Op(".max"), ".f32", np.array([nan, nan], np.uint64)) == 0x7FFFFFFF
