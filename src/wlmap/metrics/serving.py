"""Feeding a :class:`~wlmap.metrics.index.MetricsIndex` from a live cluster's watches.

The workloads, their pods and DRA claims come from :class:`~wlmap.app.watched.WatchedWorkloads`
(the web page's live source reads them the same way), which hands each workload's view
and pods to the index as they change; nodes and namespaces come from informers of their
own. A scrape renders the index and reads nothing from the server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from wlmap.app.watched import Interpreted, WatchedWorkloads
from wlmap.metrics.index import MetricsIndex
from wlmap.sources.cluster.cache import ClusterCache
from wlmap.sources.cluster.informer import Informer, Informers
from wlmap.sources.cluster.object_index import ObjectIndex
from wlmap.sources.selectors import matches, parse_selector

if TYPE_CHECKING:
    from wlmap.app.live import Connected

__all__ = ["BATCH_SECONDS", "ClusterFeed"]

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
        self._namespaces = tuple(namespaces)
        self._selector = parse_selector(selector) if selector else None
        self.workloads = WatchedWorkloads(
            connected,
            self,
            namespaces=self._namespaces,
            served=self._served if self._selector is not None else None,
            batch_seconds=BATCH_SECONDS,
            what="metrics",
        )
        discovery = connected.discovery
        self._cluster_index = ObjectIndex()
        self._cluster_informers = Informers(
            [
                Informer(connected.cluster, resource, None, self._cluster_index, listener)
                for kind, listener in (("Node", self._node), ("Namespace", self._namespace))
                if (resource := discovery.find("", kind)) is not None
            ]
        )
        self._namespace_labels: dict[str, dict[str, str]] = {}

    @property
    def cache(self) -> ClusterCache:
        """The watch-fed cache of the workloads, their pods and claims."""
        return self.workloads.cache

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
        if self.workloads.running and served != self._served(name):
            # its objects are now kept, or dropped (and told so)
            self.cache.namespace_changed(name, self._served(name))

    # -- what the watched workloads tell (WorkloadHandler) ----------------------------------

    def interpreted(self, workload: Interpreted) -> None:
        self.index.set_workload(
            workload.uid, workload.view, workload.pods, labels=_labels(workload.obj)
        )

    def failed(self, uid: str, obj: dict[str, Any], definition: str) -> None:
        self.index.set_failed(uid, obj, definition)

    def deleted(self, uid: str) -> None:
        self.index.remove_workload(uid)  # a bare pod, or a workload with its series

    # -- life cycle ---------------------------------------------------------------------

    async def start(self, timeout: float = 60.0) -> None:
        """Start the watches; once every type is listed and every workload interpreted,
        the index is marked synced (until then it serves only its own health)."""
        self._cluster_informers.start()
        await self._cluster_informers.synced(timeout, "nodes and namespaces")
        await self.workloads.start(timeout)
        self.index.synced = True

    async def stop(self) -> None:
        """Stop every watch."""
        await self.workloads.stop()
        await self._cluster_informers.stop()
