"""The operator's Prometheus metrics (``--metrics-port``): the exporter's index fed from
what the operator reads anyway, served beside the health endpoint.

A workload's series are replaced each time it is reconciled, from the view and pods that
reconciliation interpreted (a gang the placement controller holds back waits for the reason
of its placement condition), and dropped when it is deleted; a definition that fails to
evaluate is counted. Namespace labels come from the operator's namespace watch; nodes from
an informer of their own (started only with metrics on; a refused listing leaves the node
series out). The index is marked synced once the operator's cache has listed pods.

The operator keeps no GPU-seconds checkpoint: after a restart its counters are recounted
from the pods in the cluster; the standalone exporter also keeps deleted pods' seconds.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from wlmap.errors import WlmapError
from wlmap.metrics.http import MetricsServer
from wlmap.metrics.index import MetricsIndex
from wlmap.metrics.node_series import DEFAULT_DOMAIN_KEYS
from wlmap.operator.core.settings import Settings
from wlmap.sources.cluster import Cluster, Discovery
from wlmap.sources.cluster.cache import ClusterCache
from wlmap.sources.cluster.informer import Informer, Informers
from wlmap.sources.cluster.object_index import ObjectIndex
from wlmap.workload import WorkloadView

__all__ = ["OperatorMetrics"]

log = logging.getLogger("wlmap.operator")


def _uid(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid"))


class OperatorMetrics:
    """The index, its HTTP server and the node informer of one operator."""

    def __init__(self, settings: Settings) -> None:
        self.index = MetricsIndex(domain_keys=settings.placement_levels or DEFAULT_DOMAIN_KEYS)
        self.server = MetricsServer(self.index, port=settings.metrics_port)
        self._nodes: Informers | None = None

    async def start(
        self, cluster: Cluster, discovery: Discovery, namespaces: Mapping[str, Mapping[str, str]]
    ) -> None:
        for name, labels in namespaces.items():
            self.index.set_namespace_labels(name, labels)
        node = discovery.find("", "Node")
        if node is not None:
            self._nodes = Informers([Informer(cluster, node, None, ObjectIndex(), self._node)])
            self._nodes.start()
        await self.server.start()

    def _node(self, event_type: str, obj: dict[str, Any]) -> None:
        if event_type == "DELETED":
            self.index.remove_node(str((obj.get("metadata") or {}).get("name")))
        else:
            self.index.set_node(obj)

    async def synced(self, cache: ClusterCache | None) -> None:
        """Mark the index synced once the cache has listed its types (at once without)."""
        if cache is not None:
            try:
                await cache.synced()
            except WlmapError as exc:
                log.warning("metrics stay unsynced: %s", exc)
                return
        self.index.synced = True

    def reconciled(
        self,
        obj: Mapping[str, Any],
        view: WorkloadView | None,
        pods: tuple[dict[str, Any], ...],
        origin: str,
        failed: bool,
        waiting_reason: str | None = None,
    ) -> None:
        """A workload as one reconciliation read it (``view`` None: it did not evaluate);
        ``waiting_reason``: why the placement controller holds its gangs back, when it
        does (the reason of its ``WlmapPlacement`` condition), given to each gang that
        waits in place of the reason its pods give."""
        labels = (obj.get("metadata") or {}).get("labels") or {}
        if view is not None:
            reasons = None
            if waiting_reason:
                # gangs that cannot be worked out have no series
                with contextlib.suppress(WlmapError):
                    reasons = {gang.name: waiting_reason for gang in view.gang_groups}
            self.index.set_workload(_uid(obj), view, pods, labels=labels, reasons=reasons)
        elif failed:
            self.index.set_failed(_uid(obj), obj, origin)

    def namespace(self, name: str, labels: Mapping[str, str]) -> None:
        self.index.set_namespace_labels(name, labels)

    def forget(self, obj: Mapping[str, Any]) -> None:
        self.index.remove_workload(_uid(obj))

    async def stop(self) -> None:
        if self._nodes is not None:
            await self._nodes.stop()
        await self.server.stop()
