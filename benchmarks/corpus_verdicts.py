"""Every eq_/neq_ pair of examples/ through `volta check`: verdict against the manifest's expectation, seconds.

    python benchmarks/corpus_verdicts.py            # all pairs
    python benchmarks/corpus_verdicts.py kb_        # pairs whose name contains "kb_"

Prints one line per pair and a summary (decided, as expected, slowest), the figures the closing notes quote:
wall seconds, and the CPU seconds of this process (`time.process_time`), which on a machine shared with other
jobs says more than the wall clock about the checker itself.
2026-12-07 (branch consts, issue 28 §1-2; 2 shared cores at load 14-27, so seconds are loose): 105 pairs, 104
decided, 105 as expected, slowest eq_positive_dot_atomic 48 s (eq_sech2_coshf_fastmath_expf, added after the run,
is EQUIVALENT in 1.4 s CPU). Main's code on the same 106 pairs: 101 as expected;
eq_expf_fast_expf, eq_expf_exp2f_log2e, eq_sech2_coshf_fastmath_expf NOT EQUIVALENT by ~1e-8 (the last digits
of log2 e, ln 2), eq_maxpool_sentinel_fltmax NOT EQUIVALENT on the non-f32 input -FLT_MAX - 1, and
neq_gelu_erf_tanh_dot32 UNKNOWN at --timeout 120 (killed after > 5 min without one); each now as expected.
2026-12-07 (main, session 4; 2 cores, load 0.9 at the start): 128 pairs, 127 decided (eq_embedding_gather_range is
equivalent for the given inputs, as its manifest expects), 128 as expected; slowest eq_gemm_wgmma_pipelined 27.4 s,
every other pair under 24 s wall and 10 s CPU. The issue-28 layer norm at 64 rows x 768 (eq_layernorm_rowthread_warp
with --ref-grid 8 --opt-grid 8 and 64 rows in --args) is EQUIVALENT in 26.3 s wall, 1.08 GB.
"""
from __future__ import annotations

import io
import json
import sys
import time
import tomllib
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from volta.cli import run  # noqa: E402

DECIDED = {"equivalent", "not-equivalent", "findings"}


def main(argv: list[str]) -> int:
    needle = argv[0] if argv else ""
    cases = sorted(p.parent for p in (ROOT / "examples").glob("*eq_*/manifest.toml") if needle in p.parent.name)
    rows, wrong = [], 0
    for case in cases:
        want = tomllib.loads((case / "manifest.toml").read_text())["expect"].get("check")
        out, err = io.StringIO(), io.StringIO()
        start, cpu = time.perf_counter(), time.process_time()
        with redirect_stdout(out), redirect_stderr(err):
            run(["check", str(case / "manifest.toml"), "-q", "--json"])
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        try:
            got = json.loads(out.getvalue())["verdict"]
        except (ValueError, KeyError):
            got = "error"
        wrong += got != want
        rows.append((case.name, want, got, seconds))
        print(f"{case.name:42s} expected {want:15s} got {got:15s} {seconds:7.2f} s  (cpu {cpu:6.2f} s)"
              + ("" if got == want else "   <-- differs"), flush=True)
    decided = sum(r[2] in DECIDED for r in rows)
    slowest = max(rows, key=lambda r: r[3]) if rows else None
    print(f"\n{len(rows)} pairs: {decided} decided, {len(rows) - wrong} as expected, {wrong} not;"
          + (f" slowest {slowest[0]} {slowest[3]:.1f} s" if slowest else ""))
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
