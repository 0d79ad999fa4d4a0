"""`volta check`: prove two kernels' outputs equal for every input (over the reals), or show an input where not.

    volta check ref.ptx opt.ptx --grid 4x4 --block 16x16 --args A,B,C,64,64,64 \\
        --buffer A=f32[4096]:in --buffer B=f32[4096]:in --buffer C=f32[4096]:out
    volta check examples/<pair>/manifest.toml
    volta check ... --replay counterexample.json      # re-execute both kernels on a saved input

Buffers are declared once, with a role, and shared by both kernels; `--ref-*`/`--opt-*` override the
shared `--kernel`, `--grid`, `--block`, `--args` for one kernel. Results go to stdout (text, `--json`
per volta/report/SCHEMA.md, or `--sarif`), `--junit FILE` also writes JUnit XML, progress goes to
stderr. Exit: 0 equivalent, 1 not equivalent or findings (race, deadlock, out of bounds…), 2 usage
or parse error, 3 unsupported or unknown. This module only turns options into a launch spec,
calls `volta.session.check.decide`, and prints what `volta.report` formats.
"""
from __future__ import annotations

import time
from pathlib import Path

import click

from volta.cli.bounds import bounded
from volta.cli.cuda_options import cuda_options
from volta.cli.exit_codes import epilog
from volta.cli.output_format import output_format
from volta.cli.progress import Progress
from volta.config import FP_MODES
from volta.errors import UsageError

PER_ROLE = ("kernel", "grid", "block", "args")


def _launch_options(f):
    for name in reversed(PER_ROLE):
        meta = {"kernel": "NAME", "grid": "X[xY[xZ]]", "block": "X[xY[xZ]]", "args": "A,B,..."}[name]
        for role in ("opt", "ref"):
            f = click.option(f"--{role}-{name}", f"{role}_{name}", metavar=meta,
                             help=f"{name.capitalize()} for the {role} kernel only (overrides --{name}).")(f)
    f = click.option("--args", metavar="A,B,...",
                     help="One entry per kernel parameter: a buffer name, a number or a --symbol.")(f)
    f = click.option("--block", metavar="X[xY[xZ]]", help="Block dimensions for both kernels, e.g. 16x16.")(f)
    f = click.option("--grid", metavar="X[xY[xZ]]", help="Grid dimensions for both kernels, e.g. 4x4.")(f)
    f = click.option("--kernel", metavar="NAME",
                     help="The .entry to run in both files (when they have several): its PTX name, or the name the "
                          ".cu file gives it when nvcc mangled it (softmax for _Z7softmaxPfi).")(f)
    return f


class _InOrder(click.Command):
    """Records the order of --ref-launch/--ref-step (and --opt-…) as given: click keeps each option's values in
    order but not the order between two options, and a host step runs where it stands among the launches."""

    def parse_args(self, ctx, args):
        order = {"ref": [], "opt": []}
        for a in args:
            for role in order:
                for kind in ("launch", "step"):
                    if a == f"--{role}-{kind}" or a.startswith(f"--{role}-{kind}="):
                        order[role].append(kind)
        ctx.meta["volta.step_order"] = order
        return super().parse_args(ctx, args)


@click.command("check", cls=_InOrder, epilog=epilog("check"))
@click.argument("targets", nargs=-1, type=click.Path(dir_okay=False))
@_launch_options
@click.option("--ref-launch", "ref_launch", multiple=True, metavar='"FILE[:KERNEL] grid=G block=B args=A,B"',
              help="One launch of the reference, in order (repeatable: a multi-kernel pipeline); instead of "
                   "REF.ptx and the launch options. Also takes shared=BYTES.")
@click.option("--opt-launch", "opt_launch", multiple=True, metavar='"FILE[:KERNEL] grid=G block=B args=A,B"',
              help="One launch of the optimized side, in order (repeatable), e.g. --opt-launch "
                   '"k.ptx:partial_sums grid=8 block=256 args=x,tmp,1024" --opt-launch "k.ptx:reduce grid=1 block=32 '
                   'args=tmp,out,8".')
@click.option("--ref-step", "ref_step", multiple=True, metavar='"memset BUF BYTE" | "copy SRC DST"',
              help="A host step of the reference's launch sequence, where it stands among the --ref-launch options: "
                   "cudaMemset of a buffer (every byte BYTE) or a device-to-device copy of SRC into DST.")
@click.option("--opt-step", "opt_step", multiple=True, metavar='"memset BUF BYTE" | "copy SRC DST"',
              help='A host step of the optimized side, in order with its --opt-launch options, e.g. --opt-step '
                   '"memset out 0" before an atomicAdd kernel, --opt-step "copy tmp out".')
@click.option("--buffer", multiple=True, metavar="NAME=DTYPE[N]:ROLE",
              help="A global buffer shared by both kernels; ROLE is in, out, inout or temp (an intermediate of a "
                   "launch sequence: not compared, not an input) (repeatable).")
@click.option("--symbol", multiple=True, metavar="NAME=f32", help="A float scalar kept symbolic (repeatable).")
@click.option("--global", "global_vars", multiple=True, metavar="NAME=VALUE",
              help="Set a module-scope .global variable for both launches, as cudaMemcpyToSymbol would "
                   "(repeatable).")
@click.option("--shared-dynamic", type=click.IntRange(min=0), default=None, metavar="BYTES",
              help="Dynamic shared memory per CTA in bytes.")
@click.option("--timeout-ms", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Solver time limit per output element.")
@click.option("--emit-smt", "emit_smt", type=click.Path(file_okay=False), metavar="DIR",
              help="Write each solver obligation (elements not identical) as SMT-LIB2 into DIR.")
@click.option("--save-counterexample", "save_cex", type=click.Path(dir_okay=False), metavar="FILE",
              help="Save a counterexample to FILE and print the command that replays it: FILE.npz holds every input "
                   "buffer as an array of its dtype (what a GPU run is given), any other name JSON with exact "
                   "values; nothing is written without it.")
@click.option("--replay", "replay_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Re-execute both kernels on a saved counterexample (.json or .npz) and print both values (exit 1 "
                   "if they differ).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema: volta/report/SCHEMA.md).")
@click.option("--sarif", "as_sarif", is_flag=True, help="Print SARIF 2.1.0 for code scanning.")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write JUnit XML to FILE.")
@click.option("--fp", default="real", show_default=True, metavar="real|ieee|ARCH",
              help="real: prove equivalence over the reals. ieee, volta, ampere, ada, hopper, blackwell: compare "
                   "the bits both kernels produce on random and adversarial inputs, and say where they part.")
@click.option("--ptxas", default=None, metavar="VERSION",
              help="With an architecture --fp: the ptxas that compiles the PTX, e.g. 12.6 (default: the nvcc "
                   "found, else 13.0); Hopper fp8 mma.sync depends on it.")
@click.option("--trials", type=click.IntRange(min=1), default=None,
              help="With a bit-exact --fp: input sets per generator [default: 4]. Over the reals, when addresses "
                   "depend on integer inputs: how many assignments of them to check (see --inputs).")
@click.option("--inputs", "inputs", metavar="MODE[,MODE…]", default=None,
              help="Over the reals, when addresses depend on integer inputs (an embedding lookup): the assignments "
                   "of those inputs to check, each with every float input symbolic: FILE.npz, random[:SEED] (within "
                   "a declared :range=LO..HI), zeros, equal, colliding. Default: every assignment when there are at "
                   "most 64, else random:0,zeros,equal,colliding (EQUIVALENT ON THESE INPUTS: not a proof).")
@click.option("--seed", type=int, default=0, show_default=True, help="With a bit-exact --fp: random seed.")
@click.option("--define-fn", "define_fn", multiple=True, metavar="NAME=exp|exp2|log|log2|sqrt|rsqrt|tanh|erf|sin|cos",
              help="Give an external function with no body its exact real meaning (else: uninterpreted).")
@click.option("--exact-constants", "exact_constants", is_flag=True,
              help="Over the reals: read every float literal as the rational it is. By default a literal that is the "
                   "correctly rounded value of log2 e, ln 2, pi, sqrt 2, sqrt(2/pi), ... (or a hi/lo split of one) "
                   "is read as that constant, so expf, __expf and exp2f(x*log2e) are one function.")
@click.option("--prove", is_flag=True,
              help="With a bit-exact --fp: prove every output element has the same bits for every input "
                   "(BIT-IDENTICAL), or show an input where they differ.")
@click.option("--batch-invariant", is_flag=True,
              help="With --prove: ref and opt are one kernel at two launch sizes; prove the elements the ref "
                   "launch writes have the same bits in both (the batch size does not change them).")
@click.option("--ulp", type=click.FloatRange(min=0), default=None, metavar="N",
              help="With a bit-exact --fp (sampled): elements at most N ULPs apart count as agreeing.")
@click.option("--rtol", type=click.FloatRange(min=0), default=None, metavar="R",
              help="With a bit-exact --fp (sampled): |ref - opt| <= atol + R*|ref| counts as agreeing.")
@click.option("--atol", type=click.FloatRange(min=0), default=None, metavar="A",
              help="With a bit-exact --fp (sampled): absolute tolerance (see --rtol).")
@click.option("--signed-zero", type=click.Choice(["equal", "differ"]), default="differ", show_default=True,
              help="With a bit-exact --fp (sampled): whether +0 and -0 count as the same value.")
@click.option("--out-init", type=click.Choice(["zeros", "undefined"]), default="zeros", show_default=True,
              help="How out buffers start: zeros (as after cudaMemset) or undefined (a read before the kernel "
                   "writes it is an UNINITIALIZED READ, as on a GPU without a memset).")
@click.option("--allow-exit-before-barrier", is_flag=True,
              help="Accept threads that exit before a __syncthreads() the rest of their block waits at "
                   "(undefined in CUDA; sm_70+ GPUs count exited threads as arrived).")
@click.option("--ctas", "ctas", metavar="SPEC", default=None,
              help="Over the reals: run only these CTAs of each kernel (corners, random:N[:SEED], or indices/"
                   "coordinates such as 0,5 or 0x0,3x1) and compare the outputs both write; the verdict says so.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@click.option("-v", "--verbose", is_flag=True, help="Every note at each place it was made (text output).")
@cuda_options
@bounded("check")
@output_format
def command(targets, buffer, symbol, shared_dynamic, timeout_ms, emit_smt, save_cex, replay_file,
            as_json, as_sarif, junit_file, quiet, fp, trials, seed, define_fn, arch, nvcc_flag,
            allow_exit_before_barrier, prove, batch_invariant, ulp=None, rtol=None, atol=None,
            signed_zero="differ", ctas=None, ptxas=None, inputs=None, exact_constants=False, verbose=False,
            out_init="zeros", global_vars=(), **launch) -> int:
    """Prove two PTX kernels equivalent over the reals, or find an input on which they differ.

    TARGETS is REF.ptx OPT.ptx (give --grid, --block, --args and --buffer NAME=DTYPE[N]:ROLE),
    or one manifest.toml with [ref], [opt] and [buffers] tables. A .cu file is compiled with nvcc first.
    """
    # start-up: the checker is loaded when a check runs, so `volta check --help` costs click and this module
    from volta.exec import limits  # start-up
    from volta.launch import globalvars  # start-up
    from volta.launch.spec import compile_sources, parse_define_fn, with_out_init  # start-up
    from volta.report import render  # start-up
    from volta.session.check import CheckOptions, decide  # start-up

    if as_json and as_sarif:
        raise UsageError("choose one of --json and --sarif")
    if ptxas is not None and fp in ("real", "ieee"):
        raise UsageError(f"--ptxas chooses a tensor-core row: give an architecture --fp (hopper, …), not {fp}")
    tensor = _tensor_setting(ptxas) if fp != "real" else None   # over the reals no tensor-core row is chosen
    spec, argv = _spec(targets, launch, buffer, symbol, shared_dynamic)
    globalvars.with_globals(spec, [globalvars.parse(g) for g in global_vars])
    argv += [f"--global={g}" for g in global_vars]
    report = None   # set here when --timeout runs out before the check starts (still a report, --json too)
    try:
        compile_sources(spec, arch, nvcc_flag)  # .cu inputs -> PTX (nvcc, cached)
        globalvars.check_declared(spec)
        limits.check_buffers(spec.buffers)  # before any input array is drawn (--max-memory)
        if ctas is not None:
            if fp != "real":
                raise UsageError("--ctas applies to the check over the reals (--fp real); the bit comparison runs "
                                 "every CTA")
            from volta.launch import ctas as cta_selection  # start-up

            cta_selection.select(spec, ctas, ("ref", "opt"))  # before preflight: its memory estimate counts them
            argv += ["--ctas", ctas]
        limits.preflight(spec, ("ref", "opt"), symbolic=fp == "real")  # both PTX files, kernels, args, memory: before running
    except limits.Timeout as err:
        if fp != "real" or replay_file is not None:
            raise
        from volta.equiv.check import timed_out  # start-up

        report = timed_out(spec, err, "reading the kernels")
    argv += (["--arch", arch] if arch else []) + [f"--nvcc-flag={f}" for f in nvcc_flag]
    spec.functions = dict(parse_define_fn(f) for f in define_fn)
    for name, meaning in spec.functions.items():
        argv += ["--define-fn", f"{name}={meaning}"]
    spec.allow_exit_before_barrier = allow_exit_before_barrier
    with_out_init(spec, out_init)
    argv += ["--out-init", out_init] if out_init != "zeros" else []
    argv += ["--allow-exit-before-barrier"] if allow_exit_before_barrier else []
    spec.exact_constants = spec.exact_constants or exact_constants   # (a manifest may say so too)
    argv += ["--exact-constants"] if exact_constants else []
    progress = None if quiet else (limits.current().progress or Progress("volta check"))

    if replay_file is not None:
        if as_sarif or junit_file:
            raise UsageError("--replay prints text or --json; drop --sarif/--junit")
        from volta.equiv.check import replay  # start-up
        from volta.report.check_report import ReplayResult  # start-up

        if not Path(replay_file).exists():
            raise UsageError(f"no such counterexample file: {replay_file}")
        values = replay(spec, replay_file)
        rep = ReplayResult(values["buffer"], values["index"], values["ref"], values["opt"], replay_file)
        click.echo(render(rep, "json" if as_json else "text"))
        return rep.exit_code

    if fp != "real":
        if inputs is not None:
            raise UsageError("--inputs chooses assignments of integer inputs for the check over the reals; a "
                             "bit-exact --fp draws its own inputs (--trials, --seed)")
        if batch_invariant and not prove:
            raise UsageError("--batch-invariant is a proof: add --prove")
        tolerance = _tolerance(ulp, rtol, atol, signed_zero, prove)
        if fp not in FP_MODES:
            raise UsageError(f"unknown --fp `{fp}`: choose real, {', '.join(FP_MODES)}")
        if as_sarif or junit_file or emit_smt or save_cex:
            raise UsageError("--sarif, --junit, --emit-smt and --save-counterexample apply to --fp real; "
                             "a bit-exact comparison prints text or --json")
        options = CheckOptions(fp=fp, prove=prove, batch_invariant=batch_invariant, trials=trials, seed=seed,
                               tolerance=tolerance, tensor=tensor)
        result = decide(spec, options)   # the bits compared, with where they part; or, --prove, a proof
        click.echo(render(result, "json" if as_json else "text"))
        return result.exit_code
    if prove or batch_invariant:
        raise UsageError("--prove proves bits identical: give a bit-exact --fp (ieee or an architecture)")
    if inputs is not None or trials is not None:
        from volta.session.races import trial_modes  # start-up

        trial_modes(inputs, trials)   # a bad --inputs/--trials is a usage error before anything runs
    if ulp is not None or rtol is not None or atol is not None or signed_zero != "differ":
        raise UsageError("--ulp, --rtol, --atol and --signed-zero relax a bit-exact comparison: give --fp ieee or "
                         "an architecture (over the reals, --fp real, equivalence is exact)")

    start = time.perf_counter()
    options = CheckOptions(trials=trials, timeout_ms=timeout_ms, emit_smt=emit_smt, inputs=inputs,
                           save_counterexample=save_cex)
    result = decide(spec, options, progress, argv, verbose, report)
    if progress is not None:
        progress.close()
        report = result.decision
        ti = report.stats.get("thread_instructions", 0)
        elements = f"{report.compared:,} element{'' if report.compared == 1 else 's'}"
        progress(f"{ti:,} thread-instructions, {elements} compared "
                 f"in {time.perf_counter() - start:.2f} s")
        if emit_smt:
            n = len(list(Path(emit_smt).glob("*.smt2")))
            progress(f"{n} SMT-LIB2 obligation(s) in {emit_smt}")

    if junit_file:
        try:
            Path(junit_file).write_text(render(result, "junit"))
        except OSError as err:
            raise UsageError(f"cannot write --junit {junit_file}: {err.strerror or err}") from None
    click.echo(render(result, "json" if as_json else "sarif" if as_sarif else "text"))
    return result.exit_code


def _tensor_setting(ptxas):
    """The tensor-core rows a bit-exact check uses: `--ptxas`, else the nvcc found (`nvcc --version`), else 13.0."""
    from volta.cuda import nvcc_release  # start-up
    from volta.numerics.mma_select import make_setting  # start-up

    return make_setting("mma", ptxas, nvcc_release())


def _tolerance(ulp, rtol, atol, signed_zero, prove):
    from volta.equiv.bits import Tolerance  # start-up

    tol = Tolerance(ulp, rtol, atol, signed_zero)
    if prove and tol.active:
        raise UsageError("--ulp, --rtol, --atol and --signed-zero apply to the sampled comparison; --prove proves "
                         "bit identity (drop one)")
    return tol


def _spec(targets, launch: dict, buffer, symbol, shared_dynamic):
    """(LaunchSpec, argv that re-creates it) from the positional targets and launch options."""
    from volta.launch.spec import load_manifest, pair_from_options, sequences_from_options  # start-up

    paths = [Path(t) for t in targets]
    for p in paths:
        if not p.exists():
            raise UsageError(f"no such file: {p}")
    if len(paths) == 1 and paths[0].suffix == ".toml":
        given = [k for k, v in launch.items() if v] + [k for k, v in (("buffer", buffer), ("symbol", symbol),
                                                                      ("shared_dynamic", shared_dynamic)) if v]
        if given:
            raise UsageError(f"{paths[0]} is a manifest: it gives both launches, so drop "
                             + ", ".join("--" + g.replace("_", "-") for g in given))
        spec = load_manifest(paths[0])
        missing = [r for r in ("ref", "opt") if r not in spec.launches]
        if missing:
            raise UsageError(f"{paths[0]} has no [{'] and ['.join(missing)}] table: volta check compares the "
                             f"[ref] and [opt] kernels of a pair manifest (use volta races for one kernel)")
        return spec, [str(paths[0])]
    steps = ("ref_launch", "opt_launch", "ref_step", "opt_step")
    if any(launch.get(k) for k in steps):
        given = [k for k, v in launch.items() if v and k not in steps]
        if paths or given or shared_dynamic:
            extra = [str(p) for p in paths] + ["--" + g.replace("_", "-") for g in given] + (
                ["--shared-dynamic"] if shared_dynamic else [])
            raise UsageError(f"--ref-launch/--opt-launch (and --ref-step/--opt-step) give each side's files and "
                             f"launches; drop {', '.join(extra)} "
                             f"(a launch's dynamic shared memory is its shared=BYTES)")
        if not buffer:
            raise UsageError("declare the buffers the launches share: --buffer NAME=DTYPE[N]:ROLE "
                             "(ROLE in, out, inout or temp)")
        order = click.get_current_context().meta.get("volta.step_order") or {
            role: ["launch"] * len(launch[f"{role}_launch"]) + ["step"] * len(launch[f"{role}_step"])
            for role in ("ref", "opt")}
        items = {}
        for role in ("ref", "opt"):
            given_in_order = {kind: iter(launch[f"{role}_{kind}"]) for kind in ("launch", "step")}
            items[role] = [(kind, next(given_in_order[kind])) for kind in order[role]]
        spec = sequences_from_options(items["ref"], items["opt"], buffer, symbol)
        argv = []
        for role in ("ref", "opt"):
            for kind, text in items[role]:
                argv += [f"--{role}-{kind}", text]
        for b in buffer:
            argv += ["--buffer", b]
        for s in symbol:
            argv += ["--symbol", s]
        return spec, argv
    if len(paths) != 2 or any(p.suffix == ".toml" for p in paths):
        raise UsageError(f"volta check takes two PTX files (REF.ptx OPT.ptx, or .cu sources) or one manifest.toml; "
                         f"got {len(paths)} file(s)" + (f": {', '.join(map(str, paths))}" if paths else ""))
    if not buffer:
        raise UsageError("declare the buffers both kernels share: --buffer NAME=DTYPE[N]:ROLE "
                         "(ROLE in, out or inout), e.g. --buffer x=f32[1024]:in --buffer y=f32[1024]:out")
    per_role = {role: {k: launch[f"{role}_{k}"] for k in PER_ROLE} for role in ("ref", "opt")}
    spec = pair_from_options(paths[0], paths[1], buffer, grid=launch["grid"], block=launch["block"],
                             args=launch["args"], kernel=launch["kernel"], ref=per_role["ref"],
                             opt=per_role["opt"], shared_dynamic=shared_dynamic or 0, symbols=symbol)
    argv = [str(paths[0]), str(paths[1])]
    for key in ("kernel", "grid", "block", "args"):
        if launch[key] is not None:
            argv += [f"--{key}", launch[key]]
        for role in ("ref", "opt"):
            if launch[f"{role}_{key}"] is not None:
                argv += [f"--{role}-{key}", launch[f"{role}_{key}"]]
    for b in buffer:
        argv += ["--buffer", b]
    for s in symbol:
        argv += ["--symbol", s]
    if shared_dynamic:
        argv += ["--shared-dynamic", str(shared_dynamic)]
    return spec, argv
