"""Definitions stored in the cluster: ``WorkloadMap`` (wlmap.dev) and ``Karta`` (run.ai)
objects, merged over the built-in catalog per GVK.

Cluster definitions are untrusted input: each is validated on its own (one broken object
never hides the others), and their expressions run on an isolated engine whose libjq
fallback is a killable worker process (:mod:`wlmap.sources.entries`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wlmap.definitions.document import (
    KARTA_API_VERSIONS,
    KARTA_KIND,
    WLMAP_API_VERSION,
    WLMAP_KIND,
    Definition,
)
from wlmap.definitions.loading import definition_from_mapping
from wlmap.errors import DefinitionError, Problem
from wlmap.sources.cluster.connection import ApiError, Cluster
from wlmap.sources.cluster.discovery import Discovery
from wlmap.sources.cluster.listing import list_objects
from wlmap.sources.entries import (
    ORIGIN_PREFIX,
    is_from_cluster,
    origin_of,
    prepare_entry,
)

DEFINITION_TYPES = (
    (WLMAP_API_VERSION.split("/")[0], WLMAP_KIND),
    (KARTA_API_VERSIONS[0].split("/")[0], KARTA_KIND),
)


@dataclass
class StoredDefinitions:
    """Valid definitions from the cluster, and the problems of the invalid ones."""

    definitions: list[tuple[Definition, str]] = field(default_factory=list)
    invalid: dict[str, list[Problem]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def parse_stored(obj: dict[str, Any]) -> Definition:
    """One stored definition object, validated.

    Raises:
        DefinitionError: with every problem of the object.
    """
    document: dict[str, Any] = {
        k: obj[k] for k in ("apiVersion", "kind", "metadata", "spec") if k in obj
    }
    return definition_from_mapping(document, origin_of(obj))


async def read_stored(cluster: Cluster, discovery: Discovery) -> StoredDefinitions:
    """Every definition object the cluster serves (types not installed are skipped)."""
    stored = StoredDefinitions()
    for group, kind in DEFINITION_TYPES:
        resource = discovery.find(group, kind)
        if resource is None:
            continue
        try:
            objects = await list_objects(cluster, resource)
        except ApiError as exc:
            stored.warnings.append(f"cannot read {resource.qualified}: {exc}")
            continue
        for obj in sorted(objects, key=lambda o: str((o.get("metadata") or {}).get("name"))):
            try:
                stored.definitions.append((parse_stored(obj), origin_of(obj)))
            except DefinitionError as exc:
                stored.invalid[origin_of(obj)] = list(exc.problems)
    return stored


__all__ = [
    "DEFINITION_TYPES",
    "ORIGIN_PREFIX",
    "StoredDefinitions",
    "is_from_cluster",
    "origin_of",
    "parse_stored",
    "prepare_entry",
    "read_stored",
]
