"""The workloads of a live cluster, kept current by watches, as the page's documents.

The workloads come from :class:`~wlmap.app.watched.WatchedWorkloads` (as ``wlmap metrics
serve`` reads them): each one interpreted again keeps its row and its Workload page and
``publish`` is told of the new row; a deleted workload's row is dropped and ``publish``
told its key. A page view reads only these documents: nothing is listed per view, and a
change costs the workloads it touches.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wlmap.app.watched import Interpreted, WatchedWorkloads
from wlmap.sources.cluster.cache import ClusterCache
from wlmap.sources.cluster.object_index import type_key
from wlmap.web.documents import workload_detail, workload_row

if TYPE_CHECKING:
    from wlmap.app.live import Connected

__all__ = ["BATCH_SECONDS", "Shown", "WorkloadFeed"]

BATCH_SECONDS = 0.1
"""How long the feed waits after a change for the changes that come with it."""

Publish = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Shown:
    """One workload as the pages show it: its row, its page, and what access it needs."""

    key: int
    group: str
    kind: str
    namespace: str | None
    row: dict[str, Any]
    detail: dict[str, Any]


class WorkloadFeed:
    """Keeps every top-level workload's documents current with a cluster.

    Args:
        connected: the connection, what the server serves and the definitions in use.
        publish: told ``{"op": "put", "row": ...}`` or ``{"op": "delete", "key": ...}``
            for every change, from the feed's event loop.
    """

    def __init__(self, connected: Connected, publish: Publish) -> None:
        self._publish = publish
        self.workloads = WatchedWorkloads(
            connected, self, batch_seconds=BATCH_SECONDS, what="web page"
        )
        self._keys: dict[str, int] = {}  # uid -> the page's key
        self._next_key = itertools.count()  # a deleted workload's key is never reused
        self._shown: dict[int, Shown] = {}
        self._lock = threading.Lock()  # the server's threads read what the loop writes

    @property
    def cache(self) -> ClusterCache:
        """The watch-fed cache of the workloads, their pods and claims."""
        return self.workloads.cache

    # -- what the pages read (any thread) -------------------------------------------------

    def shown(self) -> list[Shown]:
        """Every top-level workload, as last interpreted."""
        with self._lock:
            return list(self._shown.values())

    def get(self, key: int) -> Shown | None:
        """One workload by its key."""
        with self._lock:
            return self._shown.get(key)

    # -- what the watched workloads tell (WorkloadHandler) ----------------------------------

    def interpreted(self, workload: Interpreted) -> None:
        key = self._keys.get(workload.uid)
        if key is None:
            key = self._keys[workload.uid] = next(self._next_key)
        group, kind, namespace = type_key(workload.obj)
        row = workload_row(workload.view, workload.obj, workload.origin, key)
        detail = workload_detail(workload.view, workload.origin)
        with self._lock:
            self._shown[key] = Shown(key, group, kind, namespace, row, detail)
        self._publish({"op": "put", "row": row})

    def failed(self, uid: str, obj: dict[str, Any], definition: str) -> None:
        """Logged already; the page keeps what it showed last."""

    def deleted(self, uid: str) -> None:
        key = self._keys.pop(uid, None)
        with self._lock:
            gone = key is not None and self._shown.pop(key, None) is not None
        if gone:
            self._publish({"op": "delete", "key": key})

    # -- life cycle ---------------------------------------------------------------------

    async def start(self, timeout: float = 60.0) -> None:
        """Start the watches; return once every workload listed is interpreted."""
        await self.workloads.start(timeout)

    async def stop(self) -> None:
        """Stop the loop and every watch."""
        await self.workloads.stop()
