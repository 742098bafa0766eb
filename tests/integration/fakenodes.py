"""Fake GPU nodes for KWOK to play: a 3-level topology (block, rack, host) of nodes with
``nvidia.com/gpu`` allocatable, labelled the way GPU clusters label theirs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.integration.clusterparts import FAKE_NODE_ANNOTATION, PARTS, PARTS_SCRIPT, ClusterParts
from tests.integration.kube import Kube, wait_for
from tests.integration.testcluster import TestCluster, build_binaries, remove

BLOCK_LABEL = "topology.test/block"
RACK_LABEL = "topology.test/rack"
HOST_LABEL = "kubernetes.io/hostname"
PRODUCT_LABEL = "nvidia.com/gpu.product"
GPU = "nvidia.com/gpu"
PRODUCT = "NVIDIA-H100-80GB-HBM3"


@dataclass(frozen=True)
class Topology:
    """``blocks`` blocks of ``racks`` racks of ``hosts`` nodes, each with ``gpus`` GPUs."""

    blocks: int = 4
    racks: int = 4
    hosts: int = 16
    gpus: int = 8

    @property
    def size(self) -> int:
        return self.blocks * self.racks * self.hosts

    def nodes(self) -> Iterator[dict[str, Any]]:
        for block in range(self.blocks):
            for rack in range(self.racks):
                for host in range(self.hosts):
                    yield self.node(f"b{block}", f"b{block}-r{rack}", f"b{block}-r{rack}-h{host}")

    def node(self, block: str, rack: str, host: str) -> dict[str, Any]:
        """A node with its status as a kubelet would register it; KWOK adds the rest."""
        name = f"gpu-{host}"
        resources = {"cpu": "64", "memory": "512Gi", "pods": "110", GPU: str(self.gpus)}
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "annotations": {FAKE_NODE_ANNOTATION: "fake"},
                "labels": {
                    BLOCK_LABEL: block,
                    RACK_LABEL: rack,
                    HOST_LABEL: name,
                    PRODUCT_LABEL: PRODUCT,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                    "type": "kwok",
                },
            },
            "status": {"allocatable": resources, "capacity": resources},
        }


@dataclass
class KwokCluster:
    """A test cluster with real controllers, a scheduler, and KWOK's fake GPU nodes."""

    cluster: TestCluster
    kube: Kube
    topology: Topology
    ready_seconds: float  # from the first node created to the last one Ready and untainted

    def nodes(self) -> dict[str, dict[str, Any]]:
        """The fake nodes by name."""
        return {n["metadata"]["name"]: n for n in self.kube.list("v1", "Node") if _fake(n)}


@contextmanager
def kwok_cluster(
    folder: Path, topology: Topology, say: Callable[[str], None] = print
) -> Iterator[KwokCluster]:
    """etcd and kube-apiserver, then the controller manager, the scheduler and KWOK, and
    the topology's nodes, all Ready; stopped (and etcd's data removed) on leaving. The
    parts are built first when not cached (``BuildUnavailable`` without Go); how long the
    start and the nodes took is said.
    """
    apiserver = build_binaries(progress=say)
    parts = build_binaries(progress=say, script=PARTS_SCRIPT, what=PARTS)
    server = TestCluster(apiserver, folder)
    components = ClusterParts(parts, server)
    try:
        started = time.monotonic()
        server.start()
        components.start()
        up = time.monotonic() - started
        with server.client() as client:
            kube = Kube(client)
            ready = register(kube, topology)
            say(
                f"kwok cluster: API server, controller manager, scheduler and KWOK up in "
                f"{up:.1f} s; {topology.size} KWOK nodes registered and Ready in {ready:.1f} s"
            )
            yield KwokCluster(server, kube, topology, ready)
    finally:
        components.stop()
        server.stop()
        remove(folder / "etcd")


def register(kube: Kube, topology: Topology, workers: int = 8) -> float:
    """Create the topology's nodes and wait until every one is Ready and untainted (the
    node lifecycle controller lifts the not-ready taint of a new node); the seconds it took."""
    started = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        # a node's status is kept on create (a kubelet registers its node so)
        answers = pool.map(
            lambda node: kube.http.post("/api/v1/nodes", json=node), topology.nodes()
        )
        for answer in answers:
            if answer.status_code != 409:
                answer.raise_for_status()
    wait_for(
        lambda: ready_count(kube) >= topology.size,
        f"{topology.size} KWOK nodes Ready and untainted",
        timeout=max(60.0, topology.size / 2),
        interval=0.5,
    )
    return time.monotonic() - started


def ready_count(kube: Kube) -> int:
    """How many fake nodes are Ready and untainted, so pods can be scheduled there."""
    nodes = kube.list("v1", "Node")
    return sum(1 for n in nodes if _fake(n) and is_ready(n) and not n["spec"].get("taints"))


def is_ready(obj: Mapping[str, Any]) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (obj.get("status") or {}).get("conditions") or ()
    )


def _fake(node: Mapping[str, Any]) -> bool:
    return (node["metadata"].get("annotations") or {}).get(FAKE_NODE_ANNOTATION) == "fake"


__all__ = [
    "BLOCK_LABEL",
    "GPU",
    "HOST_LABEL",
    "PRODUCT_LABEL",
    "RACK_LABEL",
    "KwokCluster",
    "Topology",
    "is_ready",
    "kwok_cluster",
    "ready_count",
    "register",
]
