"""`volta classes` on the Triton autotune spaces of examples/triton, against an empirical partition.

For each configurations manifest: the proved classes and their witnesses, then ground truth from
bit-exact concrete runs of every configuration on many fresh inputs (every generator, other seeds).
Over-merge: two configurations in one class whose bits differ on some input (must be 0).
Under-merge: two configurations in different classes that no witness separates and that agree on every
input tried (not proved identical, and not shown different). Prints one table.

    python benchmarks/classes_corpus.py [--seeds 6]
"""
from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np

from volta.equiv.bits import GENERATORS, make_inputs, output_words
from volta.equiv.classes import load_configs, partition
from volta.exec.launch import LaunchSpec
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.ptx.parser import parse_file

TRITON = Path(__file__).resolve().parents[1] / "examples" / "triton"


def empirical(configs, buffers, seeds):
    """config index -> list of output words per input."""
    spec = LaunchSpec({"ref": configs[0].launch, "opt": configs[0].launch}, buffers)
    progs = [lower(parse_file(c.launch.ptx), c.launch.kernel) for c in configs]
    runs = {k: [] for k in range(len(configs))}
    for gen in GENERATORS:
        for seed in range(1000, 1000 + seeds):
            inputs, _ = make_inputs(spec, gen, seed)
            for k, c in enumerate(configs):
                m = Machine(progs[k], c.launch, buffers, {}, inputs={n: v.copy() for n, v in inputs.items()},
                            structured=False, check_races=False).run()
                runs[k].append(np.concatenate([w for _, w in sorted(output_words(m, spec).items())]))
    return runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=6)
    a = ap.parse_args()
    print(f"{'space':<12} {'configs':>7} {'classes':>7} {'unclassified':>12} {'over-merge':>10} "
          f"{'under-merge':>11} {'empirical':>9} {'seconds':>8}")
    for manifest in sorted(TRITON.glob("*_configs.toml")):
        start = time.perf_counter()
        configs, buffers, symbols = load_configs(manifest)
        result = partition(configs, buffers, symbols)
        runs = empirical(configs, buffers, a.seeds)
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
        print(f"{manifest.stem.removesuffix('_configs'):<12} {len(configs):>7} {len(result.classes):>7} "
              f"{len(result.unsupported):>12} {over:>10} {under:>11} {len(groups):>9} "
              f"{time.perf_counter() - start:>8.1f}")


if __name__ == "__main__":
    main()
