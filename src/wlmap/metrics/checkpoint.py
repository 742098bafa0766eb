"""The GPU-seconds a restart cannot read back from the cluster, kept in a ConfigMap.

A running or finished pod still in the cluster is counted again from its start and end
times; a deleted one is gone, so the seconds it held (the index's *retired* seconds, by
namespace and by team) are written to ConfigMap ``wlmap-metrics-checkpoint`` every
``CHECKPOINT_SECONDS`` and on stop, and added back on start. Pods deleted while no exporter
runs, after the last write, are not counted.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from wlmap.errors import ClusterError
from wlmap.metrics.index import MetricsIndex
from wlmap.sources.cluster.connection import ApiError, Cluster

__all__ = ["CHECKPOINT_KEY", "CHECKPOINT_NAME", "CHECKPOINT_SECONDS", "Checkpointer"]

CHECKPOINT_NAME = "wlmap-metrics-checkpoint"
CHECKPOINT_KEY = "retired-gpu-seconds.json"
CHECKPOINT_SECONDS = 30.0
log = logging.getLogger("wlmap.metrics")


class Checkpointer:
    """Reads and writes one index's checkpoint in ``namespace``."""

    def __init__(self, cluster: Cluster, index: MetricsIndex, namespace: str) -> None:
        self._cluster = cluster
        self._index = index
        self._path = f"/api/v1/namespaces/{namespace}/configmaps"
        self._version: str | None = None  # the ConfigMap's, None: not there yet

    async def restore(self) -> None:
        """Add the checkpoint's seconds to the index (none when there is no checkpoint, or
        it cannot be read: then it is said, and the counters start from the cluster)."""
        try:
            found = await self._cluster.request("GET", f"{self._path}/{CHECKPOINT_NAME}")
        except ApiError as exc:
            if exc.code != 404:
                log.warning("cannot read the GPU-seconds checkpoint: %s", exc)
            return
        self._version = (found.get("metadata") or {}).get("resourceVersion")
        text = (found.get("data") or {}).get(CHECKPOINT_KEY, "{}")
        try:
            data = json.loads(text)
            self._index.restore(
                {
                    group: {k: float(v) for k, v in data.get(group, {}).items()}
                    for group in ("namespaces", "teams")
                }
            )
        except (ValueError, TypeError, AttributeError) as exc:
            log.warning(
                "the GPU-seconds checkpoint %s is not valid JSON of seconds: %s",
                CHECKPOINT_NAME,
                exc,
            )

    async def write(self) -> None:
        """Write the index's retired seconds (create the ConfigMap, or update it)."""
        body: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": CHECKPOINT_NAME,
                "labels": {"app.kubernetes.io/managed-by": "wlmap"},
            },
            "data": {CHECKPOINT_KEY: json.dumps(self._index.checkpoint(), sort_keys=True)},
        }
        try:
            if self._version is None:
                answer = await self._cluster.request("POST", self._path, body=body)
            else:
                body["metadata"]["resourceVersion"] = self._version
                answer = await self._cluster.request(
                    "PUT", f"{self._path}/{CHECKPOINT_NAME}", body=body
                )
        except ApiError as exc:
            if exc.code == 409:  # written by another exporter, or created meanwhile: read
                await self._reread()
            log.warning("cannot write the GPU-seconds checkpoint: %s", exc)
            return
        except ClusterError as exc:
            log.warning("cannot write the GPU-seconds checkpoint: %s", exc)
            return
        self._version = (answer.get("metadata") or {}).get("resourceVersion")

    async def _reread(self) -> None:
        try:
            found = await self._cluster.request("GET", f"{self._path}/{CHECKPOINT_NAME}")
        except (ApiError, ClusterError):
            return
        self._version = (found.get("metadata") or {}).get("resourceVersion")

    async def run(self, every: float = CHECKPOINT_SECONDS) -> None:
        """Write every ``every`` seconds until cancelled."""
        while True:
            await asyncio.sleep(every)
            await self.write()
