"""`volta classes`: split kernel configurations computing one function into bit-equivalence classes.

Autotuning (Triton's num_warps and block sizes, CUTLASS tile shapes, split-K) picks among kernels
that agree over the reals; deterministic and batch-invariant inference needs the ones whose outputs
are bit-identical to a reference. Each configuration runs once as bit terms (volta.equiv.bitproof):
configurations whose every output element is the same term are one class, by proof. Classes are then
separated by sampling: each representative runs concretely on the same random and adversarial inputs
(volta.equiv.bits), and the first input where two classes' words differ is their witness. Two classes
that no input separates stay apart, marked unproved: an under-merge, never an over-merge.
"""
from __future__ import annotations

import tomllib
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from volta.equiv.bitproof import TermMachine, element_terms
from volta.equiv.bits import GENERATORS, _seed, make_inputs, output_words
from volta.errors import Unsupported, UsageError
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.launch import args as kernel_args
from volta.launch.spec import KernelLaunch, LaunchSpec, parse_buffer, parse_dim3
from volta.ptx.parser import parse_file

CONFIG_KEYS = {"label", "ptx", "name", "grid", "block", "args", "shared_dynamic"}


@dataclass
class Config:
    label: str
    launch: KernelLaunch


@dataclass
class Separation:
    """Why two classes are apart: a witness input, or none found (unproved)."""
    a: int
    b: int
    witness: dict | None  # generator, trial, seed, buffer, index, bits of each


@dataclass
class Partition:
    configs: list
    classes: list = field(default_factory=list)        # lists of config indices, by proof
    unsupported: dict = field(default_factory=dict)    # config index -> reason
    separations: list = field(default_factory=list)    # Separation per pair of classes
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        return 3 if self.unsupported else 0


def load_configs(path: str | Path) -> tuple[list, dict, dict]:
    """(configs, buffers, symbols) from a manifest with [buffers] and one [[config]] table per kernel."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"no such manifest: {path}") from None
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"{path}: malformed TOML: {err}") from None
    unknown = set(data) - {"description", "buffers", "symbols", "config"}
    if unknown:
        raise UsageError(f"{path}: unknown key(s) {', '.join(sorted(unknown))} (a configurations manifest has "
                         f"description, [buffers], [symbols] and [[config]] tables)")
    tables = data.get("config")
    if not isinstance(tables, list) or len(tables) < 2:
        raise UsageError(f"{path}: give at least two [[config]] tables (label, ptx, name, grid, block, args)")
    configs = []
    for n, table in enumerate(tables, 1):
        extra = set(table) - CONFIG_KEYS
        if extra:
            raise UsageError(f"{path}: [[config]] number {n} has unknown key(s) {', '.join(sorted(extra))} "
                             f"(keys: {', '.join(sorted(CONFIG_KEYS))})")
        try:
            launch = KernelLaunch(path.parent / table["ptx"], table.get("name"), parse_dim3(table["grid"], "grid"),
                                  parse_dim3(table["block"], "block"), tuple(kernel_args.of(a) for a in table.get("args", ())),
                                  int(table.get("shared_dynamic", 0)))
        except KeyError as err:
            raise UsageError(f"{path}: [[config]] number {n} lacks the key {err}") from None
        configs.append(Config(str(table.get("label", f"config{n}")), launch))
    buffers = {name: parse_buffer(f"{name}={text}") for name, text in data.get("buffers", {}).items()}
    if not any(b.role in ("out", "inout") for b in buffers.values()):
        raise UsageError(f"{path}: declare at least one :out or :inout buffer to compare")
    return configs, buffers, dict(data.get("symbols", {}))


def partition(configs: list, buffers: dict, symbols: dict, fp: str = "ieee", trials: int = 2,
              seed: int = 0) -> Partition:
    start = time.perf_counter()
    result = Partition(configs)
    keys, progs = {}, {}
    for k, c in enumerate(configs):
        spec = LaunchSpec({"kernel": c.launch}, buffers, symbols)
        try:
            progs[k] = lower(parse_file(c.launch.ptx), c.launch.kernel)
            m = TermMachine(progs[k], c.launch, buffers, symbols, fp=fp).run()
        except Unsupported as err:
            result.unsupported[k] = str(err)
            continue
        if m.findings:
            result.unsupported[k] = f"findings: {', '.join(sorted({f.kind for f in m.findings}))}"
            continue
        terms = element_terms(m, spec)
        keys[k] = tuple((name, tuple(e.id if not isinstance(e, tuple) else e for e in elements))
                        for name, elements in sorted(terms.items()))
    by_key: dict = {}
    for k, key in keys.items():
        by_key.setdefault(key, []).append(k)
    result.classes = sorted(by_key.values())
    result.separations = _separate(result.classes, configs, progs, buffers, symbols, fp, trials, seed)
    result.seconds = time.perf_counter() - start
    return result


def _separate(classes, configs, progs, buffers, symbols, fp, trials, seed) -> list:
    """A witness input for each pair of classes, from concrete runs of their representatives."""
    reps = [members[0] for members in classes]
    pending = {(i, j) for i in range(len(reps)) for j in range(i + 1, len(reps))}
    found = {}
    spec = LaunchSpec({"ref": configs[reps[0]].launch, "opt": configs[reps[0]].launch}, buffers, symbols) if reps else None
    for g, gen in enumerate(GENERATORS):
        for trial in range(trials):
            if not pending:
                break
            s = _seed(seed, g, trial)
            inputs, scalars = make_inputs(spec, gen, s)
            words = []
            for r in reps:
                launch = configs[r].launch
                launch = replace(launch, args=kernel_args.with_scalars(launch.args, scalars))
                m = Machine(progs[r], launch, buffers, {}, inputs={k: v.copy() for k, v in inputs.items()},
                            structured=False, check_races=False, fp=fp).run()
                words.append(output_words(m, spec))
            for i, j in sorted(pending):
                for name in words[i]:
                    diff = np.flatnonzero(words[i][name] != words[j][name])
                    if diff.size:
                        x = int(diff[0])
                        found[(i, j)] = {"generator": gen, "trial": trial, "seed": s, "buffer": name, "index": x,
                                         "bits": [int(words[i][name][x]), int(words[j][name][x])]}
                        break
            pending -= set(found)
    return [Separation(i, j, found.get((i, j))) for i in range(len(reps)) for j in range(i + 1, len(reps))]
