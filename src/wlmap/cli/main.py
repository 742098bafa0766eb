"""Entry point of ``wlmap`` (and of ``kubectl wlmap``): the command group and its options."""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import click

from wlmap.cli import _exits
from wlmap.cli._lazy import LazyGroup
from wlmap.cli._session import Session


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=_exits.HELP,
)
@click.option(
    "--definitions",
    "definitions",
    multiple=True,
    metavar="DIR|FILE",
    help="Extra definition files or folders; they override built-in ones for the same kind.",
)
@click.option(
    "--kubeconfig",
    metavar="FILE",
    envvar="KUBECONFIG",
    help="Kubeconfig for live mode (default: $KUBECONFIG, ~/.kube/config, in-cluster).",
)
@click.option("--context", metavar="NAME", help="Kubeconfig context for live mode.")
@click.version_option(package_name="wlmap")
@click.pass_context
def cli(
    ctx: click.Context,
    definitions: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
) -> None:
    """Structure, GPUs, health and gangs of any AI workload on Kubernetes.

    Commands read files with -f; get and describe without -f read the current cluster.
    """
    ctx.obj = Session(definitions, kubeconfig=kubeconfig, context=context)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    # pydantic looks for plugins in every installed distribution's entry points when the
    # first model is built (15 ms of each start); wlmap's models are its own business.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        cli.main(
            args=list(argv) if argv is not None else None, prog_name="wlmap", standalone_mode=False
        )
    except _exits.Exit as done:
        return done.code
    except click.ClickException as exc:
        exc.show()
        return _exits.USAGE
    except click.exceptions.Abort:
        return _exits.ERROR
    except click.exceptions.Exit as done:
        return done.exit_code
    return _exits.OK


def run() -> NoReturn:
    """Entry point of the installed ``wlmap`` and ``kubectl-wlmap`` commands.

    Runs :func:`main`, flushes the output, runs the ``atexit`` handlers, and leaves without
    tearing the interpreter down: freeing every module and object at exit cost about
    45 ms of each 250 ms ``describe``, for nothing a finished command needs.
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):  # the reader went away (``wlmap get | head``)
        code = code or _exits.ERROR
    atexit._run_exitfuncs()
    os._exit(code)
