"""back_edge hashes only the registers its loop body writes (volta/exec/state/services.py): its decisions
must be those of the hash over every register. Each run here records, at every backward branch taken, the
decision of both and compares them; a negative control shows the comparison catches a digest that misses
a change."""
from __future__ import annotations

import numpy as np
import pytest

from volta.exec.state import services
from volta.launch.spec import from_options
from volta.session.races import RacesOptions, analyze

# block 1's thread 0 waits for block 0's flag. Its inner loop polls the flag with a vector load (two
# registers written by one instruction) and bumps a counter only on odd iterations (a predicated write);
# its outer loop writes %r9 and %p4, which the inner loop never writes, and repeats the wait twice: the
# inner back edge is taken again after the outer body changed registers outside the inner body.
NESTED = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry nested(.param .u64 f, .param .u64 o)
{
    .reg .pred %p<6>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [f];
    ld.param.u64 %rd2, [o];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    setp.ne.s32 %p1, %r2, 0;
    @%p1 bra DONE;
    setp.eq.s32 %p2, %r1, 0;
    @%p2 bra PRODUCER;
    mov.u32 %r9, 0;
    mov.u32 %r7, 0;
    mov.u32 %r8, 0;
OUTER:
    add.s32 %r9, %r9, 1;
    setp.gt.s32 %p4, %r9, 1;
INNER:
    ld.volatile.global.v2.u32 {%r3, %r4}, [%rd1];
    and.b32 %r6, %r7, 1;
    setp.eq.s32 %p5, %r6, 1;
    @%p5 add.s32 %r8, %r8, 1;
    xor.b32 %r7, %r7, 1;
    setp.lt.s32 %p3, %r3, %r9;
    @%p3 bra INNER;
    @!%p4 bra OUTER;
    add.s32 %r10, %r8, %r4;
    st.global.u32 [%rd2], %r10;
    bra DONE;
PRODUCER:
    st.volatile.global.u32 [%rd1], 1;
    membar.gl;
    st.volatile.global.u32 [%rd1], 2;
DONE:
    ret;
}
"""

# a spin on a flag nobody sets, with a retry counter: the loop changes a register every iteration
RETRY = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry retry(.param .u64 f, .param .u64 o)
{
    .reg .pred %p<4>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [f];
    ld.param.u64 %rd2, [o];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    setp.ne.s32 %p1, %r2, 0;
    @%p1 bra DONE;
    setp.eq.s32 %p2, %r1, 0;
    @%p2 bra PRODUCER;
    mov.u32 %r5, 0;
SPIN:
    add.s32 %r5, %r5, 1;
    ld.volatile.global.u32 %r3, [%rd1];
    setp.eq.s32 %p3, %r3, 0;
    @%p3 bra SPIN;
    st.global.u32 [%rd2], %r5;
    bra DONE;
PRODUCER:
    st.volatile.global.u32 [%rd1], 1;
DONE:
    ret;
}
"""


class _Differential:
    """Wraps MachineServices._no_progress: at every call, the decision over every register (kept in a shadow
    hash per machine) must equal the one back_edge made."""

    def __init__(self, monkeypatch):
        self.agreed = {True: 0, False: 0}
        self.disagreed = 0
        original = services.MachineServices._no_progress
        shadows = {}

        def checked(m, op, lanes):
            shadow = shadows.setdefault(id(m), np.zeros(m.L, np.uint64))
            full = m._state_digest(lanes, range(len(m.regs)))
            if m.spin_hash is None:
                expected = np.zeros(lanes.size, bool)
            else:
                expected = (m.spin_pc[lanes] == op.index) & (shadow[lanes] == full) & (
                    m.spin_epoch[lanes] == m.mem_epoch)
            shadow[lanes] = full
            got = original(m, op, lanes)
            if np.array_equal(got, expected):
                for v in expected:
                    self.agreed[bool(v)] += 1
            else:
                self.disagreed += 1
            return got

        monkeypatch.setattr(services.MachineServices, "_no_progress", checked)


def _run(tmp_path, text, name):
    ptx = tmp_path / f"{name}.ptx"
    ptx.write_text(text)
    spec = from_options(ptx, name, "2", "32", "f,o", ["f=s32[2]:out", "o=s32[1]:out"])
    return analyze(spec, options=RacesOptions(inputs="zeros"))


@pytest.mark.parametrize("text,name", [(NESTED, "nested"), (RETRY, "retry")], ids=["nested", "retry"])
def test_loop_body_digest_decides_as_the_full_hash(tmp_path, monkeypatch, text, name):
    diff = _Differential(monkeypatch)
    report = _run(tmp_path, text, name)
    assert not report.trial_errors and not any(f.kind == "deadlock" for f in report.findings), report.findings
    assert diff.disagreed == 0
    assert diff.agreed[False] > 0   # iterations that changed something were compared


def test_a_spin_that_changes_nothing_is_still_parked(tmp_path, monkeypatch):
    """The producer never sets the flag and the inner loop's toggle is gone: the waiting thread's loop
    repeats its state and parks, and the run ends in a spin-wait deadlock, decided the same by both."""
    diff = _Differential(monkeypatch)
    text = NESTED.replace("xor.b32 %r7, %r7, 1;", "")
    for store in ("st.volatile.global.u32 [%rd1], 1;", "st.volatile.global.u32 [%rd1], 2;"):
        text = text.replace(store, "")
    report = _run(tmp_path, text, "nested")
    assert any("spin-wait deadlock" in f.message for f in report.findings), report.findings
    assert diff.disagreed == 0 and diff.agreed[True] > 0


def test_the_differential_catches_a_digest_that_misses_a_write(tmp_path, monkeypatch):
    """Negative control: a digest that leaves out the loop's counter (%r5 in RETRY, written every
    iteration) takes a moving loop for a stuck one, and the comparison says so."""
    diff = _Differential(monkeypatch)
    real = services.loop_registers

    def missing_counter(prog, branch):
        regs = real(prog, branch)
        counter = next(i for i, (reg_name, _) in enumerate(prog.regs) if reg_name == "%r5")
        return regs[regs != counter]

    monkeypatch.setattr(services, "loop_registers", missing_counter)
    _run(tmp_path, RETRY, "retry")
    assert diff.disagreed > 0
