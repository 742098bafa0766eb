"""Registry entries compiled for evaluation, and the origin of entries read from a cluster.

Only the catalog's own definitions run on the shared in-process engine; every other one,
a cluster object's among them, runs on the untrusted engine (bounded in time, memory and
output size, libjq only in a killable worker process): :func:`wlmap.workload.prepare`
chooses.

This module needs no cluster client, so reading files never loads one.
"""

from __future__ import annotations

from typing import Any

from wlmap.definitions.registry import Entry
from wlmap.workload import CompiledDefinition, prepare

ORIGIN_PREFIX = "cluster"


def origin_of(obj: dict[str, Any]) -> str:
    """How an entry from a cluster object names where it came from."""
    return f"{ORIGIN_PREFIX}:{obj.get('kind')}/{(obj.get('metadata') or {}).get('name')}"


def is_from_cluster(origin: str) -> bool:
    """Whether a registry entry's origin is a cluster object."""
    return origin.startswith(f"{ORIGIN_PREFIX}:")


def prepare_entry(entry: Entry) -> CompiledDefinition:
    """An entry's compiled definition, on the engine its definition is trusted with."""
    return prepare(entry.definition)
