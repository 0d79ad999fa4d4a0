"""Atomics over the reals (volta/exec/handlers/atomics_real.py): an address only updated by atom/red add, min or max
ends with its initial value combined with every contribution, in any order; what the order decides (the returned old
value, exch, bitwise atomics of data, plain reads before the end) is refused or reported, never decided for one
schedule. Kernels: data/atomics_real/atomics.cu."""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.cli import run

PTX = str(Path(__file__).parent / "data" / "atomics_real" / "atomics.ptx")
FLOAT = ["--buffer", "a=f32[256]:in", "--buffer", "b=f32[256]:in", "--buffer", "out=f32[4]:out",
         "--args", "a,b,out,256"]
INT = ["--buffer", "a=s32[256]:in", "--buffer", "out=s32[2]:out", "--args", "a,out,256"]


def _check(ref, opt, buffers, capsys, opt_grid="4", opt_block="64", ref_grid="1", ref_block="1"):
    rc = run(["check", PTX, PTX, "--ref-kernel", ref, "--opt-kernel", opt, "--ref-grid", ref_grid,
              "--ref-block", ref_block, "--opt-grid", opt_grid, "--opt-block", opt_block, *buffers])
    return rc, capsys.readouterr().out


@pytest.mark.parametrize("opt", ["dot_shared_atomic", "dot_warp_red"])
def test_atomic_sums_equal_the_sequential_dot_product(opt, capsys):
    rc, out = _check("dot_ref", opt, FLOAT, capsys)
    assert rc == 0, out
    assert "EQUIVALENT" in out and "NOT" not in out


def test_a_missing_block_is_not_equivalent_with_a_replayed_witness(capsys):
    rc, out = _check("dot_ref", "dot_shared_atomic", FLOAT, capsys, opt_grid="3")
    assert rc == 1, out
    assert "NOT EQUIVALENT: out[0] differs" in out and "exact rational arithmetic" in out


@pytest.mark.parametrize("opt", ["dot_shared_nosync", "dot_read_back"])
def test_a_plain_read_before_every_update_is_a_race(opt, capsys):
    rc, out = _check("dot_ref", opt, FLOAT, capsys)
    assert rc == 1, out
    assert out.startswith("RACE") and "EQUIVALENT" not in out


@pytest.mark.parametrize("opt, why", [
    ("dot_uses_old", "returns the value before this thread's update, and the kernel uses it"),
    ("exch_atomic", "the final value of an atomic exch depends on the order"),
])
def test_order_dependent_atomics_are_unsupported(opt, why, capsys):
    rc, out = _check("dot_ref", opt, FLOAT, capsys)
    assert rc == 3, out
    assert "UNSUPPORTED" in out and why in out and "atomics.ptx:" in out


def test_bitwise_atomics_of_data_are_unsupported(capsys):
    rc, out = _check("max_ref", "or_atomic", INT, capsys)
    assert rc == 3 and "bitwise atomics have no real-number meaning" in out


def test_atomic_max_into_a_zeroed_output_is_max_with_zero(capsys):
    """The sentinel bug: an INT_MIN-seeded max vs atomicMax into a zeroed output differ for negative data."""
    rc, out = _check("max_ref", "max_atomic", INT, capsys)
    assert rc == 1 and "NOT EQUIVALENT: out[0] differs" in out and "opt = 0" in out
    rc, out = _check("max_ref_from_zero", "max_atomic", INT, capsys)
    assert rc == 0, out


def test_unsigned_min_in_any_block_split(capsys):
    u32 = ["--buffer", "a=u32[256]:in", "--buffer", "out=u32[2]:out", "--args", "a,out,256"]
    rc, out = _check("min_atomic_u32", "min_atomic_u32", u32, capsys, ref_block="256", opt_grid="8",
                     opt_block="32")
    assert rc == 0, out


def test_atomics_into_an_inout_buffer_start_from_its_input(capsys):
    gemv = ["--buffer", "A=f32[1024]:in", "--buffer", "x=f32[32]:in", "--buffer", "y=f32[32]:inout",
            "--args", "A,x,y,32"]
    rc, out = _check("gemv_acc_ref", "gemv_acc_atomic", gemv, capsys, ref_block="32", opt_grid="32x4",
                     opt_block="8")
    assert rc == 0, out
    rc, out = _check("gemv_acc_ref", "gemv_acc_atomic", gemv, capsys, ref_block="32", opt_grid="32x3",
                     opt_block="8")
    assert rc == 1 and "NOT EQUIVALENT" in out


def test_a_concrete_counter_beside_the_data_keeps_its_bits(capsys):
    rc, out = _check("count_ref", "count_atomic", FLOAT, capsys)
    assert rc == 0, out


@pytest.mark.parametrize("opt", ["add_max_mixed", "add_max_mixed_counter"])
def test_two_atomic_kinds_on_one_address_are_unsupported(opt, capsys):
    """add and max do not commute with each other: the final value depends on the order (data or counter)."""
    rc, out = _check("max_ref", opt, INT, capsys)
    assert rc == 3, out
    assert "mixed atomic kinds do not commute" in out and "atomics.ptx:" in out


@pytest.mark.parametrize("opt", ["positive_sum_atomic", "positive_sum_shared_atomic"])
def test_atomics_under_a_data_condition_are_conditional_updates(opt, capsys):
    """`if (a[i] > 0) atomicAdd(out, a[i]*b[i])` (global, or shared then global) equals the sequential
    `if (a[i] > 0) s += a[i]*b[i]`: s + (c ? p : 0) either way (normal.py rule select-common)."""
    rc, out = _check("positive_sum_ref", opt, FLOAT, capsys)
    assert rc == 0, out
    assert "EQUIVALENT" in out and "NOT" not in out


def test_a_wrong_condition_on_a_conditional_atomic_is_not_equivalent(capsys):
    rc, out = _check("positive_sum_ref", "positive_sum_wrong_cond", FLOAT, capsys)
    assert rc == 1, out
    assert "NOT EQUIVALENT: out[0] differs" in out


@pytest.mark.slow
def test_integer_buffers_get_integer_witnesses(capsys):
    """`a > 0` (ref) and `!(a < 1)` (nvcc's form in opt) agree on integers and differ on reals in (0, 1):
    a witness with a[0] = 1/2 is not an input of an s32 buffer, so this is never NOT EQUIVALENT."""
    rc, out = _check("positive_count_ref", "positive_count_atomic", INT, capsys)
    assert rc in (0, 3), out   # EQUIVALENT, or UNKNOWN (z3 on 256 integer conditions)
    assert "NOT EQUIVALENT" not in out


@pytest.mark.parametrize("opt", ["positive_sum_pred", "positive_sum_pred_atom"])
def test_an_atomic_predicated_on_data_is_a_conditional_update(opt, capsys):
    ptx = str(Path(__file__).parent / "data" / "atomics_real" / "predicated.ptx")
    rc = run(["check", ptx, ptx, "--ref-kernel", "positive_sum_ref", "--opt-kernel", opt, "--ref-grid", "1",
              "--ref-block", "1", "--opt-grid", "4", "--opt-block", "64", *FLOAT])
    out = capsys.readouterr().out
    assert rc == 0 and "EQUIVALENT" in out, out


def test_a_wrapping_counter_with_one_bound_is_order_free(capsys):
    """atomicInc(&c, 99) by 256 threads ends at 256 mod 100 in every order (the same step n times)."""
    rc, out = _check("count_inc_ref", "count_inc_atomic", FLOAT, capsys)
    assert rc == 0 and "EQUIVALENT" in out, out
    rc, out = _check("count_inc_ref", "count_inc_atomic", FLOAT, capsys, opt_grid="3")
    assert rc == 1 and "NOT EQUIVALENT" in out, out


def test_a_wrapping_counter_with_per_thread_bounds_is_unsupported(capsys):
    rc, out = _check("count_inc_ref", "count_inc_bounds", FLOAT, capsys)
    assert rc == 3 and "with different bounds" in out, out
