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


def test_mapa_across_a_cluster_is_unsupported_naming_it():
    r = volta.races(str(DATA / "cluster_dsmem.sm90.ptx"),
                    volta.Launch(grid=2, block=128, args=[_f32("out", 256, "out"), _f32("x", 256, "in")],
                                 kernel="cluster_k"))
    assert r.verdict == "unsupported" and "mapa" in r.report(), r.report()
