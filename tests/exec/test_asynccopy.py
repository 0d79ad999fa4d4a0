"""cp.async: zero-fill, group ordering, bounds, and the races of its write window."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from volta.exec import findings as F
from volta.launch.spec import from_options, load_manifest
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.ptx.parser import parse_file, parse_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def run(body, block, inputs, buffers=("X=u32[512]:in", "OUT=u32[512]:out"), smem=2048):
    ptx = HEAD + f"""
.visible .entry k(.param .u64 px, .param .u64 pout)
{{
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .shared .align 16 .b8 S[{smem}];
    ld.param.u64 %rd1, [px];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, S;
    shl.b32 %r3, %r1, 4;          // 16 bytes per thread
    add.s32 %r4, %r2, %r3;        // &S[tid*16]
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;     // &X[tid*4]
    add.s64 %rd5, %rd2, %rd3;     // &OUT[tid*4]
{body}
    ret;
}}
"""
    spec = from_options("test.ptx", None, "1", block, "X,OUT", list(buffers))
    prog = lower(parse_text(ptx), None)
    return Machine(prog, spec.launches["kernel"], spec.buffers, spec.symbols, inputs=inputs).run()


def out(m):
    return m.buffer_regions["OUT"].data[0].view(np.uint32)


X = np.arange(512, dtype=np.uint32) + 7


def test_zero_fill_when_src_size_is_smaller():
    body = """
    and.b32 %r5, %r1, 3;
    shl.b32 %r6, %r5, 2;           // src-size 0, 4, 8, 12
    cp.async.ca.shared.global [%r4], [%rd4], 16, %r6;
    cp.async.wait_all;
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4];
    st.global.v4.u32 [%rd5], {%r10, %r11, %r12, %r13};
    """
    m = run(body, "32", {"X": X})
    assert not m.findings
    got = out(m)[:128].reshape(32, 4)
    for tid in range(32):
        n = tid & 3
        want = np.concatenate([X[tid * 4: tid * 4 + n], np.zeros(4 - n, np.uint32)])
        assert (got[tid] == want).all(), tid


def test_ignore_src_predicate_fills_zeros():
    body = """
    setp.lt.u32 %p1, %r1, 16;
    cp.async.ca.shared.global [%r4], [%rd4], 16, %p1;
    cp.async.commit_group;
    cp.async.wait_group 0;
    ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4];
    st.global.v4.u32 [%rd5], {%r10, %r11, %r12, %r13};
    """
    m = run(body, "32", {"X": X})
    got = out(m)[:128].reshape(32, 4)
    assert (got[:16] == 0).all() and (got[16:] == X[64:128].reshape(16, 4)).all()


def test_wait_group_completes_all_but_the_newest_groups():
    # two groups: S[tid] <- X[tid] (group 0), S[tid + 32] <- X[tid + 32] (group 1); after wait_group 1 only the
    # first has landed, the second slot still holds the sentinel stored before.
    body = """
    add.s32 %r7, %r4, 512;
    add.s64 %rd6, %rd4, 512;
    mov.u32 %r8, 99;
    st.shared.v4.u32 [%r7], {%r8, %r8, %r8, %r8};
    cp.async.cg.shared.global [%r4], [%rd4], 16;
    cp.async.commit_group;
    cp.async.cg.shared.global [%r7], [%rd6], 16;
    cp.async.commit_group;
    cp.async.wait_group 1;
    ld.shared.u32 %r10, [%r4];
    ld.shared.u32 %r11, [%r7];
    cp.async.wait_group 0;
    ld.shared.u32 %r12, [%r7];
    st.global.v4.u32 [%rd5], {%r10, %r11, %r12, %r12};
    """
    m = run(body, "32", {"X": X})
    assert not m.findings
    got = out(m)[:128].reshape(32, 4)
    tid = np.arange(32)
    assert (got[:, 0] == X[tid * 4]).all()
    assert (got[:, 1] == 99).all()
    assert (got[:, 2] == X[128 + tid * 4]).all()


def test_data_is_not_there_before_the_wait():
    body = """
    cp.async.cg.shared.global [%r4], [%rd4], 16;
    cp.async.commit_group;
    ld.shared.u32 %r10, [%r4];
    st.global.u32 [%rd5], %r10;
    cp.async.wait_all;
    """
    m = run(body, "32", {"X": X})
    assert any(f.kind == F.UNINITIALIZED for f in m.findings)


def test_out_of_bounds_source_and_destination():
    body = """
    add.s64 %rd7, %rd4, 2048;      // X holds 2048 bytes: every source is past the end
    cp.async.cg.shared.global [%r4], [%rd7], 16;
    add.s32 %r9, %r4, 2048;        // S holds 2048 bytes
    cp.async.cg.shared.global [%r9], [%rd4], 16;
    cp.async.wait_all;
    """
    m = run(body, "32", {"X": X})
    kinds = [f.kind for f in m.findings]
    assert kinds.count(F.OUT_OF_BOUNDS) == 2


# reader: warp 1 reads the tile of thread (tid - 32); writer: warp 0 copies into its own tile
READ_OTHER = """
    sub.s32 %r20, %r4, 512;        // thread tid >= 32 reads the slot of thread tid-32
    ld.shared.u32 %r21, [%r20];
"""


def _reader():
    return "\n".join("@!%p1 " + ln.strip() for ln in READ_OTHER.strip().splitlines())


def _race_kernel(before_issue, between, after):
    return f"""
    setp.lt.u32 %p1, %r1, 32;
    mov.u32 %r8, 5;
    @%p1 st.shared.u32 [%r4], %r8;
    bar.sync 0;
{before_issue}
    @%p1 cp.async.cg.shared.global [%r4], [%rd4], 16;
    cp.async.commit_group;
{between}
    cp.async.wait_group 0;
{after}
    """


def _races(body):
    m = run(body, "64", {"X": X})
    return [f for f in m.findings if f.kind == F.RACE]


def test_stale_buffer_read_in_the_same_interval_races():
    # warp 1 still reads the buffer (no barrier) when warp 0 refills it
    assert _races(_race_kernel(_reader(), "", ""))


def test_refill_after_a_barrier_is_clean():
    body = _race_kernel("", "", "bar.sync 0;\n" + _reader())
    assert not _races(body)


def test_read_after_wait_without_barrier_races():
    body = _race_kernel("", "", _reader())
    assert _races(body)


def test_read_while_in_flight_across_barriers_races():
    # issued, then a barrier, then another thread reads, then another barrier, and only then the wait:
    # the copy may land during the read
    reader = _reader()
    body = _race_kernel("", f"bar.sync 0;\n{reader}\nbar.sync 0;", "bar.sync 0;")
    assert _races(body)


def _example(name):
    spec = load_manifest(EXAMPLES / name / "manifest.toml")
    launch = spec.launches["kernel"]
    prog = lower(parse_file(str(launch.ptx)), launch.kernel)
    rng = np.random.default_rng(5)
    inputs = {"A": rng.standard_normal(2048).astype(np.float16), "B": rng.standard_normal(2048).astype(np.float16)}
    return Machine(prog, launch, spec.buffers, spec.symbols, inputs=inputs).run(), inputs


def test_gemm_mma_sync_is_clean_and_stale_variant_races():
    m, inputs = _example("gemm_mma_sync")
    assert not m.findings
    C = m.buffer_regions["C"].data[0].view(np.float32)[:1024].reshape(32, 32)
    ref = inputs["A"].astype(np.float64).reshape(32, 64) @ inputs["B"].astype(np.float64).reshape(64, 32)
    np.testing.assert_allclose(C, ref, rtol=1e-5, atol=1e-5)
    bad, _ = _example("bug_gemm_cpasync_stale")
    races = [f for f in bad.findings if f.kind == F.RACE]
    assert races and any(s.text.startswith("cp.async") for f in races for s in f.sites)
