"""``wlmap describe``: each workload's component tree, resources, status and gangs, from
files (``-f``) or from the cluster (``TYPE[/NAME]``, optionally ``--watch``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from wlmap.cli._exits import NO_DEFINITION, Exit
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, output_option
from wlmap.views.tree import render_tree

if TYPE_CHECKING:
    from wlmap.app.live import LiveRead, Request
    from wlmap.sources.manifests import Manifest
    from wlmap.sources.workloads import Found


@command("describe", short_help="Show the structure of workloads (files or cluster).")
@click.argument("type_", metavar="[TYPE[/NAME]]", required=False)
@click.argument("name", metavar="[NAME]", required=False)
@file_option(required=False)
@click.option("-n", "--namespace", help="Namespace (live mode; default: the context's).")
@click.option("-A", "--all-namespaces", is_flag=True, help="Every namespace (live mode).")
@click.option("-l", "--selector", help="Label selector on the workloads (live mode).")
@click.option("-w", "--watch", is_flag=True, help="Print again whenever the workload changes.")
@click.option(
    "--timeout", type=click.FloatRange(min=0), help="Stop watching after this many seconds."
)
@output_option("table", "json", "yaml")
def describe(
    session: Session,
    type_: str | None,
    name: str | None,
    files: tuple[str, ...],
    namespace: str | None,
    all_namespaces: bool,
    selector: str | None,
    watch: bool,
    timeout: float | None,
    fmt: str,
) -> None:
    """Show workloads: components, pods (ready/total), GPUs, status and gangs.

    With -f, every workload in the files; objects owned by another workload in the input
    (a Job of a JobSet, a Pod of a Deployment) appear under their owner. Without -f, the
    workloads of TYPE (or TYPE/NAME) in the cluster, with their pods.
    """
    if type_ and "/" in type_:
        if name:
            raise click.UsageError("give TYPE/NAME or TYPE NAME, not both")
        type_, name = type_.split("/", 1)
    if files:
        if type_ or watch:
            raise click.UsageError("TYPE and --watch read the cluster; leave out -f")
        _show(session, session.files(files), fmt)
        return
    if not type_:
        raise click.UsageError("give a TYPE[/NAME] to read from the cluster, or -f FILE")
    from wlmap.app.live import Request  # noqa: PLC0415 - live mode only

    request = Request(type_, name, namespace, all_namespaces, selector)
    if watch:
        _watch(session, request, fmt, timeout)
        return
    live = session.live_read(request)
    _show(session, live.manifests, fmt, live)


def _watch(session: Session, request: Request, fmt: str, timeout: float | None) -> None:
    """Print the workloads, then again (after ``---``) each time what is shown changes."""
    shown: list[str] = []  # the last text printed

    def changed(live: LiveRead) -> None:
        session.use_registry(live.registry)
        text = _render(session, live, fmt)
        if not shown or text != shown[-1]:
            session.output.data(text if not shown else f"---\n{text}")
            sys.stdout.flush()
            shown[:] = [text]

    def gone(reason: str) -> None:
        session.output.data(f"--- {reason}")

    session.cluster.watch(request, changed, gone, timeout)


def _show(
    session: Session, manifests: list[Manifest], fmt: str, live: LiveRead | None = None
) -> None:
    reading = session.read(manifests, pods_listed=live is not None and live.pods_listed)
    uncovered = reading.uncovered
    session.warn_uncovered(uncovered)
    shown = _shown(reading.found, live)
    session.warn_views(shown)
    if shown or fmt != "table":
        session.output.data(_text(session, shown, fmt))
    if uncovered and not shown:
        raise Exit(NO_DEFINITION)


def _render(session: Session, live: LiveRead, fmt: str) -> str:
    found = session.read(live.manifests, pods_listed=live.pods_listed).found
    return _text(session, _shown(found, live), fmt)


def _shown(found: list[Found], live: LiveRead | None) -> list[Found]:
    """Top-level workloads of files; in live mode, the workloads of the requested type
    (the pods and owners read beside them are not shown on their own)."""
    if live is None or live.resource is None:
        return [f for f in found if f.top_level]
    wanted = (live.resource.group, live.resource.kind)
    return [
        f
        for f in found
        if (
            str(f.manifest.obj.get("apiVersion", "")).rpartition("/")[0],
            f.manifest.obj.get("kind"),
        )
        == wanted
    ]


def _text(session: Session, shown: list[Found], fmt: str) -> str:
    if fmt == "table":
        return "\n\n".join(render_tree(f.view, f.origin) for f in shown)
    items = [f.view.to_dict() for f in shown]
    payload = items[0] if len(items) == 1 else {"items": items, "count": len(items)}
    return session.output.format(payload, fmt)
