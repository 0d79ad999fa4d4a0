"""Mutation kill rate of `volta check` over a larger mutant set than the test suite runs.

    python benchmarks/mutation_rate.py [--cap N] [--cases eq_relu_fmax_select,...]

Every mutant of the optimized kernel of each equivalent pair (at the example's own size) goes
through `check`; the oracle is concrete exact execution on random inputs. Prints each outcome
and the kill rate: NOT EQUIVALENT (replayed) / mutants that change the function. A mutant that
changes the function and is reported EQUIVALENT is a soundness bug: the script exits 1.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from volta.equiv.mutate import mutants, run_mutant, summarize
from volta.launch.spec import load_manifest

EX = Path(__file__).resolve().parents[1] / "examples"
CASES = ["eq_relu_fmax_select", "eq_reduce_seq_tree", "eq_conv1d_direct_tiled", "eq_gemm_naive_tiled"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=int, default=0, help="at most N mutants per pair, evenly spread (0: all)")
    ap.add_argument("--cases", default=",".join(CASES))
    opts = ap.parse_args()
    everything, unsound = [], 0
    for case in opts.cases.split(","):
        spec = load_manifest(EX / case / "manifest.toml")
        found = mutants(Path(spec.launches["opt"].ptx).read_text())
        if opts.cap and len(found) > opts.cap:
            found = [found[int(k * len(found) / opts.cap)] for k in range(opts.cap)]
        start, outcomes = time.perf_counter(), []
        with tempfile.TemporaryDirectory() as d:
            for m, text in found:
                o = run_mutant(spec, m, text, Path(d))
                outcomes.append(o)
                bad = o.changes and o.verdict == "equivalent"
                unsound += bool(bad) + (o.verdict == "not-equivalent" and not o.confirmed)
                print(f"{case}: {o.verdict:15} changes={o.changes!s:5} {m}" + ("  <-- UNSOUND" if bad else ""),
                      flush=True)
        s = summarize(outcomes)
        print(f"{case}: {s['killed']}/{s['changes_function']} killed ({s['kill_rate']:.0%}), {s['mutants']} mutants "
              f"in {time.perf_counter() - start:.1f} s, {s['by_verdict']}")
        everything += outcomes
    s = summarize(everything)
    print(f"\nkill rate: {s['killed']}/{s['changes_function']} = {s['kill_rate']:.1%} of mutants that change the "
          f"function ({s['mutants']} mutants; by verdict {s['by_verdict']}; {s['equivalent_mutants']} equivalent)")
    return 1 if unsound else 0


if __name__ == "__main__":
    sys.exit(main())
