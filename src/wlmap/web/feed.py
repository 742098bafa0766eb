"""The workloads of a live cluster, kept current by watches, as the page's documents.

The workload kinds a definition covers, their pods and DRA claims are mirrored by a
:class:`~wlmap.sources.cluster.cache.ClusterCache` (as ``wlmap metrics serve`` does). A
change marks the object; a short loop finds the top-level workload above each marked
object and interprets it from the cache, as ``describe`` would from a live read, keeping
its row and its Workload page and telling ``publish`` of the new row. A deleted
workload's row is dropped and ``publish`` told its key. A page view reads only these
documents: nothing is listed per view, and a change costs the workloads it touches.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wlmap.app.live import mapped_resources
from wlmap.errors import WlmapError
from wlmap.sources.cluster.cache import CLAIMS, ClusterCache
from wlmap.sources.cluster.object_index import type_key
from wlmap.sources.inventory import uid_of
from wlmap.sources.workloads import WorkloadReader
from wlmap.web.documents import workload_detail, workload_row

if TYPE_CHECKING:
    from wlmap.app.live import Connected

__all__ = ["BATCH_SECONDS", "Shown", "WorkloadFeed"]

log = logging.getLogger("wlmap.web")

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
        self._connected = connected
        self._registry = connected.registry
        self._publish = publish
        discovery = connected.discovery
        self._workload_types = {
            (r.group, r.kind): r for r in mapped_resources(self._registry, discovery)
        }
        watched = list(self._workload_types.values())
        for group, kind in (("", "Pod"), CLAIMS):
            resource = discovery.find(group, kind)
            if resource is not None and (group, kind) not in self._workload_types:
                watched.append(resource)
        self.cache = ClusterCache(connected.cluster, discovery, watched, listener=self._changed)
        self._keys: dict[str, int] = {}  # uid -> the page's key
        self._next_key = itertools.count()  # a deleted workload's key is never reused
        self._shown: dict[int, Shown] = {}
        self._lock = threading.Lock()  # the server's threads read what the loop writes
        self._marked: dict[str, dict[str, Any]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- what the pages read (any thread) -------------------------------------------------

    def shown(self) -> list[Shown]:
        """Every top-level workload, as last interpreted."""
        with self._lock:
            return list(self._shown.values())

    def get(self, key: int) -> Shown | None:
        """One workload by its key."""
        with self._lock:
            return self._shown.get(key)

    # -- watches ------------------------------------------------------------------------

    def _changed(self, event_type: str, obj: dict[str, Any]) -> None:
        group, kind, _ = type_key(obj)
        uid = str(uid_of(obj))
        if event_type == "DELETED" and (group, kind) in self._workload_types:
            self._drop(uid)
        self._marked[uid] = obj  # a deleted pod: its workload is read again without it
        self._wake.set()

    def _drop(self, uid: str) -> None:
        key = self._keys.pop(uid, None)
        with self._lock:
            gone = key is not None and self._shown.pop(key, None) is not None
        if gone:
            self._publish({"op": "delete", "key": key})

    # -- interpretation -----------------------------------------------------------------

    async def _top_workload(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        chain = [obj, *(await self.cache.owners(obj))]
        mapped = [o for o in chain if type_key(o)[:2] in self._workload_types]
        if not mapped:
            return None
        return self.cache.index.get(str(uid_of(mapped[-1])))

    async def _interpret(self, workload: dict[str, Any]) -> None:
        uid = str(uid_of(workload))
        try:
            snapshot = await self.cache.read(workload, self._registry, self._connected.discovery)
        except WlmapError as exc:  # gone meanwhile, or the server fails: its next change
            log.info("cannot read %s %s: %s", workload.get("kind"), uid, exc)
            return
        reader = WorkloadReader(self._registry, snapshot.manifests, pods_listed=True)
        current = snapshot.manifests[0].obj
        entry = reader.entry(current)
        if entry is None:
            return
        try:
            view = reader.view(entry, current)
        except WlmapError as exc:
            log.warning("%s %s: %s", current.get("kind"), uid, exc)
            return
        key = self._keys.get(uid)
        if key is None:
            key = self._keys[uid] = next(self._next_key)
        origin = snapshot.manifests[0].origin
        group, kind, namespace = type_key(current)
        row = workload_row(view, current, origin, key)
        shown = Shown(key, group, kind, namespace, row, workload_detail(view, origin))
        with self._lock:
            self._shown[key] = shown
        self._publish({"op": "put", "row": row})

    async def _drain(self) -> None:
        marked, self._marked = self._marked, {}
        tops: dict[str, dict[str, Any]] = {}
        for obj in marked.values():
            top = await self._top_workload(obj)
            if top is not None:
                tops[str(uid_of(top))] = top
        for top in tops.values():
            await self._interpret(top)

    async def _loop(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(BATCH_SECONDS)
            self._wake.clear()
            try:
                await self._drain()
            except Exception:  # one bad batch must not stop the page's updates
                log.exception("web update failed")

    # -- life cycle ---------------------------------------------------------------------

    async def start(self, timeout: float = 60.0) -> None:
        """Start the watches; return once every workload listed is interpreted."""
        self.cache.start()
        await self.cache.synced(timeout)
        for group, kind in self._workload_types:
            for obj in self.cache.index.of_type(group, kind, None):
                self._marked[str(uid_of(obj))] = obj
        self._wake.clear()
        await self._drain()
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        """Stop the loop and every watch."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.cache.stop()
