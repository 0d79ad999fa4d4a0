"""The `volta` command: turns options into a config, calls the library, prints the report, exits.

Each subcommand lives in its own module and is loaded only when used, so `volta mma` never pays
for importing the executor and `volta parse` never imports z3. Every `VoltaError` becomes a
one-paragraph message on stderr and its exit code; nothing reaches the user as a traceback.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys

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


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="volta")
def cli():
    """Volta: prove GPU kernels equivalent, find races, replay them bit for bit."""


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code; commands return their own code (0 when they return None)."""
    try:
        result = cli.main(args=argv, standalone_mode=False)
    except VoltaError as err:
        click.echo(str(err), err=True)
        return err.exit_code
    except click.exceptions.Exit as ex:
        return ex.exit_code
    except click.ClickException as ex:
        ex.show()
        return 2
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 2
    return result if isinstance(result, int) else 0


def main() -> None:
    # exact rationals can outgrow Python's 4300-digit printing guard; a checker prints what it computed
    sys.set_int_max_str_digits(0)
    sys.exit(run(sys.argv[1:]))
