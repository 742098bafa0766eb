"""A cluster of its own whose kube-scheduler schedules gangs (the upstream Workload API),
with JobSet's and Kubeflow Trainer's controllers, and KWOK completing Jobs' pods.

kube-scheduler runs with the feature gates ``GenericWorkload`` and ``GangScheduling``
(Kubernetes 1.36, alpha): a pod naming a PodGroup in ``spec.schedulingGroup`` waits until
the group's ``minCount`` pods are there, and they are bound together. The other
integration clusters keep the default scheduler; this one is started only by the tests
that need it. KWOK plays every node's kubelet and, with its ``pod-complete`` stage, ends
each Job's pods as Succeeded once they run, so Jobs complete and a JobSet's ``dependsOn``
moves on to the next stage.

A watch records every pod event of a namespace in the order the API server gives them
(:class:`PodEvents`), so a test can tell whether a pod was bound while its gang was short.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.integration.clusterparts import PARTS, PARTS_SCRIPT, STAGES, ClusterParts
from tests.integration.fakenodes import Topology, register
from tests.integration.kube import Kube
from tests.integration.managers import (
    JOBSET_SCRIPT,
    TRAINER_SCRIPT,
    Manager,
    jobset_configuration,
    trainer_configuration,
)
from tests.integration.testcluster import TestCluster, build_binaries, remove

GANG_GATES = "--feature-gates=GenericWorkload=true,GangScheduling=true"
NODES = Topology(blocks=1, racks=1, hosts=4)


@dataclass
class GangCluster:
    """The cluster, an admin client, and why Trainer is not running (None when it is)."""

    server: TestCluster
    kube: Kube
    trainer_missing: str | None = None


@contextmanager
def gang_cluster(folder: Path, say: Callable[[str], None]) -> Iterator[GangCluster]:
    """etcd, kube-apiserver, the controller manager, the gang-scheduling kube-scheduler,
    KWOK with a few nodes, and JobSet's and Trainer's managers; everything built first
    when not cached (``BuildUnavailable`` without Go). A Trainer build that fails leaves
    the cluster without it and says why."""
    apiserver = build_binaries(progress=say)
    parts = build_binaries(progress=say, script=PARTS_SCRIPT, what=PARTS)
    jobset = build_binaries(progress=say, script=JOBSET_SCRIPT, what="JobSet's controller")
    trainer: Path | None = None
    trainer_missing = None
    try:
        trainer = build_binaries(progress=say, script=TRAINER_SCRIPT, what="Trainer's controller")
    except RuntimeError as failed:
        trainer_missing = f"Kubeflow Trainer's controller could not be built: {failed}"
    server = TestCluster(apiserver, folder)
    components = ClusterParts(
        parts, server, stages=(*STAGES, "pod-complete"), scheduler_flags=(GANG_GATES,)
    )
    try:
        server.start()
        components.start()
        with server.client() as client:
            kube = Kube(client)
            register(kube, NODES)
            managers: list[Manager] = []
            managers.append(
                Manager(
                    "jobset",
                    jobset / "jobset",
                    server,
                    kube,
                    jobset_configuration,
                    frozenset({"jobset.x-k8s.io"}),
                )
            )
            if trainer is not None:
                managers.append(
                    Manager(
                        "trainer",
                        trainer / "trainer",
                        server,
                        kube,
                        trainer_configuration,
                        frozenset({"trainer.kubeflow.org"}),
                    )
                )
            try:
                for manager in managers:
                    manager.start()
                yield GangCluster(server, kube, trainer_missing)
            finally:  # while the client is open: their webhook configurations go too
                for manager in reversed(managers):
                    manager.stop()
    finally:
        components.stop()
        server.stop()
        remove(folder / "etcd")


@dataclass
class PodEvents:
    """Every pod event of one namespace, in the API server's order, from a watch started
    before the test creates anything there."""

    server: TestCluster
    namespace: str
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    broken: str | None = None  # why the record stopped, when it did
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _started: threading.Event = field(default_factory=threading.Event)

    def start(self) -> PodEvents:
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        if not self._started.wait(30):
            raise RuntimeError(f"the pod watch of {self.namespace} did not start")
        return self

    def stop(self) -> None:
        self._stop.set()

    def bound_while_short(self, min_counts: dict[str, int]) -> list[str]:
        """The pods bound to a node while fewer pods of their group than its minimum had
        been created; each as ``pod (group: created/minimum)``."""
        assert self.broken is None, f"the pod watch stopped: {self.broken}"
        created: dict[str, set[str]] = {}
        bound: set[str] = set()
        short = []
        for _, pod in list(self.events):
            name = pod["metadata"]["name"]
            group = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
            if group is None:
                continue
            created.setdefault(group, set()).add(name)
            if pod["spec"].get("nodeName") and name not in bound:
                bound.add(name)
                have, need = len(created[group]), min_counts.get(group, 0)
                if have < need:
                    short.append(f"{name} ({group}: {have}/{need})")
        return short

    def _watch(self) -> None:
        path = f"/api/v1/namespaces/{self.namespace}/pods"
        with self.server.client() as client:
            listed = client.get(path).raise_for_status().json()
            version = listed["metadata"]["resourceVersion"]
            self.events.extend(("ADDED", pod) for pod in listed.get("items") or ())
            self._started.set()
            while not self._stop.is_set():
                params = {"watch": "1", "resourceVersion": version, "timeoutSeconds": "30"}
                try:
                    with client.stream("GET", path, params=params, timeout=60) as answer:
                        for line in answer.iter_lines():
                            if self._stop.is_set():
                                return
                            event = json.loads(line)
                            if event["type"] not in {"ADDED", "MODIFIED", "DELETED"}:
                                # an expired version: events were missed, so the record
                                # can no longer vouch for what happened in between
                                self.broken = json.dumps(event["object"])
                                return
                            pod = event["object"]
                            version = pod["metadata"]["resourceVersion"]
                            self.events.append((event["type"], pod))
                except httpx.HTTPError:
                    continue


__all__ = ["GangCluster", "PodEvents", "gang_cluster"]
