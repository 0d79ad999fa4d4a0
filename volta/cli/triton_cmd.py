"""`volta triton LAUNCHER.py:FUNCTION [--ref REF.py:FUNCTION]`: a Triton launcher as its host code launches it.

    volta triton examples/triton/launchers/norms.py:layer_norm_fwd --ref examples/triton/launchers/reference.py:layer_norm
    volta triton launcher.py:fused_add --ref ref.py:fused_add --size rows=4 --size cols=64 --json
    volta triton launcher.py:fused_add                          # races, bounds, uninitialized reads only

The launcher runs on a stand-in torch; every `kernel[grid](...)` it makes is compiled as Triton would compile
that launch and executed by Volta's machine; the torch code around the launches runs on the stand-in too.
The reference (plain torch) runs on the same inputs, which the reference's file (else the launcher's) gives
with `get_inputs()` and top-level sizes (`--size NAME=VALUE`). Exit: 0 equivalent (or clean without --ref),
1 not equivalent or findings, 2 usage error, 3 unsupported or unknown (`volta/kernelbench/triton_check.py`).
This module only turns options into a call and prints what `volta.report` formats.
"""
from __future__ import annotations

import click

from volta.cli.exit_codes import epilog

from volta.cli.bounds import bounded
from volta.errors import UsageError


def parse_sizes(items) -> dict:
    """`--size NAME=VALUE` (a positive int) as a dict."""
    sizes = {}
    for item in items:
        name, eq, value = item.partition("=")
        try:
            number = int(value, 0)
        except ValueError:
            number = 0
        if not eq or not name.strip() or number < 1:
            raise UsageError(f"bad --size `{item}`: expected NAME=VALUE with a positive integer, e.g. --size cols=64")
        sizes[name.strip()] = number
    return sizes


@click.command("triton", epilog=epilog("triton"))
@click.argument("launcher", metavar="LAUNCHER.py:FUNCTION")
@click.option("--ref", metavar="REF.py:FUNCTION", help="The reference in plain torch (its file gives get_inputs()).")
@click.option("--size", "size", multiple=True, metavar="NAME=VALUE",
              help="Set a top-level size of the file that defines get_inputs (repeatable).")
@click.option("--sms", type=click.IntRange(min=1), default=4, show_default=True,
              help="Multiprocessors torch.cuda.get_device_properties reports (persistent grids).")
@click.option("--timeout-ms", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Solver time limit per output element.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema volta.triton/1: volta/report/SCHEMA.md).")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@bounded("triton")
def command(launcher, ref, size, sms, timeout_ms, as_json, quiet) -> int:
    """Check a Triton launcher (its kernels as it launches them) against a torch reference."""
    from volta.exec import limits  # start-up
    from volta.kernelbench.triton_check import check  # start-up
    from volta.report import render  # start-up

    progress = None if quiet else limits.current().progress
    result = check(launcher, ref, parse_sizes(size), timeout_ms=timeout_ms, sms=sms, progress=progress)
    limits.disarm()
    click.echo(render(result, "json" if as_json else "text"))
    return result.exit_code
