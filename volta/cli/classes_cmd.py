"""`volta classes`: bit-equivalence classes of kernel configurations that compute one function.

    volta classes configs.toml [--fp ieee|ARCH] [--trials N] [--seed S] [--json]

The manifest has [buffers] (shared by every configuration), optional [symbols], and one [[config]]
table per configuration with the keys of a [kernel] table plus a `label`. Classes are proved (every
output element the same bit term); each pair of classes gets the witness input that separates it,
or is marked unseparated (not proved identical, no difference found). Exit 0, or 3 when a
configuration could not be analyzed.
"""
from __future__ import annotations

import json

import click

from volta.cli.exit_codes import epilog
from volta.config import FP_MODES
from volta.errors import UsageError


@click.command("classes", epilog=epilog("classes"))
@click.argument("manifest", type=click.Path(dir_okay=False))
@click.option("--fp", default="ieee", show_default=True, metavar="ieee|ARCH", help="The bit-exact float model.")
@click.option("--trials", type=click.IntRange(min=1), default=2, show_default=True,
              help="Input sets per generator when separating classes.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of the inputs.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(manifest, fp, trials, seed, as_json) -> int:
    """Partition the [[config]] kernels of MANIFEST into classes with identical bits for every input."""
    from volta.equiv.classes import load_configs, partition  # start-up

    if fp not in FP_MODES:
        raise UsageError(f"unknown --fp `{fp}`: choose {', '.join(FP_MODES)}")
    configs, buffers, symbols = load_configs(manifest)
    result = partition(configs, buffers, symbols, fp=fp, trials=trials, seed=seed)
    click.echo(_json(result, fp) if as_json else _text(result, fp))
    return result.exit_code


def _labels(result, members) -> str:
    return ", ".join(result.configs[k].label for k in members)


def _text(result, fp) -> str:
    n = len(result.classes)
    lines = [f"{n} bit-equivalence class{'es' if n != 1 else ''} among {len(result.configs)} configurations "
             f"(--fp {fp}; members of a class are proved bit-identical for every input):"]
    for c, members in enumerate(result.classes, 1):
        lines.append(f"  class {c}: {_labels(result, members)}")
    for s in result.separations:
        pair = f"class {s.a + 1} / class {s.b + 1}"
        if s.witness is None:
            lines.append(f"  {pair}: no input tried separates them, and they are not proved identical")
        else:
            w = s.witness
            lines.append(f"  {pair}: {w['buffer']}[{w['index']}] differs on `{w['generator']}` inputs (trial "
                         f"{w['trial']}, seed {w['seed']}): {w['bits'][0]:#x} vs {w['bits'][1]:#x}")
    for k, why in result.unsupported.items():
        lines.append(f"  not classified: {result.configs[k].label}: {why}")
    lines.append(f"({result.seconds:.1f} s)")
    return "\n".join(lines)


def _json(result, fp) -> str:
    return json.dumps({
        "schema": "volta.classes/1", "fp": fp,
        "configs": [{"label": c.label, "ptx": str(c.launch.ptx), "kernel": c.launch.kernel} for c in result.configs],
        "classes": [[result.configs[k].label for k in members] for members in result.classes],
        "separations": [{"classes": [s.a + 1, s.b + 1], "witness": s.witness} for s in result.separations],
        "unsupported": {result.configs[k].label: why for k, why in result.unsupported.items()},
        "seconds": result.seconds, "exit_code": result.exit_code,
    }, indent=2)
