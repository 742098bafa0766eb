"""``wlmap get TYPE -f`` / ``--all-types``: list workloads with phase, pods and GPUs."""

from __future__ import annotations

import click

from wlmap.app.types import resolve_type
from wlmap.cli._exits import NO_DEFINITION, Exit
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, output_option
from wlmap.cli.commands._selectors import matches_selector, parse_selector
from wlmap.definitions import STATUS_ORDER, GenericStatus
from wlmap.errors import WorkloadNotFoundError
from wlmap.views.listing import Listed, render_listing

PHASES = [s.value for s in (*STATUS_ORDER, GenericStatus.UNDEFINED)]


@command("get", short_help="List workloads of a type, or of every mapped type (files or cluster).")
@click.argument("type_", metavar="[TYPE[/NAME]]", required=False)
@click.argument("name", metavar="[NAME]", required=False)
@click.option("--all-types", is_flag=True, help="Every mapped kind; only top-level workloads.")
@file_option(required=False)
@click.option("-n", "--namespace", help="Only this namespace.")
@click.option(
    "-A", "--all-namespaces", is_flag=True, help="Every namespace (the default for files)."
)
@click.option("-l", "--selector", help="Label selector on the workload (k=v, k!=v, k, !k).")
@click.option(
    "--phase", "phases", multiple=True, type=click.Choice(PHASES), help="Only these phases."
)
@output_option()
def get(
    session: Session,
    type_: str | None,
    name: str | None,
    all_types: bool,
    files: tuple[str, ...],
    namespace: str | None,
    all_namespaces: bool,
    selector: str | None,
    phases: tuple[str, ...],
    fmt: str,
) -> None:
    """List workloads sorted by namespace, kind and name.

    TYPE is a kind, its plural or short form, or kind.group / kind.version.group; with a
    NAME (``TYPE/NAME`` or ``TYPE NAME``) only that workload, and exit code 3 when absent.
    Without -f the current cluster is read: the context's namespace unless -n or -A.
    """
    if bool(type_) == all_types:
        raise click.UsageError("give a TYPE or --all-types (not both)")
    if type_ and "/" in type_:
        if name:
            raise click.UsageError("give TYPE/NAME or TYPE NAME, not both")
        type_, name = type_.split("/", 1)
    required = parse_selector(selector) if selector else []
    uncovered = []
    if files:
        gvk = resolve_type(session.registry, type_) if type_ else None
        manifests = session.files(files)
        listing = session.listing(manifests)
        listed = listing.rows
        uncovered = listing.uncovered if gvk is None else []
    else:
        from wlmap.app.live import Request  # noqa: PLC0415 - live mode only

        live = session.live_read(Request(type_, name, namespace, all_namespaces, selector))
        gvk, namespace, all_namespaces = live.gvk, live.namespace, live.namespace is None
        listed = session.listing(live.manifests, pods_listed=live.pods_listed).rows

    def keep(item: Listed) -> bool:
        group = (item.api_version or "").rpartition("/")[0]
        if gvk is not None and (item.kind, group) != (gvk.kind, gvk.group):
            return False
        if gvk is None and not item.top_level:
            return False
        if namespace and not all_namespaces and item.namespace != namespace:
            return False
        if phases and not set(item.phases) & set(phases):
            return False
        if name and item.name != name:
            return False
        return matches_selector(item.labels, required)

    items = sorted(
        (i for i in listed if keep(i)),
        key=lambda i: (i.namespace or "", i.kind or "", i.name or ""),
    )
    session.warn_uncovered(uncovered)
    for item in items:
        for warning in item.warnings:
            session.output.warn(f"{item.kind}/{item.name}: {warning}")
    if name and not items:
        raise WorkloadNotFoundError(f"{type_} {name!r} is not in the input")  # files only
    if fmt in ("json", "yaml"):
        listed_items = [i.to_dict() for i in items]
        single = name is not None and len(listed_items) == 1
        payload = listed_items[0] if single else {"items": listed_items, "count": len(items)}
        session.output.document(payload, fmt)
    elif items:
        session.output.data(
            render_listing(
                items, wide=fmt == "wide", show_kind=all_types, width=session.output.width
            )
        )
    elif listed or not uncovered:
        session.output.warn("no workloads found")
    if (type_ and gvk is None) or (uncovered and not items):
        raise Exit(NO_DEFINITION)
