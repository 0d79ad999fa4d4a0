"""`volta parse FILE... [--json]`: parse and decode PTX files, report each kernel's shape.

Text output, per `.entry`: name, parameters (name and type), registers by type (count from the
`.reg` declarations, `%r<39>` counting 39), static shared bytes (the kernel's own `.shared`
declarations plus the module-level ones it or its callees reference) and whether it uses dynamic
`.extern .shared` memory, instruction count and the base-opcode histogram.

`--json` prints one object:

    {"files": [{"file": "a.ptx", "ok": true, "error": null,
                "version": "8.0", "target": ["sm_80"],
                "kernels": [{"name": "k",
                             "params": [{"name": "k_param_0", "type": ".u64", "attrs": [".ptr", ".global"]}],
                             "registers": {".b32": 12, ".pred": 3},
                             "shared": {"static_bytes": 4096, "variables": ["smem"], "dynamic": false},
                             "instructions": 40,
                             "opcodes": {"ld": 6, "add": 5}}]},
               {"file": "bad.ptx", "ok": false, "error": "bad.ptx:3:7: parse error: …", "kernels": []}]}

A file that fails gives a one-paragraph error (file:line:col) on stderr; the other files are
still reported, and the exit code is 2 if any file failed.
"""
from __future__ import annotations

import json

import click

from volta.cli.exit_codes import epilog

from volta.errors import UsageError, VoltaError
from volta.ptx.decode import decode_module
from volta.ptx.parser import parse_file
from volta.ptx.summary import KernelSummary, summarize


@click.command("parse", epilog=epilog("parse"))
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option("--no-cache", is_flag=True, help="Parse even when the content is in the cache.")
def command(files: tuple[str, ...], as_json: bool, no_cache: bool) -> int:
    """Parse and decode PTX FILEs; report parameters, registers, shared memory and opcodes per kernel."""
    reports, failed = [], False
    for path in files:
        try:
            if path.endswith(".cu"):
                raise UsageError(f"{path} is CUDA source and volta parse reads PTX: give the PTX "
                                 f"(nvcc -ptx -lineinfo {path}); volta check, races and run compile .cu files themselves")
            module = parse_file(path, use_cache=not no_cache)
            decode_module(module)
            kernels = summarize(module)
            reports.append({"file": path, "ok": True, "error": None, "version": module.version,
                            "target": list(module.target), "kernels": kernels})
        except VoltaError as err:
            failed = True
            click.echo(" ".join(str(err).split()), err=True)
            reports.append({"file": path, "ok": False, "error": " ".join(str(err).split()), "kernels": ()})
    if as_json:
        for r in reports:
            r["kernels"] = [k.to_json() for k in r["kernels"]]
        click.echo(json.dumps({"files": reports}, indent=2))
    else:
        for r in reports:
            if r["ok"]:
                click.echo(format_text(r["file"], r["kernels"]))
    return 2 if failed else 0


def format_text(path: str, kernels) -> str:
    if not kernels:
        return f"{path}: no kernels"
    return "\n".join(_kernel_text(path, k) for k in kernels)


def _kernel_text(path: str, k: KernelSummary) -> str:
    params = ", ".join(f"{p.name} {p.type}" for p in k.params) or "none"
    regs = ", ".join(f"{t} {n}" for t, n in k.registers.items()) or "none"
    shared = f"{k.shared_static_bytes} static bytes"
    if k.shared_variables:
        shared += f" ({', '.join(k.shared_variables)})"
    shared += ", dynamic .extern .shared" if k.dynamic_shared else ", no dynamic"
    ops = ", ".join(f"{op} {n}" for op, n in k.opcodes.items())
    return (
        f"{path}: kernel {k.name}\n"
        f"  params:       {params}\n"
        f"  registers:    {regs}\n"
        f"  shared:       {shared}\n"
        f"  instructions: {k.instructions}\n"
        f"  opcodes:      {ops}"
    )
