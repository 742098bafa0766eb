"""Reading a live cluster: connection, discovery, paged listing, owners, stored definitions.

The result of a read is the same list of manifests a dump file gives (``snapshot``), so
views and commands do not know whether their input came from a file or a server.
"""

from wlmap.sources.cluster.connection import ApiError, Cluster
from wlmap.sources.cluster.definitions import (
    StoredDefinitions,
    is_from_cluster,
    origin_of,
    parse_stored,
    prepare_entry,
    read_stored,
)
from wlmap.sources.cluster.discovery import ApiResource, Discovery, discover
from wlmap.sources.cluster.listing import list_many, list_objects
from wlmap.sources.cluster.snapshot import Scope, Snapshot, read_snapshot
from wlmap.sources.cluster.watching import watch_events

__all__ = [
    "ApiError",
    "ApiResource",
    "Cluster",
    "Discovery",
    "Scope",
    "Snapshot",
    "StoredDefinitions",
    "discover",
    "is_from_cluster",
    "list_many",
    "list_objects",
    "origin_of",
    "parse_stored",
    "prepare_entry",
    "read_snapshot",
    "read_stored",
    "watch_events",
]
