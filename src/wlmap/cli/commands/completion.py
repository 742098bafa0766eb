"""``wlmap completion SHELL``: the shell completion script."""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command


@command("completion", short_help="Print a shell completion script.")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(session: Session, shell: str) -> None:
    """Print the completion script; e.g. ``source <(wlmap completion bash)``."""
    context = click.get_current_context()
    root = context.find_root()
    shell_class = get_completion_class(shell)
    assert shell_class is not None
    script = shell_class(root.command, {}, "wlmap", "_WLMAP_COMPLETE").source()
    session.output.data(script)
