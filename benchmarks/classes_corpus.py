"""`volta classes` on the Triton autotune spaces of examples/triton, against an empirical partition.

For each configurations manifest: the proved classes and their witnesses, then ground truth from
bit-exact concrete runs of every configuration on many fresh inputs (every generator, other seeds).
Over-merge: two configurations in one class whose bits differ on some input (must be 0).
Under-merge: two configurations in different classes that no witness separates and that agree on every
input tried (not proved identical, and not shown different). Prints one table.
Spaces whose kernels use tensor cores (mma.sync) are proved and run under `--mma-fp` (a tensor-core model:
IEEE arithmetic does not define them); the others under --fp ieee.

    python benchmarks/classes_corpus.py [--seeds 6] [--mma-fp ampere] [--only rmsnorm,splitk_matmul]
"""
from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np

from volta.equiv.bits import GENERATORS, make_inputs, output_words
from volta.equiv.classes import load_configs, partition
from volta.launch.spec import LaunchSpec
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.ptx.parser import parse_file

TRITON = Path(__file__).resolve().parents[1] / "examples" / "triton"


def empirical(configs, buffers, seeds, fp="ieee"):
    """config index -> list of output words per input."""
    spec = LaunchSpec({"ref": configs[0].launch, "opt": configs[0].launch}, buffers)
    progs = [lower(parse_file(c.launch.ptx), c.launch.kernel) for c in configs]
    runs = {k: [] for k in range(len(configs))}
    for gen in GENERATORS:
        for seed in range(1000, 1000 + seeds):
            inputs, _ = make_inputs(spec, gen, seed)
            for k, c in enumerate(configs):
                m = Machine(progs[k], c.launch, buffers, {}, inputs={n: v.copy() for n, v in inputs.items()},
                            structured=False, check_races=False, fp=fp).run()
                runs[k].append(np.concatenate([w for _, w in sorted(output_words(m, spec).items())]))
    return runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--mma-fp", default="ampere", help="tensor-core model for the spaces that use mma.sync")
    ap.add_argument("--only", default="", help="comma-separated space names (default: all)")
    a = ap.parse_args()
    only = {x for x in a.only.split(",") if x}
    print(f"{'space':<18} {'fp':<7} {'configs':>7} {'classes':>7} {'unclassified':>12} {'over-merge':>10} "
          f"{'under-merge':>11} {'empirical':>9} {'seconds':>8}")
    for manifest in sorted(TRITON.glob("*_configs.toml")):
        name = manifest.stem.removesuffix("_configs")
        if only and name not in only:
            continue
        start = time.perf_counter()
        configs, buffers, symbols = load_configs(manifest)
        fp = a.mma_fp if any("mma.sync" in Path(c.launch.ptx).read_text() for c in configs) else "ieee"
        result = partition(configs, buffers, symbols, fp=fp)
        runs = empirical(configs, buffers, a.seeds, fp)
        same = {(i, j): all(np.array_equal(x, y) for x, y in zip(runs[i], runs[j]))
                for i, j in itertools.combinations(range(len(configs)), 2)}
        cls = {k: c for c, members in enumerate(result.classes) for k in members}
        over = sum(1 for (i, j), eq in same.items() if i in cls and j in cls and cls[i] == cls[j] and not eq)
        unseparated = {(s.a, s.b) for s in result.separations if s.witness is None}
        under = sum(1 for (i, j), eq in same.items() if i in cls and j in cls and cls[i] != cls[j] and eq
                    and tuple(sorted((cls[i], cls[j]))) in unseparated)
        groups = {}
        for k in range(len(configs)):
            groups.setdefault(tuple(r.tobytes() for r in runs[k]), []).append(k)
        print(f"{name:<18} {fp:<7} {len(configs):>7} {len(result.classes):>7} "
              f"{len(result.unsupported):>12} {over:>10} {under:>11} {len(groups):>9} "
              f"{time.perf_counter() - start:>8.1f}")


if __name__ == "__main__":
    main()
