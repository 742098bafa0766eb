"""A click group whose commands are imported when they run, not when the program starts.

Each command module pulls in what it needs (the models, the jq engine, the cluster
client); importing them all for ``wlmap --help`` cost most of a second.
"""

from __future__ import annotations

from importlib import import_module

import click

from wlmap.cli.commands import COMMANDS


class LazyGroup(click.Group):
    """Lists the commands of :data:`COMMANDS` and imports one only when it is looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *super().list_commands(ctx)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        declared = COMMANDS.get(cmd_name)
        if declared is None:
            return super().get_command(ctx, cmd_name)
        command = getattr(import_module(declared.module), declared.attribute)
        assert isinstance(command, click.Command), f"{declared} is not a click command"
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from the table (no command is imported)."""
        rows = [(name, declared.short_help) for name, declared in COMMANDS.items()]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
