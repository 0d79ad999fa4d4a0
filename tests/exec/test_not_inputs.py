"""What a kernel reads besides its launch's buffers and arguments. Module-scope `__device__`/`__constant__`
variables hold their initializers (zeros without one), known bytes of each module, never inputs: reading them as
input leaves made two kernels whose tables differ EQUIVALENT. Special registers the hardware picks (%smid,
%clock, ...) have no value `volta check` may assume."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from volta.cli import run

DATA = Path(__file__).parent / "data"
A, B = str(DATA / "module_globals_a.ptx"), str(DATA / "module_globals_b.ptx")   # lut[3] = 4 / 5


def _launch(kernel: str, dtype: str) -> list[str]:
    return ["--kernel", kernel, "--grid", "1", "--block", "32", "--args", "x,y,32",
            "--buffer", f"x={dtype}[32]:in", "--buffer", f"y={dtype}[32]:out"]


def test_tables_with_different_initializers_are_not_equivalent(capsys):
    assert run(["check", A, B, *_launch("table_int", "s32")]) == 1
    out = capsys.readouterr().out
    assert "NOT EQUIVALENT" in out and "y[3]" in out   # lut[3]: the only entry that differs


def test_the_same_table_is_equivalent(capsys):
    assert run(["check", A, A, *_launch("table_int", "s32")]) == 0
    assert "EQUIVALENT" in capsys.readouterr().out


def test_float_scalar_constant_bank_and_integer_table_are_concrete(capsys):
    # scale * x + offset[i & 1] + (float)lut[i & 3]: the cvt of a table byte is exact on a known integer
    assert run(["check", A, A, *_launch("table_float", "f32")]) == 0
    assert run(["check", A, B, *_launch("table_float", "f32")]) == 1
    assert "y[3] differs" in capsys.readouterr().out


def test_run_reads_initializers_and_zero_filled_variables(tmp_path):
    x = np.arange(32, dtype=np.int32)
    np.savez(tmp_path / "in.npz", x=x)
    assert run(["run", A, *_launch("table_int", "s32"), "--inputs", str(tmp_path / "in.npz"),
                "--out", str(tmp_path / "out.npz"), "-q"]) == 0
    y = np.load(tmp_path / "out.npz")["y"]
    assert (y == x + np.array([1, 2, 3, 4] * 8)).all()   # zeros[] adds nothing


# ---- values the hardware picks ------------------------------------------------------------------------------

def test_check_refuses_a_kernel_reading_the_sm_id(capsys):
    """%smid read as 0 made `x + (smid > 3)` EQUIVALENT to `x`; a wrong answer on most SMs."""
    launch = _launch("k", "f32")[2:]
    ref, opt = str(DATA / "smid_ref.ptx"), str(DATA / "smid_opt.ptx")
    assert run(["check", ref, opt, *launch]) == 3
    out = capsys.readouterr().out
    assert "UNSUPPORTED" in out and "special register %smid" in out and "smid_opt.ptx:" in out
    assert run(["races", opt, *launch, "-q"]) == 0   # races and run pick a value: 0


def test_a_module_counter_updated_by_atomics_is_data(capsys):
    """Unwritten module variables are constants (a __device__ table gives known call targets, tests/exec/
    test_indirect_call.py); a ticket from atomicAdd on one depends on the order: only concrete inputs."""
    ptx = str(DATA / "module_ticket.ptx")
    assert run(["races", ptx, "--grid", "2", "--block", "32", "--args", "x,a,64",
                "--buffer", "x=f32[64]:in", "--buffer", "a=f32[64]:out"]) == 3
    assert "NO FINDING ON THESE INPUTS" in capsys.readouterr().out
