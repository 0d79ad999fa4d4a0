"""`--arch` and `--nvcc-flag`, shared by the commands that accept `.cu` inputs (check, races, run)."""
from __future__ import annotations

import click


def cuda_options(f):
    """Add `--arch SM` and repeatable `--nvcc-flag FLAG` (keyword arguments `arch`, `nvcc_flag`)."""
    f = click.option("--nvcc-flag", "nvcc_flag", multiple=True, metavar="FLAG",
                     help="With .cu inputs: one more nvcc flag, e.g. --nvcc-flag=-DTILE=32 (repeatable).")(f)
    f = click.option("--arch", "arch", default=None, metavar="sm_XX",
                     help="With .cu inputs: nvcc -arch (default sm_80); nvcc always gets -ptx -lineinfo.")(f)
    return f
