"""How a command is declared: click command, the session passed in, errors mapped, output flushed."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from wlmap.cli._exits import guarded
from wlmap.cli._session import Session

OUTPUT_FORMATS = ("table", "wide", "json", "yaml")


def command(name: str, **settings: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """Declare a command whose function takes the :class:`Session` first."""

    def decorate(function: Callable[..., Any]) -> click.Command:
        @wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            session = click.get_current_context().find_object(Session)
            assert session is not None, "the wlmap group always sets the session"
            try:
                return guarded(function)(session, *args, **kwargs)
            finally:
                session.output.flush()

        declared: click.Command = click.command(name, **settings)(run)  # type: ignore[no-untyped-call]  # click's overloads lose the type with **settings
        return declared

    return decorate


def output_option(*choices: str, default: str = "table") -> Callable[[Any], Any]:
    """``-o/--output`` limited to the formats a command renders."""
    return click.option(
        "-o",
        "--output",
        "fmt",
        type=click.Choice(choices or OUTPUT_FORMATS),
        default=default,
        show_default=True,
        help="Output format.",
    )


def file_option(
    required: bool = True, help: str = "Manifests to read (YAML, JSON, List dumps)."
) -> Callable[[Any], Any]:
    """``-f/--filename``: files, folders or ``-`` for standard input (repeatable)."""
    return click.option(
        "-f",
        "--filename",
        "files",
        multiple=True,
        required=required,
        metavar="FILE|DIR|-",
        type=click.Path(allow_dash=True),
        help=help,
    )


def levels_option(
    *, required: bool, metavar: str = "KEY[,KEY...]", help: str
) -> Callable[[Any], Any]:
    """``--levels``: topology level keys, coarsest first, comma-separated or repeated; the
    command gets them as one list of keys."""

    def keys(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> list[str]:
        return [k.strip() for value in values for k in value.split(",") if k.strip()]

    return click.option(
        "--levels",
        "levels",
        multiple=True,
        required=required,
        metavar=metavar,
        callback=keys,
        help=help,
    )
