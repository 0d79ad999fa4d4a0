"""`volta run`: replay a kernel on the CPU, bit for bit, on concrete inputs.

    volta run kernel.ptx --grid 8 --block 128 --args x,y,1024 --inputs in.npz --out out.npz --fp hopper
    volta run examples/gemm_naive/manifest.toml [--inputs in.npz|random[:SEED]|zeros] [--seed 0] [--out out.npz]
    volta run examples/gemm_naive/manifest.toml --inputs A_only.npz --inputs random   # the rest filled knowingly
    volta run kernel.cu --arch sm_80 --grid 8 --block 128 --args x,y,1024 --buffer x=f32[1024]:in ...

Buffers named in `--args` take dtype and size from the arrays of the same name in `--inputs` (or from
`--buffer NAME=DTYPE[COUNT]`, for outputs or to override); every buffer's final contents go to `--out` under
its name. Without `--inputs` (or with `--inputs random[:SEED]`), every declared buffer the kernel reads (role
in/inout) is drawn deterministically from `--seed` (default 0); `--inputs zeros` starts them at zero; `out`
buffers always start zeroed. An .npz must name buffers of the launch and give every buffer the kernel reads (a
misnamed or missing array is a usage error, never silently zero); `--inputs FILE.npz --inputs random|zeros`
fills the ones the file lacks. Generated inputs are saved in `--out` too, as `input.NAME`, and stderr always
says which inputs were used. A `.cu` TARGET is compiled with nvcc first (`--arch`, `--nvcc-flag`). Each instruction rounds as its PTX says; `mma`/`wmma`/`wgmma` use the `--fp`
architecture's tensor-core model. Data may steer branches and addresses. Races, deadlocks and out-of-bounds
accesses are reported for this input in the same form as `volta races`.

Exit codes: 0 clean, 1 findings, 2 usage error (a buffer with no array, an array naming no buffer, dtype/size
mismatch, bad --fp),
3 unsupported (an instruction without semantics) or unknown (`--timeout` ran out: the report still comes, with
the work done and no outputs).

`--json` prints one object: {"verdict", "exit_code", "timed_out", "kernel", "ptx", "grid", "block", "fp", "seed",
"buffers": {NAME: {"dtype", "shape", "role", "min", "max", "mean", "nan", "inf"}}, "findings": [Finding.to_json()],
"thread_instructions", "seconds", "out", "notes", "tensor_cores": [{"name", "arch", "inst", "in", "acc", "toolkits",
"structure", "source", "ptxas", "ptxas_from"}]} — each tensor-core row the run used (the text report prints them as
`tensor cores:` lines). `--ptxas VERSION` is the ptxas that would compile the PTX (default: the nvcc found, else
13.0); Hopper fp8 `mma.sync` depends on it (docs/numerics.md, "Which instruction, which toolkit").
"""
from __future__ import annotations

import json

import click

from volta.cli.bounds import bounded
from volta.cli.cuda_options import cuda_options
from volta.cli.exit_codes import epilog
from volta.cli.output_format import output_format
from volta.config import FP_MODES
from volta.errors import UsageError


@click.command("run", epilog=epilog("run"))
@click.argument("target", type=click.Path(exists=True, dir_okay=False))
@click.option("--kernel", default=None, help="Kernel (.entry) name; with a manifest: its [kernel]/[ref]/[opt] table.")
@click.option("--grid", default=None, help="Grid size: X, XxY or XxYxZ.")
@click.option("--block", default=None, help="Block size: X, XxY or XxYxZ.")
@click.option("--args", "args", default=None, help="Kernel arguments in order: buffer names and numbers.")
@click.option("--arg", "named_args", multiple=True, help="One parameter by name: NAME=VALUE (repeatable).")
@click.option("--buffer", "buffers", multiple=True, help="NAME=DTYPE[COUNT][:ROLE] (outputs, or to override).")
@click.option("--inputs", multiple=True, metavar="FILE.npz|random[:SEED]|zeros",
              help="Input arrays (.npz: one array per input buffer, named as it), or generated: random (default, "
                   "from --seed) or zeros. Give it twice, FILE.npz then random or zeros, to fill the buffers the "
                   "file lacks.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None, help="Write every buffer here (.npz).")
@click.option("--shared-dynamic", type=int, default=None, help="Dynamic shared memory bytes.")
@click.option("--global", "global_vars", multiple=True, metavar="NAME=VALUE",
              help="Set a module-scope .global variable for the launch, as cudaMemcpyToSymbol would (repeatable).")
@click.option("--fp", type=click.Choice(("real", *FP_MODES)), default="ieee", show_default=True,
              help="Float semantics: IEEE scalars plus this architecture's tensor-core model.")
@click.option("--ptxas", default=None, metavar="VERSION",
              help="The ptxas that compiles the PTX, e.g. 12.6 (default: the nvcc found, else 13.0); Hopper fp8 "
                   "mma.sync depends on it.")
@click.option("--seed", type=int, default=None, help="Seed for random inputs (default 0).")
@click.option("--no-races", is_flag=True, help="Skip race detection (faster).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option("--sarif", "as_sarif", is_flag=True, help="Print SARIF 2.1.0 (this run's findings) instead of text.")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write JUnit XML here (a clean run is <skipped>: one input proves nothing about others).")
@click.option("--out-init", type=click.Choice(["zeros", "undefined"]), default="zeros", show_default=True,
              help="How out buffers start: zeros (as after cudaMemset) or undefined (a read before the kernel "
                   "writes it is an UNINITIALIZED READ, as on a GPU without a memset).")
@click.option("--allow-exit-before-barrier", is_flag=True,
              help="Accept threads that exit before a __syncthreads() the rest of their block waits at "
                   "(undefined in CUDA; sm_70+ GPUs count exited threads as arrived).")
@click.option("--ctas", "ctas", metavar="SPEC", default=None,
              help="Run only these CTAs: corners, random:N[:SEED], or indices/coordinates such as 0,5 or 0x0,3x1 "
                   "(the other CTAs' outputs keep their initial values). Default: the whole grid.")
@click.option("-q", "--quiet", is_flag=True, help="No progress line on stderr for long runs.")
@click.option("-v", "--verbose", is_flag=True, help="Every note at each place it was made (text output).")
@cuda_options
@bounded("run")
@output_format
def command(target, kernel, grid, block, args, named_args, buffers, inputs, out_path, shared_dynamic, fp, seed,
            no_races, as_json, arch, nvcc_flag, allow_exit_before_barrier=False, quiet=False, as_sarif=False,
            junit_file=None, ctas=None, ptxas=None, verbose=False, out_init="zeros", global_vars=()) -> int:
    """Run TARGET (a .ptx file, or a manifest.toml) on concrete inputs; report outputs and findings."""
    # start-up: the replay is loaded when it runs, so `volta run --help` costs click and this module
    from volta.cuda import nvcc_release  # start-up
    from volta.exec import limits  # start-up
    from volta.launch import globalvars  # start-up
    from volta.launch.spec import compile_sources, with_out_init  # start-up
    from volta.numerics.mma_select import make_setting  # start-up
    from volta.report import run_report  # start-up
    from volta.session import replay  # start-up

    if as_json and as_sarif:
        raise UsageError("choose one of --json and --sarif")
    tensor = make_setting("mma", ptxas, nvcc_release())  # the instruction comes from the PTX, per mma
    scalars = {}
    if target.endswith(".toml"):
        spec, role = replay.spec_from_manifest(target, kernel)
        scalars = {n: v for n, _, v in (a.partition("=") for a in named_args) if n in spec.symbols}
        named_args = tuple(a for a in named_args if a.partition("=")[0] not in spec.symbols)
        _override(spec, role, grid, block, args, named_args, buffers, shared_dynamic)
    else:
        spec = replay.spec_from_options(target, kernel, grid, block, args, buffers, named_args, shared_dynamic or 0)
        role = "kernel"
    globalvars.with_globals(spec, [globalvars.parse(g) for g in global_vars])
    compile_sources(spec, arch, nvcc_flag)  # .cu inputs -> PTX (nvcc, cached)
    globalvars.check_declared(spec)
    from volta.launch import ctas as cta_selection  # start-up

    picked = cta_selection.select(spec, ctas, [role]).get(role)
    limits.check_buffers(spec.buffers)  # before any input array is drawn (--max-memory)
    spec.allow_exit_before_barrier = allow_exit_before_barrier
    with_out_init(spec, out_init)
    given, fill = _inputs_and_fill(inputs)
    result = replay.replay(spec, role, given, seed, fill=fill, fp=fp, check_races=not no_races, scalars=scalars,
                           tensor=tensor, out=out_path,
                           progress=lambda line: click.echo(f"volta run: {line}", err=True))
    if result.error is not None:
        raise result.error   # exit 3 with its message, as any instruction outside the model
    if picked:
        result.notes.append(cta_selection.run_note(picked, spec.launches[role].grid))
    if as_sarif or junit_file:
        from volta.report import junit, sarif  # start-up

        races = run_report.to_races(result)
        if junit_file:
            try:
                with open(junit_file, "w") as fh:
                    fh.write(junit.format(races))
            except OSError as err:
                raise UsageError(f"cannot write {junit_file}: {err.strerror or err}") from None
    if as_sarif:
        doc = sarif.to_dict(races)
        doc["runs"][0]["invocations"][0]["exitCode"] = result.exit_code
        click.echo(json.dumps(doc, indent=2))
    elif as_json:
        click.echo(json.dumps(run_report.to_json(result), indent=2))
    else:
        click.echo(run_report.format_text(result, verbose))
    return result.exit_code


def _inputs_and_fill(given: tuple) -> tuple:
    """`--inputs` given at most twice: (FILE.npz | random[:SEED] | zeros | None, the fill for the rest or None)."""
    from volta.session import replay  # start-up

    if len(given) > 2 or (len(given) == 2 and not replay.is_fill(given[1])):
        raise UsageError(f"--inputs {' --inputs '.join(given)}: give --inputs once (FILE.npz, random[:SEED] or "
                         f"zeros), or twice as FILE.npz then random[:SEED] or zeros to fill what the file lacks")
    return (given[0] if given else None), (given[1] if len(given) == 2 else None)


def _override(spec, role, grid, block, args, named_args, buffers, shared_dynamic):
    """Command-line options given with a manifest replace the manifest's values."""
    import dataclasses

    from volta.launch.args import entries  # start-up
    from volta.launch.spec import parse_buffer, parse_dim3, parse_named  # start-up

    launch = spec.launches[role]
    changes = {}
    if grid:
        changes["grid"] = parse_dim3(grid, "grid")
    if block:
        changes["block"] = parse_dim3(block, "block")
    if args is not None:
        changes["args"] = entries(args)
    if named_args:
        changes["named"] = parse_named(named_args)
    if shared_dynamic is not None:
        changes["shared_dynamic"] = shared_dynamic
    if changes and spec.sequences.get(role):
        raise UsageError(f"[{role}] is a launch sequence: give each launch's grid, block, args and shared memory in "
                         f"its [[{role}.launch]] table, not on the command line")
    if changes:
        spec.launches[role] = dataclasses.replace(launch, **changes)
    for text in buffers:
        buf = parse_buffer(text)
        spec.buffers[buf.name] = buf
