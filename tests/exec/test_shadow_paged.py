"""The paged race shadow (volta/exec/races/shadow.py): history allocated per touched page, identical decisions,
and a write-vs-read report that names a reader other than the writer (DESIGN.md "Races")."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volta.exec.races.shadow import PAGE, Shadow
from volta.launch.spec import from_options
from volta.session.races import FINDINGS, analyze

# Thread 0 reads x[0] first, threads 1..3 read it afterwards, then thread 0 writes x[0] with no barrier:
# the first reader recorded is the writer itself, so a report from the first-reader slot alone named
# thread 0 as both the reader and the writer.
WRITER_READ_FIRST = """
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 x)
{
    .reg .pred %p<3>;
    .reg .b32 %r<2>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [x];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    setp.ne.u32 %p2, %r1, 0;
    @%p1 ld.global.f32 %f1, [%rd2];
    @%p2 ld.global.f32 %f2, [%rd2];
    add.f32 %f1, %f1, 0f3F800000;
    @%p1 st.global.f32 [%rd2], %f1;
    ret;
}
"""


def _access(sh, gidx, tids, write, ctas=None, warps=None, pc=0):
    gidx = np.asarray(gidx, np.int64)
    tid = np.asarray(tids, np.int64)
    cta = np.zeros(tid.size, np.int64) if ctas is None else np.asarray(ctas, np.int64)
    warp = tid // 32 if warps is None else np.asarray(warps, np.int64)
    zeros = np.zeros(tid.size, np.int64)
    return sh.access(gidx, tid, cta, zeros, warp, zeros, pc, write, False)[0]


def test_write_after_reads_by_the_writer_first_names_another_reader():
    sh = Shadow(64, 4)
    assert _access(sh, [0], [0], False, pc=1) == []
    assert _access(sh, [0, 0, 0], [1, 2, 3], False, pc=2) == []
    (c,) = _access(sh, [0], [0], True, pc=3)
    assert (c.tid, c.write, c.prior_write) == (0, True, False)
    assert c.prior_tid in (1, 2, 3) and c.prior_pc == 2


def test_writer_last_in_one_batch_of_readers_names_another_reader():
    sh = Shadow(64, 4)
    _access(sh, [0, 0, 0, 0], [1, 2, 3, 0], False)  # last-wins keeps thread 0 as the first reader
    (c,) = _access(sh, [0], [0], True)
    assert c.tid == 0 and c.prior_tid in (1, 2, 3)


def test_second_reader_of_another_cta_survives_a_barrier_of_the_first():
    sh = Shadow(64, 4)
    _access(sh, [0], [0], False, ctas=[0])
    _access(sh, [0], [300], False, ctas=[1], warps=[9])  # another CTA: always concurrent with thread 0
    tid = np.array([0])
    zero = np.zeros(1, np.int64)
    # thread 0 reads again after a barrier of its CTA (generation 1): the first-reader slot is refreshed
    sh.access(np.array([0]), tid, zero, np.ones(1, np.int64), zero, zero, 5, False, False)
    conflicts = sh.access(np.array([0]), tid, zero, np.ones(1, np.int64), zero, zero, 6, True, False)[0]
    assert [(c.prior_tid, c.tid) for c in conflicts] == [(300, 0)]


def test_kernel_report_names_writer_and_a_different_reader(tmp_path):
    ptx = tmp_path / "k.ptx"
    ptx.write_text(WRITER_READ_FIRST)
    report = analyze(from_options(str(ptx), "k", "1", "4", "x", ["x=f32[4]:inout"]))
    assert report.verdict == FINDINGS
    # the readers' value never reaches an output, so the race is classified benign (volta/exec/races/racy_reads.py);
    # the shadow's part is the pair it names
    races = [f for f in report.findings if f.kind in ("race", "benign-read-race")]
    assert races and all("read-write race" in f.message for f in races)
    reader, writer = races[0].threads
    assert writer.thread == (0, 0, 0)
    assert reader.thread != (0, 0, 0) and reader.thread[0] in (1, 2, 3)


def test_pages_follow_what_is_touched():
    n = 1 << 26  # 64 MiB of bytes: 16 Mi granules, dense history would be over a gigabyte
    sh = Shadow(n, 4)
    before = sh.nbytes
    column = np.arange(0, n // 4, 4096, dtype=np.int64)  # one granule a row of a 4096-wide matrix
    _access(sh, column, np.arange(column.size) % 256, False)
    sh.settle()   # logged weak reads take their pages when folded
    assert sh.used == column.size  # one page per row touched
    per_granule = (sh.nbytes - before) / (column.size * PAGE)
    assert per_granule < 2 * 128  # about 110 bytes per touched granule (twice that with room to grow)
    assert sh.nbytes < 64 << 20


def test_untouched_granules_read_as_initial_without_allocating():
    sh = Shadow(1 << 20, 4)
    assert int(sh.w_tid[12345]) == -1 and int(sh.w_pc[7]) == -1 and not bool(sh.r_mthread[3])
    assert sh.used == 0
    _access(sh, [12345], [7], True, pc=42)
    assert (int(sh.w_tid[12345]), int(sh.w_pc[12345])) == (7, 42)
    assert list(sh.r_tid[np.array([12345, 0])]) == [-1, -1]


def test_refine_keeps_history_per_byte():
    sh = Shadow(4096, 4)
    _access(sh, [3, 700], [5, 6], True, pc=9)
    sh.refine(1)
    assert sh.g == 1 and sh.n == 4096
    for gran, tid in ((12, 5), (13, 5), (15, 5), (2800, 6), (2803, 6)):
        assert int(sh.w_tid[gran]) == tid and int(sh.w_pc[gran]) == 9
    assert int(sh.w_tid[11]) == -1 and int(sh.w_tid[16]) == -1
    # a later write by another thread, byte-granular, conflicts with the refined history
    (c,) = _access(sh, [13], [8], True)
    assert (c.prior_tid, c.tid, c.granule) == (5, 8, 13)


def test_races_on_declared_4096_square_buffers_stays_small():
    """`volta races` on three f32[4096*4096] buffers of which one CTA touches a few rows (K = 16): memory
    follows the touched pages. The dense shadow needed about 7 GB here and the estimate refused --max-memory 3G."""
    import subprocess
    import sys
    from pathlib import Path

    ptx = Path(__file__).resolve().parents[2] / "examples" / "gemm_naive" / "kernel.sm80.ptx"
    n = 4096 * 4096
    # the child's own high-water mark (VmHWM, per address space): getrusage's ru_maxrss of a child would carry
    # over this pytest process's peak through fork + exec
    child_main = ("import atexit, sys; from volta.cli import main; atexit.register(lambda: print('VmHWM', "
                  "next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM'))));"
                  " sys.exit(main())")
    argv = [sys.executable, "-c", child_main, "races", str(ptx),
            "--grid", "1", "--block", "16x16", "--args", "A,B,C,4096,4096,16", "-q", "--max-memory", "3G",
            "--buffer", f"A=f32[{n}]:in", "--buffer", f"B=f32[{n}]:in", "--buffer", f"C=f32[{n}]:out"]
    child = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert child.returncode == 0, child.stdout
    assert "CLEAN" in child.stdout
    peak_kib = int(child.stdout.rsplit("VmHWM", 1)[1].split()[0])
    assert peak_kib < 1 << 20, f"peak RSS {peak_kib // 1024} MiB"  # under 1 GiB


def test_paged_array_reads_fill_until_written_and_indexes_like_numpy():
    from volta.exec.state.memory import PagedArray

    dense = np.full((3, 5000), None, dtype=object)
    paged = PagedArray((3, 5000), object, None, page_shift=6)
    assert paged[1, 4999] is None and paged.used == 0
    rows = np.array([0, 2, 2, 1])
    offs = np.array([7, 4000, 4001, 64])
    values = np.empty(4, dtype=object)
    values[:] = [("a",), ("b",), ("c",), ("d",)]  # sequence-like objects stay whole
    for a in (dense, paged):
        a[rows, offs] = values
        a[1, 3] = ("e", "f")
        a[2, np.array([4001])] = None
    assert paged.used == 4  # pages touched, of 3 * 5000 / 64
    every = np.arange(3 * 5000)
    assert list(paged.get(every)) == list(dense.reshape(-1))
    assert paged[1, 3] == ("e", "f") and list(paged[rows, offs]) == list(dense[rows, offs])


# One step: (granules, first thread, write?, barrier before it?, __syncwarp before it?). Threads 0..95 in two
# CTAs of three warps of 16, so granules are read by one thread, several threads of a warp, several warps, CTAs.
_RARE = st.integers(0, 5).map(lambda k: k == 0)   # writes and barriers: one step in six
_STEPS = st.lists(st.tuples(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(0, 95), _RARE, _RARE,
                            _RARE), max_size=40)


@settings(max_examples=150, deadline=None)
@given(_STEPS, st.integers(1, 8))
def test_shortcuts_decide_as_the_whole_bookkeeping(steps, spread):
    """Weak reads of a granule whose read record is full (several warps read it, in this generation) skip
    recording; a batch of one CTA whose writes all came in earlier barrier generations skips the check
    against the last write. Every conflict is the one the whole bookkeeping finds."""
    fast, slow = Shadow(64, 4), Shadow(64, 4)
    gen = wgen = 0
    for pc, (granules, first, write, barrier, syncwarp) in enumerate(steps):
        gen, wgen = gen + barrier, wgen + syncwarp
        tids = [(first + spread * 7 * k) % 96 for k in range(len(granules))]
        tid = np.asarray(tids, np.int64)
        args = (np.asarray(granules, np.int64), tid, tid // 48, np.full(tid.size, gen, np.int64), tid // 16,
                np.full(tid.size, wgen, np.int64), pc, write, False)
        if slow.used:
            slow.c.r_full[:] = False   # never full: the whole bookkeeping every time
        slow.write_gens[-1] = 1 << 30   # a write by no CTA: the check against the last write never skipped
        got, want = fast.access(*args)[0], slow.access(*args)[0]
        assert [(c.granule, c.prior_pc, c.prior_tid, c.tid, c.prior_write) for c in got] == \
               [(c.granule, c.prior_pc, c.prior_tid, c.tid, c.prior_write) for c in want]
