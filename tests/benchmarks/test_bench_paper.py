"""benchmarks/bench_paper.py stays runnable: its table format and runner on kernels of our own.

The paper's kernels live in a checkout of willtunnels/volta that the suite does not have; these rows
describe two of our examples in the same `Bench`/`Run`/`Array` form and go through the same runner
(one `volta` process each, verdict, CPU seconds and peak RSS read back)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("bench_paper", ROOT / "benchmarks" / "bench_paper.py")
bench_paper = sys.modules.setdefault("bench_paper", importlib.util.module_from_spec(spec))
spec.loader.exec_module(bench_paper)
Array, Bench, Run = bench_paper.Array, bench_paper.Bench, bench_paper.Run

EXAMPLES = ROOT / "examples"


def _reduce(ptx: str, kernel: str, block: str, dtype: str = "s32") -> Run:
    return Run(ptx, kernel, block, "4", (Array("x", dtype, 1024, "in"), Array("partial", dtype, 4, "out")),
               ("x", "partial", "1000" if dtype == "s32" else "1024"))


def test_table_has_the_papers_39_benchmarks():
    benches = bench_paper.benchmarks()
    assert len(benches) == 39 and len({b.name for b in benches}) == 39
    assert sum(b.opt is None for b in benches) == 13  # three racy reductions and ten race-category kernels


def test_equivalence_row_runs_in_its_own_process():
    bench = Bench("(seq, tree)", "reduction", "equivalent",
                  _reduce("eq_reduce_seq_tree/ref.sm80.ptx", "reduce_seq_s32", "32"),
                  _reduce("eq_reduce_seq_tree/opt.sm80.ptx", "reduce_tree_s32", "256"))
    row = bench_paper.run_one(bench, EXAMPLES, timeout=300)
    assert row["got"] == "equivalent", row
    assert row["cpu"] > 0 and row["rss_mb"] > 10


def test_race_row_reports_the_race():
    run = Run("bug_reduce_tree_nosync/kernel.sm80.ptx", "reduce_tree_nosync", "256", "4",
              (Array("x", "f32", 1024, "in"), Array("partial", "f32", 4, "out")), ("x", "partial", "1024"))
    row = bench_paper.run_one(Bench("nosync", "races", "race", run), EXAMPLES, timeout=300)
    assert row["got"] == "race", row


def test_main_refuses_a_path_that_is_not_a_checkout(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_paper.main([str(tmp_path)])
    assert exit_info.value.code == 2
    assert "willtunnels/volta" in capsys.readouterr().err
