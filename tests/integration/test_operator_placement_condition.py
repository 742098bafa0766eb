"""The placement condition lands when the workload's controller writes status meanwhile.

A Deployment's or StatefulSet's controller updates status while its pods start, which is
exactly when the placement controller writes ``Placed``: its write at the version it read
is refused (409). The pods are released by then, so nothing would bring the condition
back; the write is read again and retried instead.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.integration.kube import Kube
from tests.integration.testcluster import TestCluster
from wlmap.operator.core.settings import Settings
from wlmap.operator.placing.placement_condition import CONDITION, report
from wlmap.operator.runtime.state import State
from wlmap.sources.cluster import Cluster, discover


def _job(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": namespace},
        "spec": {
            "suspend": True,  # nothing runs: no controller manager in this cluster
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox"}],
                }
            },
        },
    }


def test_a_status_write_at_a_stale_version_is_read_again_and_lands(
    cluster: TestCluster, kube: Kube, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = kube.create(_job(namespace), namespace)
    request = Cluster.request
    interposed: list[str] = []

    async def racing(self: Cluster, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        if method == "PATCH" and path.endswith("/status") and not interposed:
            # the workload's controller writes between the read and this write
            interposed.append(path)
            touched = {"metadata": {"labels": {"touched": "by-its-controller"}}}
            await request(
                self,
                "PATCH",
                path.removesuffix("/status"),
                body=touched,
                content_type="application/merge-patch+json",
            )
        return await request(self, method, path, **kwargs)

    monkeypatch.setattr(Cluster, "request", racing)

    async def place() -> None:
        state = State(Settings(namespaces=(namespace,)))
        state.cluster = await Cluster.connect(str(cluster.kubeconfig))
        try:
            state.discovery = await discover(state.cluster)
            await report(state, job, True, "Placed", "4 pods in rack b0-r1", event=False)
        finally:
            await state.cluster.close()

    asyncio.run(place())
    assert interposed  # the first write met the other writer's change
    current = kube.get("batch/v1", "Job", namespace, "train") or {}
    assert current["metadata"]["labels"]["touched"] == "by-its-controller"
    [said] = [c for c in current["status"]["conditions"] if c["type"] == CONDITION]
    assert (said["status"], said["reason"], said["message"]) == (
        "True",
        "Placed",
        "4 pods in rack b0-r1",
    )
