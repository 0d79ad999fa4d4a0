"""Instructions nvcc 13 emits for ordinary CUDA that once failed to parse: cluster barriers with every ordering,
shared→global bulk copies with bulk groups, distributed shared memory (mapa), SIMD video (vabsdiff4{.add}),
packed 16-bit integers. PTX under tests/semantics/data (sources beside it, made by nvcc 13 for sm_80/sm_90)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import volta
from volta.ptx.parser import parse_file
from volta.ir.program import lower

DATA = Path(__file__).parent.parent / "semantics" / "data"
FILES = sorted(DATA.glob("*.ptx"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_parses_and_decodes(path):
    module = parse_file(path)
    names = [f.name for f in module.items if getattr(f, "kind", None) == "entry"]
    assert names
    for name in names:
        assert lower(module, name).ops


def _f32(name, n, role):
    return volta.Buffer(name, "f32", n, role)


def test_bulk_store_runs_and_copies():
    out, x = _f32("out", 512, "out"), _f32("x", 512, "in")
    data = np.arange(512, dtype=np.float32)
    r = volta.run(str(DATA / "bulk_cluster.sm90.ptx"),
                  volta.Launch(grid=2, block=256, args=[out, x], kernel="bulk_store"), inputs={"x": data})
    assert not r.findings
    assert np.array_equal(np.asarray(r.outputs["out"]), data * 2)


def test_bulk_store_without_barrier_races():
    r = volta.races(str(DATA / "bulk_cluster.sm90.ptx"),
                    volta.Launch(grid=1, block=256, args=[_f32("out", 256, "out"), _f32("x", 256, "in")],
                                 kernel="bulk_store_nosync"))
    assert r.verdict == "findings" and "RACE" in r.report(), r.report()


def test_cluster_barrier_orders_run_clean():
    r = volta.races(str(DATA / "bulk_cluster.sm90.ptx"),
                    volta.Launch(grid=2, block=32, args=[_f32("out", 32, "out")], kernel="cl_orders"))
    assert r.verdict != "unsupported", r.report()


def test_mapa_in_clusters_of_one_is_the_cta_itself():
    r = volta.races(str(DATA / "cluster_dsmem.sm90.ptx"),
                    volta.Launch(grid=2, block=128, args=[_f32("out", 256, "out"), _f32("x", 256, "in")],
                                 kernel="cluster_one"))
    assert r.exit_code == 0, r.report()


def test_kernel_requiring_larger_clusters_is_unsupported_at_its_first_cluster_instruction():
    r = volta.races(str(DATA / "cluster_dsmem.sm90.ptx"),
                    volta.Launch(grid=2, block=128, args=[_f32("out", 256, "out"), _f32("x", 256, "in")],
                                 kernel="cluster_k"))
    # `.reqnctapercluster 2, 1, 1`: cluster.sync() (barrier.cluster.arrive) comes before the mapa
    assert r.verdict == "unsupported" and "barrier.cluster.arrive" in r.report(), r.report()
    assert "clusters of 2 CTAs" in r.report()


def _fns(m, base, off):
    if off == 0:
        return base if (m >> base) & 1 else 0xFFFFFFFF
    pos, count, inc = base, abs(off) - 1, 1 if off > 0 else -1
    while 0 <= pos < 32:
        if (m >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return 0xFFFFFFFF


def _s(v, w=32):
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def _halves(v, signed):
    return [(_s(v >> (16 * i), 16) if signed else (v >> (16 * i)) & 0xFFFF) for i in range(2)]


def _pack16(vals):
    return (vals[0] & 0xFFFF) | ((vals[1] & 0xFFFF) << 16)


def _warp_dpx_model(a, b):
    """warp_dpx.cu's misc_k for one warp of 32 lanes, from the CUDA definitions of its intrinsics."""
    out = []
    add, mx, orr = sum(a) & 0xFFFFFFFF, max(b), 0
    for v in a:
        orr |= v
    for i, (x, y) in enumerate(zip(a, b)):
        r = add ^ mx ^ orr
        match = sum(1 << j for j, v in enumerate(a) if (v & 3) == (x & 3))
        dp4 = (3 + sum(((x >> 8 * k) & 255) * ((y >> 8 * k) & 255) for k in range(4))) & 0xFFFFFFFF
        dp2 = (1 + sum(((x >> 16 * k) & 0xFFFF) * ((y >> 8 * k) & 255) for k in range(2))) & 0xFFFFFFFF
        r = (r + (match ^ _fns(x, 0, 1) ^ dp4 ^ dp2)) & 0xFFFFFFFF
        sx, sy = _s(x), _s(y)
        p = int(sx >= sy)
        t = (max(sx, sy, 5) & 0xFFFFFFFF) ^ (max(min(sx, sy), 0)) ^ (max(sx, sy) & 0xFFFFFFFF) ^ p
        r = (r + t) & 0xFFFFFFFF
        t = (max(_s(sx + sy), 3) & 0xFFFFFFFF)   # a + b wraps at 32 bits (add.s32, then max)
        t ^= _pack16([max(p_, q_, 0) for p_, q_ in zip(_halves(x, True), _halves(y, True))])
        t ^= _pack16([max(p_, q_, 9 if k == 0 else 0) for k, (p_, q_) in enumerate(zip(_halves(x, False),
                                                                                        _halves(y, False)))])
        r = (r + t) & 0xFFFFFFFF
        out.append(r)
    return out


@pytest.mark.parametrize("arch", ["sm80", "sm90"])
def test_warp_dpx_bit_exact(arch):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF]
    b[:4] = [0, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]
    out = volta.Buffer("out", "u32", 32, "out")
    r = volta.run(str(DATA / f"warp_dpx.{arch}.ptx"),
                  volta.Launch(grid=1, block=32, args=[out, volta.Buffer("a", "u32", 32, "in"),
                                                      volta.Buffer("b", "u32", 32, "in"), 32]),
                  inputs={"a": a, "b": b})
    assert not r.findings
    want = _warp_dpx_model([int(v) for v in a], [int(v) for v in b])
    got = [int(v) for v in np.asarray(r.outputs["out"])]
    assert got == want, [(i, hex(g), hex(w)) for i, (g, w) in enumerate(zip(got, want)) if g != w][:5]


def test_cluster_api_runs_clean():
    r = volta.races(str(DATA / "cluster_api.sm90.ptx"),
                    volta.Launch(grid=2, block=32, args=[volta.Buffer("out", "u32", 64, "out")]))
    assert r.exit_code == 0, r.report()


def test_bra_to_a_register_is_a_parse_error_not_a_crash(tmp_path, capsys):
    from volta.cli import run

    text = (DATA / "bulk_cluster.sm90.ptx").read_text()
    ptx = tmp_path / "k.ptx"
    ptx.write_text(text.replace("\tret;", "\tbra \t%rd1;\n\tret;", 1))
    code = run(["parse", str(ptx)])
    err = capsys.readouterr().err
    assert code == 2 and "takes a label" in err and "Traceback" not in err, err
