"""Polling loads (volta/ir/spin.py): loads a loop repeats until their value lets the thread leave it."""
from __future__ import annotations

from pathlib import Path

from volta.ir.program import lower
from volta.ir.spin import polling_loads
from volta.ptx.parser import parse_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _polling(case):
    prog = lower(parse_file(EXAMPLES / case / "kernel.sm80.ptx"))
    return [prog.ops[i].d.inst.opcode for i in sorted(polling_loads(prog))]


def test_spin_loops_on_a_flag():
    assert _polling("flag_handshake_fenced") == ["ld.volatile.global.u32"]
    assert _polling("flag_between_warps") == ["ld.volatile.shared.u32"]
    assert _polling("bug_lock_ticket_order") == ["ld.volatile.global.u32"]


def test_loads_that_decide_no_loop_exit_are_not_polling():
    assert _polling("bug_reduce_warp_nosyncwarp") == []
    assert _polling("gemm_tiled") == []   # a k loop reads tiles, but its trip count does not depend on them
    assert _polling("bug_lock_cas_order") == []   # the CAS is an atomic, not a load
