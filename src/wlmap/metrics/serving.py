"""Feeding a :class:`~wlmap.metrics.index.MetricsIndex` from a live cluster's watches.

The workload kinds a definition covers, their pods and DRA claims are mirrored by a
:class:`~wlmap.sources.cluster.cache.ClusterCache`; nodes and namespaces by informers of
their own. A change marks the workload above the changed object; a short loop interprets
each marked workload from the cache (as ``describe`` would from a live read) and hands its
view and pods to the index. A scrape renders the index and reads nothing from the server.

The owners between pods and workloads that no definition covers (a Deployment's
ReplicaSets) are fetched once by GET and kept, as the cache does for every reader.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from wlmap.app.live import mapped_resources
from wlmap.errors import WlmapError
from wlmap.metrics.index import MetricsIndex
from wlmap.sources.cluster.cache import CLAIMS, ClusterCache
from wlmap.sources.cluster.informer import Informer, Informers
from wlmap.sources.cluster.object_index import ObjectIndex, type_key
from wlmap.sources.inventory import uid_of
from wlmap.sources.selectors import matches, parse_selector
from wlmap.sources.workloads import WorkloadReader

if TYPE_CHECKING:
    from wlmap.app.live import Connected

__all__ = ["BATCH_SECONDS", "ClusterFeed"]

log = logging.getLogger("wlmap.metrics")

BATCH_SECONDS = 0.2
"""How long the feed waits after a change for the changes that come with it."""


def _labels(obj: Mapping[str, Any]) -> dict[str, str]:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return {str(k): str(v) for k, v in labels.items()}


class ClusterFeed:
    """Keeps an index current with a cluster: workloads, their pods, nodes, namespaces.

    Args:
        connected: the connection, what the server serves and the definitions in use.
        index: the index fed.
        namespaces: the namespaces served (empty: every namespace, or those the selector
            picks).
        selector: a label selector of the namespaces served (with no ``namespaces``).
    """

    def __init__(
        self,
        connected: Connected,
        index: MetricsIndex,
        namespaces: Sequence[str] = (),
        selector: str | None = None,
    ) -> None:
        self.index = index
        self._connected = connected
        self._registry = connected.registry
        self._namespaces = tuple(namespaces)
        self._selector = parse_selector(selector) if selector else None
        discovery = connected.discovery
        self._workload_types = {
            (r.group, r.kind): r for r in mapped_resources(self._registry, discovery)
        }
        watched = list(self._workload_types.values())  # pods are a workload kind too
        for group, kind in (("", "Pod"), CLAIMS):
            resource = discovery.find(group, kind)
            if resource is not None and (group, kind) not in self._workload_types:
                watched.append(resource)
        self.cache = ClusterCache(
            connected.cluster,
            discovery,
            watched,
            namespaces=self._namespaces or (None,),
            listener=self._changed,
            served=self._served if self._selector is not None else None,
        )
        self._cluster_index = ObjectIndex()
        self._cluster_informers = Informers(
            [
                Informer(connected.cluster, resource, None, self._cluster_index, listener)
                for kind, listener in (("Node", self._node), ("Namespace", self._namespace))
                if (resource := discovery.find("", kind)) is not None
            ]
        )
        self._namespace_labels: dict[str, dict[str, str]] = {}
        self._marked: dict[str, dict[str, Any]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- watches ------------------------------------------------------------------------

    def _served(self, namespace: str | None) -> bool:
        if namespace is None or self._selector is None:
            return True
        return matches(self._namespace_labels.get(namespace, {}), self._selector)

    def _node(self, event_type: str, obj: dict[str, Any]) -> None:
        if event_type == "DELETED":
            self.index.remove_node(str(obj["metadata"].get("name")))
        else:
            self.index.set_node(obj)

    def _namespace(self, event_type: str, obj: dict[str, Any]) -> None:
        name = str(obj["metadata"].get("name"))
        served = self._served(name)
        if event_type == "DELETED":
            self._namespace_labels.pop(name, None)
        else:
            self._namespace_labels[name] = _labels(obj)
            self.index.set_namespace_labels(name, self._namespace_labels[name])
        if self._task is not None and served != self._served(name):
            # its objects are now kept, or dropped (and told so)
            self.cache.namespace_changed(name, self._served(name))

    def _changed(self, event_type: str, obj: dict[str, Any]) -> None:
        group, kind, _ = type_key(obj)
        uid = str(uid_of(obj))
        if event_type == "DELETED" and (group, kind) in self._workload_types:
            self.index.remove_workload(uid)  # a bare pod, or a workload with its series
        # a deleted pod under a workload: the workload is read again without it
        self._marked[uid] = obj
        self._wake.set()

    # -- interpretation -----------------------------------------------------------------

    async def _top_workload(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The top-level workload above (or at) an object, as the cache holds it."""
        chain = [obj, *(await self.cache.owners(obj))]
        mapped = [o for o in chain if (type_key(o)[0], type_key(o)[1]) in self._workload_types]
        if not mapped:
            return None
        top = mapped[-1]
        return self.cache.index.get(str(uid_of(top))) or None

    async def _interpret(self, workload: dict[str, Any]) -> None:
        uid = str(uid_of(workload))
        discovery = self._connected.discovery
        try:
            snapshot = await self.cache.read(workload, self._registry, discovery)
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
            self.index.set_failed(uid, current, entry.definition.name)
            return
        pods = reader.inventory.pods_of(current) or []
        self.index.set_workload(uid, view, pods, labels=_labels(current))

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
            except Exception:  # one bad batch must not stop the exporter
                log.exception("metrics update failed")

    # -- life cycle ---------------------------------------------------------------------

    async def start(self, timeout: float = 60.0) -> None:
        """Start the watches; once every type is listed and every workload interpreted,
        the index is marked synced (until then it serves only its own health)."""
        self._cluster_informers.start()
        await self._cluster_informers.synced(timeout, "nodes and namespaces")
        self.cache.start()
        await self.cache.synced(timeout)
        self._task = asyncio.get_running_loop().create_task(self._loop())
        for group, kind in self._workload_types:
            for namespace in self._namespaces or (None,):
                for obj in self.cache.index.of_type(group, kind, namespace):
                    self._marked[str(uid_of(obj))] = obj
        self._wake.clear()
        await self._drain()
        self.index.synced = True

    async def stop(self) -> None:
        """Stop the loop and every watch."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.cache.stop()
        await self._cluster_informers.stop()
