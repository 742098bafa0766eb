"""``wlmap validate DEF...``: every problem of every definition file, each located."""

from __future__ import annotations

import click

from wlmap.cli._exits import INVALID_DEFINITION, Exit
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command
from wlmap.definitions import load_definitions, validate_definition
from wlmap.errors import DefinitionError


@command("validate", short_help="Check definition files.")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
def validate(session: Session, paths: tuple[str, ...]) -> None:
    """Check each definition: structure, selectors, status mappings, gangs, and every jq
    expression (syntax, safety, whether jq compiles it, writable paths)."""
    failed = False
    for path in paths:
        try:
            found = load_definitions(path)
        except DefinitionError as exc:
            failed = True
            session.output.data(f"INVALID: {path}")
            session.output.data("\n".join(f"  - {p}" for p in exc.problems))
            continue
        for definition in found:
            warnings = [p for p in validate_definition(definition) if p.severity == "warning"]
            session.output.data(f"OK: {path}: {definition.name} ({definition.root_gvk})")
            session.output.data("\n".join(f"  - {p}" for p in warnings))
    if failed:
        raise Exit(INVALID_DEFINITION)
