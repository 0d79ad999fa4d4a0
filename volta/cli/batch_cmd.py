"""`volta batch JOBS.jsonl`: run many check/races/run jobs in parallel, one JSON result per line.

    volta batch jobs.jsonl --workers 8 --out results.jsonl          # local process pool
    volta batch jobs.jsonl --out results.jsonl --resume             # after an interruption: skip finished ids
    volta batch jobs.jsonl --ray                                    # a local Ray instance (pip install 'volta[ray]')
    volta batch jobs.jsonl --ray=ray://head:10001                   # a Ray cluster (volta installed on its workers)

The job format and the result line are described in `volta.batch` (and README "Batch"). Each job runs in its own
process with `--timeout` seconds and `--memory-mb` of address space; a job past its limit is `timeout` or
`memory`, never a verdict. Results stream to stdout (or `--out`, appended with `--resume`) as the jobs finish;
a progress line per finished job (done/total, jobs not ok and with findings, the ETA) and a summary table at the
end go to stderr (not with `-q`).

Exit codes: 0 every job exited 0; 2 a job was bad input (or the jobs file is); else 1 a job found something
(not equivalent, findings); else 3 (unsupported, unknown, timeout, memory).
"""
from __future__ import annotations

import click

from volta.cli.exit_codes import epilog

from volta.batch import run_batch
from volta.cli.progress import Progress


@click.command("batch", epilog=epilog("batch"))
@click.argument("jobs", type=click.Path(exists=True, dir_okay=False))
@click.option("--workers", "-j", type=click.IntRange(min=1), default=None,
              help="Jobs at a time (default: the CPU count; with --ray, Ray schedules one CPU per job).")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Write the JSON result lines here instead of stdout.")
@click.option("--resume", is_flag=True, help="Append to --out, skipping job ids it already holds.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0), default=300.0, show_default=True,
              help="Seconds per job (0: no limit): the job's own deadline, less a grace to report in (then UNKNOWN with "
                   "the work done, as --timeout); a job still running at the limit is killed, verdict timeout.")
@click.option("--memory-mb", type=click.IntRange(min=0), default=4096, show_default=True,
              help="Address space a job may add, in MB, to what its forked process maps (RLIMIT_AS; 0: no limit).")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="Run the jobs on Ray: a local instance, or --ray=ADDRESS of a cluster (give --ray after JOBS, "
                   "or --ray=ADDRESS, so it does not take JOBS as its address).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines or summary table on stderr.")
def command(jobs, workers, out, resume, timeout_s, memory_mb, ray_address, quiet) -> int:
    """Run the jobs in JOBS (one JSON object per line) and print one JSON result per line."""
    import os

    progress = None if quiet else Progress("volta batch")
    try:
        summary = run_batch(jobs, workers=workers or os.cpu_count() or 1, out=out, resume=resume,
                            timeout_s=timeout_s or None, memory_mb=memory_mb or None,
                            ray_address=None if ray_address == "local" else ray_address,
                            use_ray=ray_address is not None, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    if not quiet:
        click.echo(summary.table(), err=True)
    return summary.exit_code
