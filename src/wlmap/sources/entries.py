"""Registry entries compiled for evaluation, on an engine chosen by where they came from.

Definitions read from a cluster are untrusted input: their expressions run on the
untrusted engine (bounded in time, memory and output size, libjq only in a killable worker
process), as does every other definition not shipped with wlmap (see
:func:`wlmap.workload.prepare`); the catalog runs on the shared in-process engine.

This module needs no cluster client, so reading files never loads one.
"""

from __future__ import annotations

from typing import Any

from wlmap import jq
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
    """An entry's compiled definition: on the untrusted engine when it came from a
    cluster (as every definition not shipped with wlmap is, see :func:`prepare`)."""
    engine = untrusted_engine() if is_from_cluster(entry.origin) else None
    return prepare(entry.definition, engine)


def untrusted_engine() -> jq.Engine:
    """The isolated engine that evaluates definitions read from a cluster."""
    return jq.untrusted_engine()
