"""benchmarks/bench_llmc.py stays runnable: a pair row of its table, on our own record-merge online softmax
example, through its runner (one `volta check` process, kernels chosen by name, verdict, CPU and RSS read back).

llm.c's kernels live in a checkout the suite does not have."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
spec = importlib.util.spec_from_file_location("bench_llmc", ROOT / "benchmarks" / "bench_llmc.py")
bench_llmc = sys.modules.setdefault("bench_llmc", importlib.util.module_from_spec(spec))
spec.loader.exec_module(bench_llmc)

EXAMPLE = ROOT / "examples" / "neq_softmax_online_record_rescale_bigger"


def test_the_table_names_each_pair_once():
    pairs = bench_llmc.pairs()
    assert len({p.name for p in pairs}) == len(pairs)
    assert {p.expect for p in pairs} <= {"equivalent", "not-equivalent", "equivalent-for-inputs", "race",
                                         "findings:out-of-bounds"}


def test_a_sequence_pair_spells_its_launches_and_host_steps_in_order():
    pair = next(p for p in bench_llmc.pairs() if p.opt_steps)   # attention: three kernels vs steps and kernels
    argv = bench_llmc.command(pair, Path("a.ptx"))
    roles = [(flag, value.split()[0]) for flag, value in zip(argv, argv[1:])
             if flag in ("--ref-launch", "--opt-launch", "--opt-step")]
    assert [f for f, _ in roles] == ["--ref-launch"] * 3 + ["--opt-launch", "--opt-step", "--opt-step",
                                                             "--opt-launch", "--opt-launch", "--opt-step"]
    assert roles[0][1] == "a.ptx:attention_query_key_kernel1" and roles[4][1] == "memset"
    assert any(" shared=" in v for f, v in zip(argv, argv[1:]) if f == "--opt-launch")   # the flash kernel's


@pytest.mark.slow   # a child process: 2.7 CPU s
def test_a_pair_runs_in_its_own_process(tmp_path):
    # the example's two kernels in one PTX file, as an llm.c file holds every version of its op
    ptx = tmp_path / "both.ptx"
    ref = (EXAMPLE / "ref.sm80.ptx").read_text()
    opt = (EXAMPLE / "opt.sm80.ptx").read_text()
    body = opt[opt.index(".visible .entry"):]
    ptx.write_text(ref + "\n" + body)
    pair = bench_llmc.Pair("record merge rescaling the bigger sum", "both", "softmax_warp_three_pass",
                           "softmax_warp_online_record_bad", ("2", "64", 0), ("2", "64", 0), "x,y,4,64",
                           ("x=f32[256]:in", "y=f32[256]:out"), "not-equivalent")
    row = bench_llmc.run_one(pair, ptx, timeout=300)
    assert row["got"] == "not-equivalent", row
    assert row["cpu"] > 0 and row["rss_mb"] > 10
