"""`--timeout`, `--max-memory` and the opt-in `--max-steps`: the options that bound one command.

`bounded(name)` adds the options to a click command and runs its body inside `volta.exec.limits.using(...)`,
with a progress line on stderr for long runs unless `-q`. A run is bounded by time and memory: there is no
step cap unless `--max-steps` asks for one.
"""
from __future__ import annotations

import functools

import click

from volta.cli.progress import Progress


def bounded(command_name: str):
    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, max_memory=None, max_steps=None, timeout_s=None, **kwargs):
            from volta.exec import limits  # start-up: loaded by a run, not by the command's --help

            quiet = kwargs.get("quiet", False)
            progress = None if quiet else Progress(f"volta {command_name}")
            memory = limits.parse_memory(max_memory) if max_memory is not None else None
            try:
                with limits.using(max_memory=memory, max_steps=max_steps, timeout=timeout_s, progress=progress):
                    return f(*args, **kwargs)
            finally:
                if progress is not None:
                    progress.close()

        wrapper = click.option(
            "--max-steps", type=click.IntRange(min=1), default=None, metavar="N",
            help="Stop (UNSUPPORTED) after N machine steps [default: no cap; --timeout and --max-memory "
                 "bound a run].")(wrapper)
        wrapper = click.option(
            "--max-memory", default=None, metavar="SIZE",
            help="Refuse a launch whose estimated memory exceeds SIZE (e.g. 8G, 512M) "
                 "[default: half of this machine's memory].")(wrapper)
        wrapper = click.option(
            "--timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True), default=None,
            metavar="SECONDS",
            help="Bound the whole command (execution, and for check normalization, search and solver): what is "
                 "left undecided is UNKNOWN (exit 3), reported with the work done until then.")(wrapper)
        return wrapper

    return decorate
