"""The `volta` command: turns options into a config, calls the library, prints the report, exits.

Each subcommand lives in its own module and is loaded only when used, so `volta mma` never pays
for importing the executor and `volta parse` never imports z3. Every `VoltaError` becomes a
one-paragraph message on stderr and its exit code; nothing reaches the user as a traceback. Any other
exception is a bug in Volta: it becomes one `internal error` paragraph naming the exception and the line
of Volta that raised it, exit 3 (nothing is claimed); `VOLTA_TRACEBACK=1` shows the traceback instead.
"""
from __future__ import annotations

import gc
import importlib
import importlib.util
import os
import sys
import traceback
from pathlib import Path

import click

from volta.errors import VoltaError

# name -> (module defining a click command called `command`, the line `volta --help` shows for it);
# the line is kept here so that `volta --help` lists the commands without importing any of them
COMMANDS = {
    "parse": ("volta.cli.parse_cmd", "Parse PTX; report each kernel's parameters, registers, opcodes."),
    "races": ("volta.cli.races_cmd", "Find races, deadlocks, out-of-bounds and uninitialized reads."),
    "check": ("volta.cli.check_cmd", "Prove two kernels equivalent, or find an input where they differ."),
    "run": ("volta.cli.run_cmd", "Replay a kernel on concrete inputs; report outputs and findings."),
    "mma": ("volta.cli.mma_cmd", "One tensor-core dot product, bit for bit as an architecture does."),
    "classes": ("volta.cli.classes_cmd", "Split kernel configs into classes with the same bits on any input."),
    "batch": ("volta.cli.batch_cmd", "Run jobs given as JSON lines; print one JSON result per job."),
    "triton": ("volta.cli.triton_cmd", "Check a Triton launcher's kernels and torch glue against torch."),
    "kernelbench": ("volta.cli.kernelbench_cmd", "Check a load_inline candidate against its KernelBench problem."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(name for name, (module, _) in COMMANDS.items() if importlib.util.find_spec(module))

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        return importlib.import_module(COMMANDS[name][0]).command

    def format_commands(self, ctx, formatter):
        """The command list from COMMANDS' summaries (click's own would import every command for its help)."""
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100,
                                                     "terminal_width": 100})
@click.version_option(package_name="volta")
def cli():
    """Volta: prove GPU kernels equivalent, find races, replay them bit for bit."""


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code; commands return their own code (0 when they return None)."""
    try:
        result = cli.main(args=argv, standalone_mode=False)
    except VoltaError as err:
        from volta.cuda import shown_in  # start-up: nvcc's helpers load for a message, not for --help

        click.echo(shown_in(str(err)), err=True)   # a .cu input named as given, not by its cache path
        return err.exit_code
    except click.exceptions.Exit as ex:
        return ex.exit_code
    except click.ClickException as ex:
        ex.show()
        return 2
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 2
    except Exception as err:   # a bug: one paragraph, never a traceback (unless asked for)
        if os.environ.get("VOLTA_TRACEBACK"):
            raise
        click.echo(internal_error(err), err=True)
        return INTERNAL_ERROR_EXIT
    return result if isinstance(result, int) else 0


INTERNAL_ERROR_EXIT = 3  # nothing is claimed, as for UNSUPPORTED and UNKNOWN


def internal_error(err: BaseException) -> str:
    """`internal error: OverflowError: … (raised at volta/exec/machine.py:926 in lane_bits_constants) …`."""
    package = Path(__file__).resolve().parents[1]
    where = ""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        path = Path(frame.filename)
        if package in path.parents:   # the innermost line of Volta's own code
            where = f" (raised at {path.relative_to(package.parent)}:{frame.lineno} in {frame.name})"
            break
    message = " ".join(str(err).split())
    return (f"internal error: {type(err).__name__}{': ' + message if message else ''}{where}. This is a bug in "
            f"Volta, not a verdict on the kernel: nothing is claimed. Please report it with the command line "
            f"(VOLTA_TRACEBACK=1 shows the traceback).")


def main() -> None:
    # exact rationals can outgrow Python's 4300-digit printing guard; a checker prints what it computed
    sys.set_int_max_str_digits(0)
    code = run(sys.argv[1:])
    # The command has printed its report and closed the files it wrote. What is left is the interpreter's
    # shutdown, whose garbage collection walks every object the process made (~60 ms CPU, a sixth of a reduction
    # pair's whole process): frozen, they are left to the OS to free. atexit handlers and the flush of stdout and
    # stderr still run (Python does both before that collection).
    gc.freeze()
    sys.exit(code)
