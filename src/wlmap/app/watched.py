"""The top-level workloads of a live cluster, interpreted again whenever their objects change.

The workload kinds a definition covers, their pods and DRA claims are mirrored by a
:class:`~wlmap.sources.cluster.cache.ClusterCache`. A change marks the changed object; a
short loop finds the top-level workload above each marked object and interprets it from
the cache, as ``describe`` would from a live read, and hands the result to the front end
(the metrics exporter, the web page). Nothing is listed per change, and a change costs the
workloads it touches. The owners between pods and workloads that no definition covers (a
Deployment's ReplicaSets) are fetched once by GET and kept, as the cache does for every
reader.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from wlmap.app.live import mapped_resources
from wlmap.errors import WlmapError
from wlmap.sources.cluster.cache import CLAIMS, ClusterCache
from wlmap.sources.cluster.object_index import type_key
from wlmap.sources.inventory import uid_of
from wlmap.sources.workloads import WorkloadReader

if TYPE_CHECKING:
    from wlmap.app.live import Connected
    from wlmap.workload import WorkloadView

__all__ = ["Interpreted", "WatchedWorkloads", "WorkloadHandler"]

log = logging.getLogger("wlmap")


@dataclass(frozen=True)
class Interpreted:
    """One top-level workload as it was just read: its view, object, origin and pods."""

    uid: str
    view: WorkloadView
    obj: dict[str, Any]
    origin: str
    pods: list[dict[str, Any]]


class WorkloadHandler(Protocol):
    """What a front end does with the workloads as they change (called on the loop)."""

    def interpreted(self, workload: Interpreted) -> None:
        """A workload was read and interpreted."""

    def failed(self, uid: str, obj: dict[str, Any], definition: str) -> None:
        """A workload's definition failed on it (logged already)."""

    def deleted(self, uid: str) -> None:
        """A workload is gone."""


class WatchedWorkloads:
    """Keeps a handler told of every top-level workload of a cluster as it changes.

    Args:
        connected: the connection, what the server serves and the definitions in use.
        handler: told of each workload read, failed or deleted.
        namespaces: the namespaces watched (empty: every namespace).
        served: whether a namespace's objects are kept (None: every namespace watched).
        batch_seconds: how long to wait after a change for the changes that come with it.
        what: the front end's name, for the log line of a failed batch.
    """

    def __init__(
        self,
        connected: Connected,
        handler: WorkloadHandler,
        namespaces: Sequence[str] = (),
        served: Callable[[str | None], bool] | None = None,
        batch_seconds: float = 0.2,
        what: str = "workload",
    ) -> None:
        self._connected = connected
        self._registry = connected.registry
        self._handler = handler
        self._batch_seconds = batch_seconds
        self._what = what
        discovery = connected.discovery
        self.workload_types = {
            (r.group, r.kind): r for r in mapped_resources(self._registry, discovery)
        }
        watched = list(self.workload_types.values())  # pods are a workload kind too
        for group, kind in (("", "Pod"), CLAIMS):
            resource = discovery.find(group, kind)
            if resource is not None and (group, kind) not in self.workload_types:
                watched.append(resource)
        self.cache = ClusterCache(
            connected.cluster,
            discovery,
            watched,
            namespaces=tuple(namespaces) or (None,),
            listener=self._changed,
            served=served,
        )
        self._marked: dict[str, dict[str, Any]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """Whether the watches are started."""
        return self._task is not None

    # -- watches ------------------------------------------------------------------------

    def _changed(self, event_type: str, obj: dict[str, Any]) -> None:
        group, kind, _ = type_key(obj)
        uid = str(uid_of(obj))
        if event_type == "DELETED" and (group, kind) in self.workload_types:
            self._handler.deleted(uid)  # a bare pod, or a workload
        # a deleted pod under a workload: the workload is read again without it
        self._marked[uid] = obj
        self._wake.set()

    # -- interpretation -----------------------------------------------------------------

    async def _top_workload(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The top-level workload above (or at) an object, as the cache holds it."""
        chain = [obj, *(await self.cache.owners(obj))]
        mapped = [o for o in chain if type_key(o)[:2] in self.workload_types]
        if not mapped:
            return None
        return self.cache.index.get(str(uid_of(mapped[-1]))) or None

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
            name = (current.get("metadata") or {}).get("name")
            log.warning("%s %s: %s", current.get("kind"), name, exc)
            self._handler.failed(uid, current, entry.definition.name)
            return
        pods = reader.inventory.pods_of(current) or []
        origin = snapshot.manifests[0].origin
        self._handler.interpreted(Interpreted(uid, view, current, origin, pods))

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
            await asyncio.sleep(self._batch_seconds)
            self._wake.clear()
            try:
                await self._drain()
            except Exception:  # one bad batch must not stop the front end's updates
                log.exception("%s update failed", self._what)

    # -- life cycle ---------------------------------------------------------------------

    async def start(self, timeout: float = 60.0) -> None:
        """Start the watches; return once every workload listed has been interpreted."""
        self.cache.start()
        await self.cache.synced(timeout)
        self._task = asyncio.get_running_loop().create_task(self._loop())
        for group, kind in self.workload_types:
            for obj in self.cache.index.of_type(group, kind, None):
                self._marked[str(uid_of(obj))] = obj
        self._wake.clear()
        await self._drain()

    async def stop(self) -> None:
        """Stop the loop and every watch."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.cache.stop()
