"""`volta kernelbench PROBLEM.py CANDIDATE.py`: is a KernelBench candidate's ModelNew the problem's Model?

    volta kernelbench 19_ReLU.py my_relu.py                      # sizes scaled down, said in the report
    volta kernelbench 1_Square_matrix_multiplication_.py cand.py --size N=64 --ragged --json

The problem's `Model.forward` runs symbolically on a stand-in torch; the candidate's `load_inline` extension
is built with nvcc and its host code run to capture every launch, which Volta's machine executes; every
output element is compared over the reals (`volta/kernelbench/check.py`). The whole check runs in a confined
worker process and only its validated JSON comes back (`volta/kernelbench/isolation/confined.py`,
docs/sandbox.md). Exit: 0 equivalent, 1 not equivalent, findings (also when --ragged finds one; the
reward-hack findings of docs/reward-hacks.md) or rejected, 2 usage error, 3 unsupported or unknown.
This module only turns options into a call and prints what `volta.report` formats.
"""
from __future__ import annotations

from pathlib import Path

import click

from volta.cli.bounds import bounded
from volta.cli.exit_codes import epilog
from volta.errors import UsageError


def parse_sizes(items) -> dict:
    """`--size NAME=VALUE` (an int, or a tuple `3,224,224`; `4096,` is a one-element tuple) as a dict."""
    sizes = {}
    for item in items:
        name, eq, value = item.partition("=")
        name = name.strip()
        try:
            numbers = [int(v, 0) for v in value.replace("(", "").replace(")", "").split(",") if v.strip()]
        except ValueError:
            numbers = []
        if not eq or not name or not numbers or min(numbers) < 1:
            raise UsageError(f"bad --size `{item}`: expected NAME=VALUE with a positive integer (or a comma list "
                             f"for a tuple), e.g. --size batch_size=2 --size dim=512")
        sizes[name] = numbers[0] if len(numbers) == 1 and "," not in value else tuple(numbers)
    return sizes


@click.command("kernelbench", epilog=epilog("kernelbench"))
@click.argument("problem", type=click.Path(dir_okay=False))
@click.argument("candidate", type=click.Path(dir_okay=False))
@click.option("--size", "size", multiple=True, metavar="NAME=VALUE",
              help="Set a size global of the problem (and of the candidate), e.g. --size batch_size=2 "
                   "(repeatable); the others are scaled down and the report says to what.")
@click.option("--ragged", is_flag=True,
              help="Also check at sizes that are not multiples of typical tile sizes (reported apart).")
@click.option("--timeout-ms", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Solver time limit per output element.")
@click.option("--save-counterexample", "save_cex", type=click.Path(dir_okay=False), metavar="FILE.npz",
              help="Save a confirmed counterexample as get_inputs-shaped arrays (numpy .npz).")
@click.option("--eval", "eval_mode", is_flag=True,
              help="Check both models in eval mode (model.eval() after construction); the default is training "
                   "mode, as KernelBench builds and calls them.")
@click.option("--atol", type=click.FloatRange(min=0), default=None, metavar="X",
              help="Evaluate a candidate that computes through narrower formats (float16, bfloat16, TF32) than the "
                   "reference in its actual precision: PASS within atol + rtol*|ref| on the inputs tried. "
                   "KernelBench's float32 tolerance is 1e-2 (the other defaults to it).")
@click.option("--rtol", type=click.FloatRange(min=0), default=None, metavar="X",
              help="Relative tolerance of that evaluation (see --atol).")
@click.option("--arch", default="sm_80", show_default=True, metavar="sm_XX", help="The device code's target.")
@click.option("--require-kernel", is_flag=True,
              help="Fail (a finding, exit 1) when an output element is computed by torch ops alone, with no custom "
                   "kernel taking part.")
@click.option("--explain", is_flag=True, help="Say in plain words what the candidate did, for each finding.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema: volta/report/SCHEMA.md).")
@click.option("--sarif", "as_sarif", is_flag=True, help="Print SARIF 2.1.0 for code scanning.")
@click.option("--junit", "as_junit", is_flag=True, help="Print JUnit XML (one failed testcase per finding).")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@bounded("kernelbench")
def command(problem, candidate, size, ragged, timeout_ms, save_cex, eval_mode, atol, rtol, arch, require_kernel,
            explain, as_json, as_sarif, as_junit, quiet) -> int:
    """Check a KernelBench candidate (ModelNew with load_inline CUDA) against its problem's Model."""
    from volta.cuda import check_arch  # start-up
    from volta.exec import limits  # start-up
    from volta.kernelbench.check import CheckOptions  # start-up
    from volta.kernelbench.isolation import confined  # start-up
    from volta.kernelbench.precision import KERNELBENCH_TOLERANCE  # start-up

    if as_json + as_sarif + as_junit > 1:
        raise UsageError("choose one of --json, --sarif and --junit")
    for path, what in ((problem, "problem"), (candidate, "candidate")):
        if not Path(path).is_file():
            raise UsageError(f"no such {what} file: {path}")
    if save_cex is not None and not str(save_cex).endswith(".npz"):
        raise UsageError(f"--save-counterexample {save_cex}: the file is a numpy archive; name it FILE.npz")
    tolerance = None
    if atol is not None or rtol is not None:
        tolerance = (KERNELBENCH_TOLERANCE if atol is None else atol, KERNELBENCH_TOLERANCE if rtol is None else rtol)
    if limits.current().progress is not None:
        limits.current().progress("checking in a confined worker (docs/sandbox.md)")
    options = CheckOptions(ragged=ragged, timeout_ms=timeout_ms, arch=check_arch(arch), require_kernel=require_kernel,
                           eval_mode=eval_mode, tolerance=tolerance)
    answer = confined.run(problem, candidate, parse_sizes(size), options, save_counterexample=save_cex,
                          explain=explain)
    limits.disarm()
    fmt = "json" if as_json else "sarif" if as_sarif else "junit" if as_junit else "text"
    click.echo(answer.rendered[fmt])
    return answer.exit_code
