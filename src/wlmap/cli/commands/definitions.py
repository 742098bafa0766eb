"""``wlmap definitions list|show``: the merged definitions and where each came from."""

from __future__ import annotations

import click

from wlmap.app.types import resolve_type
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, output_option
from wlmap.views.table import render_table


@click.group("definitions", short_help="List or show workload definitions.")
def definitions() -> None:
    """The definitions in use: built-in ones, overridden by --definitions files."""


@command("list", short_help="List the definitions in use.")
@output_option("table", "json", "yaml")
def list_definitions(session: Session, fmt: str) -> None:
    """One row per definition (named group-kind-version): kind, origin and components."""
    entries = sorted(session.registry, key=lambda e: e.definition.name)
    if fmt != "table":
        items = [
            e.definition.model_dump(mode="json", by_alias=True, exclude_none=True) for e in entries
        ]
        session.output.document({"items": items, "count": len(items)}, fmt)
        return
    rows = []
    for entry in entries:
        gvk = entry.definition.root_gvk
        names = [c.name for c in entry.definition.components()]
        rows.append(
            [
                entry.definition.name,
                gvk.kind if gvk else "<none>",
                entry.origin,
                ", ".join(names),
            ]
        )
    session.output.data(
        render_table(["NAME", "KIND", "ORIGIN", "COMPONENTS"], rows, session.output.width)
    )


@command("show", short_help="Show one definition as YAML.")
@click.argument("type_", metavar="TYPE")
@output_option("yaml", "json", default="yaml")
def show_definition(session: Session, type_: str, fmt: str) -> None:
    """The definition covering TYPE (kind, plural, kind.group or kind.version.group)."""
    gvk = resolve_type(session.registry, type_)
    entry = session.registry.find(gvk.api_version, gvk.kind)
    assert entry is not None
    session.output.document(
        entry.definition.model_dump(mode="json", by_alias=True, exclude_none=True), fmt
    )


definitions.add_command(list_definitions)
definitions.add_command(show_definition)
