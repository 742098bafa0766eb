"""``wlmap validate DEF... [--crd CRD]``: every problem of every definition file, located."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from wlmap.cli._exits import INVALID_DEFINITION, Exit
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command
from wlmap.definitions import Definition, load_definitions, validate_definition
from wlmap.definitions.schema_check import crd_problems
from wlmap.errors import DefinitionError, ManifestError, Problem
from wlmap.sources import read_manifests


@command("validate", short_help="Check definition files (optionally against CRDs).")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option(
    "--crd",
    "crds",
    multiple=True,
    type=click.Path(),
    metavar="FILE|DIR",
    help="CRDs whose OpenAPI schemas every read path must exist in.",
)
def validate(session: Session, paths: tuple[str, ...], crds: tuple[str, ...]) -> None:
    """Check each definition: structure, selectors, status mappings, gangs, and every jq
    expression (syntax, safety, whether jq compiles it, writable paths). With --crd, also
    prove every path it reads exists in the CRD's schema and every path it writes is a
    spec field."""
    schemas = _crds(crds)
    failed = False
    for path in paths:
        try:
            found = load_definitions(path)
        except DefinitionError as exc:
            failed = True
            _report(session, f"INVALID: {path}", exc.problems)
            continue
        for definition in found:
            problems = [p for p in validate_definition(definition) if p.severity == "warning"]
            schema_errors = _against_crd(definition, schemas)
            if schema_errors:
                failed = True
                _report(session, f"INVALID: {path}: {definition.name}", [*schema_errors, *problems])
            else:
                _report(session, f"OK: {path}: {definition.name} ({definition.root_gvk})", problems)
    if failed:
        raise Exit(INVALID_DEFINITION)


def _report(session: Session, head: str, problems: tuple[Problem, ...] | list[Problem]) -> None:
    session.output.data(head)
    session.output.data("\n".join(f"  - {p}" for p in problems))


def _crds(sources: tuple[str, ...]) -> dict[tuple[str, str], tuple[Mapping[str, Any], str]]:
    found: dict[tuple[str, str], tuple[Mapping[str, Any], str]] = {}
    for manifest in read_manifests(sources):
        obj = manifest.obj
        if obj.get("kind") != "CustomResourceDefinition":
            continue
        spec = obj.get("spec") or {}
        found[(str(spec.get("group")), str((spec.get("names") or {}).get("kind")))] = (
            obj,
            manifest.origin,
        )
    if sources and not found:
        raise ManifestError(f"no CustomResourceDefinition in {', '.join(sources)}")
    return found


def _against_crd(
    definition: Definition, schemas: Mapping[tuple[str, str], tuple[Mapping[str, Any], str]]
) -> list[Problem]:
    gvk = definition.root_gvk
    if not schemas or gvk is None or (gvk.group, gvk.kind) not in schemas:
        return []
    crd, origin = schemas[(gvk.group, gvk.kind)]
    return crd_problems(definition, crd, origin)
