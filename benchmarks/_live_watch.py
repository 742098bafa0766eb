"""When each pod of a namespace was created, released from its scheduling gates and bound,
as one watch in the benchmark's process sees it (one clock for every run)."""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx
from tests.integration.testcluster import TestCluster


@dataclass
class PodTimes:
    """Monotonic seconds at which the watch saw the pod created, ungated and bound."""

    gang: str
    created: float
    gated: bool = False  # it carried a scheduling gate when seen
    released: float | None = None
    bound: float | None = None
    node: str | None = None


class Tracker:
    """Watches the pods carrying ``label`` in ``namespace`` from a thread, until closed."""

    def __init__(self, cluster: TestCluster, namespace: str, label: str) -> None:
        self._cluster = cluster
        self._path = f"/api/v1/namespaces/{namespace}/pods"
        self._label = label
        self._times: dict[str, PodTimes] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._ready = threading.Event()

    def __enter__(self) -> Tracker:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the pod watch did not start")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=15)

    def bound(self) -> int:
        with self._lock:
            return sum(1 for t in self._times.values() if t.bound is not None)

    def pods(self) -> dict[str, PodTimes]:
        with self._lock:
            return dict(self._times)

    def _run(self) -> None:
        with self._cluster.client() as client:
            client.timeout = httpx.Timeout(30.0, read=None)
            listed = client.get(self._path, params={"labelSelector": self._label, "limit": 1})
            version = listed.json()["metadata"]["resourceVersion"]
            self._ready.set()
            while not self._stop.is_set():
                params = {
                    "watch": "true",
                    "labelSelector": self._label,
                    "resourceVersion": version,
                    "allowWatchBookmarks": "true",
                    "timeoutSeconds": 30,
                }
                with client.stream("GET", self._path, params=params) as answer:
                    for line in answer.iter_lines():
                        if self._stop.is_set():
                            return
                        if line:
                            version = self._seen(json.loads(line), time.monotonic()) or version

    def _seen(self, event: dict[str, Any], now: float) -> str | None:
        pod = event.get("object") or {}
        meta = pod.get("metadata") or {}
        if event.get("type") not in ("ADDED", "MODIFIED"):
            return meta.get("resourceVersion")
        spec = pod.get("spec") or {}
        with self._lock:
            times = self._times.setdefault(
                str(meta.get("uid")), PodTimes(str(meta["labels"][self._label]), now)
            )
            if spec.get("schedulingGates"):
                times.gated = True
            elif times.released is None:
                times.released = now
            if spec.get("nodeName") and times.bound is None:
                times.bound, times.node = now, str(spec["nodeName"])
        return meta.get("resourceVersion")


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile of sorted ``values``."""
    if not values:
        return math.nan
    return values[max(0, math.ceil(share / 100 * len(values)) - 1)]
