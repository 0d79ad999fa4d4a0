"""`volta races`: run a launch over the whole grid; report races, deadlocks, out-of-bounds and uninitialized reads.

    volta races kernel.ptx --kernel NAME --grid 8x1 --block 128 --args x,y,1024 \\
        --buffer x=f32[1024] --buffer y=f32[1024] [--arg NAME=V] [--shared-dynamic BYTES]
    volta races examples/<case>/manifest.toml          # a pair manifest analyzes ref and opt

Results go to stdout (text, `--json` per volta/report/SCHEMA.md, or `--sarif`); `--junit FILE` also
writes JUnit XML; progress goes to stderr. Exit: 0 clean, 1 findings, 2 usage or parse error,
3 unsupported (outside the structured class) or clean-for-inputs (a data-dependent kernel with no
finding on the concrete inputs tried: not a proof for every input). This module only turns options into a launch spec,
calls `volta.session.races`, and prints what `volta.report` formats.
"""
from __future__ import annotations

from pathlib import Path

import click

from volta.cli.bounds import bounded
from volta.cli.cuda_options import cuda_options
from volta.cli.exit_codes import epilog
from volta.cli.output_format import output_format
from volta.config import MAX_FINDINGS_SHOWN as DEFAULT_MAX_FINDINGS, SCHEDULE_BUDGET as DEFAULT_BUDGET
from volta.errors import UsageError

LAUNCH_OPTIONS = ("kernel", "grid", "block", "args", "buffer", "arg", "symbol", "shared_dynamic")


@click.command("races", epilog=epilog("races"))
@click.argument("target", type=click.Path(dir_okay=False))
@click.option("--kernel", "kernel", metavar="NAME", help="The .entry to run (needed when the file has several): its PTX name, or the .cu file's name for it.")
@click.option("--grid", metavar="X[xY[xZ]]", help="Grid dimensions, e.g. 8 or 8x4.")
@click.option("--block", metavar="X[xY[xZ]]", help="Block dimensions, e.g. 128 or 16x16.")
@click.option("--args", metavar="A,B,...", help="One entry per kernel parameter: a buffer name, a number or a symbol.")
@click.option("--buffer", multiple=True, metavar="NAME=DTYPE[N][:ROLE]", help="Declare a global buffer (repeatable).")
@click.option("--arg", multiple=True, metavar="PARAM=VALUE", help="Give one parameter by name (repeatable).")
@click.option("--symbol", multiple=True, metavar="NAME=f32", help="A scalar kept symbolic (repeatable).")
@click.option("--global", "global_vars", multiple=True, metavar="NAME=VALUE",
              help="Set a module-scope .global variable for the launch, as cudaMemcpyToSymbol would (repeatable).")
@click.option("--shared-dynamic", type=click.IntRange(min=0), default=None, metavar="BYTES",
              help="Dynamic shared memory per CTA in bytes.")
@click.option("--role", type=click.Choice(["kernel", "ref", "opt"]), default=None,
              help="With a manifest: analyze only this launch (default: all of them).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema: volta/report/SCHEMA.md).")
@click.option("--sarif", "as_sarif", is_flag=True, help="Print SARIF 2.1.0 for code scanning.")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Also write JUnit XML to FILE.")
@click.option("--max-findings", type=click.IntRange(min=0), default=DEFAULT_MAX_FINDINGS, show_default=True,
              help="Findings shown per kernel in text output (0: all).")
@click.option("--inputs", "inputs", metavar="MODE[,MODE…]", default=None,
              help="Concrete inputs for data-dependent kernels: FILE.npz, random[:SEED], zeros, equal (every "
                   "integer input one value), colliding (integer inputs in equal pairs); a comma list. Given, "
                   "the kernel always runs on them. Default when the all-inputs run stops for data: "
                   "random:0,zeros,equal,colliding.")
@click.option("--trials", type=int, default=None, metavar="N",
              help="How many concrete input sets (random:SEED with N gives seeds SEED..SEED+N-1).")
@click.option("--structured-only", is_flag=True,
              help="Never fall back to concrete inputs: a data-dependent kernel is UNSUPPORTED.")
@click.option("--lockstep-warps", is_flag=True,
              help="Assume pre-Volta lock-step warps (threads of a warp ordered instruction by instruction); "
                   "default: independent thread scheduling (sm_70+).")
@click.option("--allow-benign-races", is_flag=True,
              help="List races where every write stores the same value, but leave them out of the exit code.")
@click.option("--allow-ordering-races", is_flag=True,
              help="List ordering races (volatile/relaxed accesses that no fence orders: not undefined behaviour, "
                   "but the value read depends on the schedule), but leave them out of the exit code.")
@click.option("--schedules", type=click.IntRange(min=1), default=DEFAULT_BUDGET, show_default=True, metavar="N",
              help="Concrete mode: runs under different schedules of contended atomics (who wins a lock, who "
                   "draws which ticket), over all input sets (at least one each); every order when they fit, "
                   "else seeded random (PCT-style) ones.")
@click.option("--schedule-seed", type=int, default=0, show_default=True, metavar="S",
              help="Seed of the random schedules (PCT-style) of launches with more orders than --schedules.")
@click.option("--show-printf", is_flag=True,
              help="Concrete mode: show what the kernel's printf calls print (printf is a no-op otherwise).")
@click.option("--ctas", "ctas", metavar="SPEC", default=None,
              help="Run only these CTAs: corners, random:N[:SEED], or indices/coordinates such as 0,5 or 0x0,3x1 "
                   "(the report covers those CTAs only). Default: the whole grid.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@click.option("-v", "--verbose", is_flag=True, help="Every note at each place it was made (text output).")
@click.option("--out-init", type=click.Choice(["zeros", "undefined"]), default="zeros", show_default=True,
              help="How out buffers start: zeros (as after cudaMemset) or undefined (a read before the kernel "
                   "writes it is an UNINITIALIZED READ, as on a GPU without a memset).")
@click.option("--allow-exit-before-barrier", is_flag=True,
              help="Accept threads that exit before a __syncthreads() the rest of their block waits at "
                   "(undefined in CUDA; sm_70+ GPUs count exited threads as arrived).")
@cuda_options
@bounded("races")
@output_format
def command(target, kernel, grid, block, args, buffer, arg, symbol, shared_dynamic, role,
            as_json, as_sarif, junit_file, max_findings, quiet, arch, nvcc_flag, allow_exit_before_barrier,
            inputs=None, trials=None, structured_only=False, lockstep_warps=False, allow_benign_races=False,
            allow_ordering_races=False, schedules=DEFAULT_BUDGET, schedule_seed=0, show_printf=False,
            ctas=None, verbose=False, out_init="zeros", global_vars=()) -> int:
    """Find races, deadlocks, out-of-bounds accesses and uninitialized reads in one launch of a PTX kernel.

    TARGET is a .ptx file (give --grid, --block, --args and --buffer) or a manifest.toml; a .cu file
    is compiled with nvcc first.
    """
    # start-up: the analysis is loaded when it runs, so `volta races --help` costs click and this module
    from volta.launch import globalvars  # start-up
    from volta.launch.spec import compile_sources, from_options, load_manifest, with_out_init  # start-up
    from volta.report import render  # start-up
    from volta.session.races import RacesOptions, RacesResult, analyze, roles, trial_modes  # start-up

    if as_json and as_sarif:
        raise UsageError("choose one of --json and --sarif")
    path = Path(target)
    if not path.exists():
        raise UsageError(f"no such file: {target}")
    given = {"kernel": kernel, "grid": grid, "block": block, "args": args, "buffer": buffer, "arg": arg,
             "symbol": symbol, "shared_dynamic": shared_dynamic}
    if path.suffix == ".toml":
        extra = [name for name in LAUNCH_OPTIONS if given[name]]
        if extra:
            raise UsageError(f"{target} is a manifest: it gives the launch, so drop "
                             + ", ".join("--" + e.replace("_", "-") for e in extra))
        spec = load_manifest(path)
        chosen = roles(spec)
        if role is not None:
            if role not in spec.launches:
                raise UsageError(f"{target} has no [{role}] launch (it has: {', '.join(chosen)})")
            chosen = [role]
    else:
        if role not in (None, "kernel"):
            raise UsageError("--role applies to manifests; a PTX file gives one kernel")
        spec = from_options(path, kernel, grid, block, args, buffer, named_args=arg,
                            shared_dynamic=shared_dynamic or 0, symbols=symbol)
        spec.source = str(path)
        chosen = ["kernel"]

    globalvars.with_globals(spec, [globalvars.parse(g) for g in global_vars])
    compile_sources(spec, arch, nvcc_flag)  # .cu inputs -> PTX (nvcc, cached)
    globalvars.check_declared(spec)
    from volta.launch import ctas as cta_selection  # start-up

    cta_selection.select(spec, ctas, chosen)
    progress = None if quiet else (lambda line: click.echo(f"volta races: {line}", err=True))
    spec.allow_exit_before_barrier = allow_exit_before_barrier
    with_out_init(spec, out_init)
    if structured_only and (inputs is not None or trials is not None):
        raise UsageError("--structured-only never runs on concrete inputs: drop --inputs/--trials")
    trial_modes(inputs, trials)  # bad --inputs/--trials: a usage error before any run
    options = RacesOptions(inputs, trials, not structured_only, lockstep_warps, allow_benign_races,
                           allow_ordering_races, schedules, schedule_seed, show_printf)
    result = RacesResult([analyze(spec, r, progress, options) for r in chosen], spec.source)
    if not quiet:
        for r in result.reports:
            click.echo(f"volta races: {r.kernel}: {r.thread_instructions:,} thread-instructions, "
                       f"{r.steps:,} steps in {r.seconds:.2f} s", err=True)

    if junit_file:
        try:
            Path(junit_file).write_text(render(result, "junit"))
        except OSError as err:
            raise UsageError(f"cannot write --junit {junit_file}: {err.strerror or err}") from None
    if as_json:
        click.echo(render(result, "json"))
    elif as_sarif:
        click.echo(render(result, "sarif"))
    else:
        click.echo(render(result, "text", max_findings=max_findings, verbose=verbose))
    return result.exit_code
