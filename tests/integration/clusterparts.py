"""kube-controller-manager, kube-scheduler and KWOK against a TestCluster, built by
scripts/build-cluster-parts.sh.

With them a test cluster behaves as a real one for the kinds they handle: the Job and
StatefulSet controllers create pods, kube-scheduler binds them to nodes, KWOK plays the
kubelet of every node annotated ``kwok.x-k8s.io/node: fake`` (the node turns Ready, its
pods Running, and a deleted pod goes away), and the garbage collector removes what an
owner leaves behind. Every component authenticates with the cluster's admin token.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.integration.testcluster import REPO, TestCluster, check_alive, free_port, terminate

PARTS_SCRIPT = REPO / "scripts" / "build-cluster-parts.sh"
PARTS = "kube-scheduler, kube-controller-manager and kwok"
READY_TIMEOUT = 120.0
FAKE_NODE_ANNOTATION = "kwok.x-k8s.io/node"
# The controllers the tests need (of kube-controller-manager's names): pods for Jobs,
# ReplicaSets (so Deployments) and StatefulSets, garbage collection of what an owner
# leaves, namespace deletion, service accounts with their tokens, and node lifecycle: a
# new node is tainted not-ready when registered, and only that controller lifts the taint
# once KWOK reports the node Ready; and the claim controller, which makes a pod's
# ResourceClaims from the templates it names. Taint-based eviction is left out: a loaded machine can
# delay KWOK's lease renewals enough for a healthy node to be tainted unreachable for a
# while, and its pods should not be evicted for it.
CONTROLLERS = (
    "job-controller",
    "replicaset-controller",
    "deployment-controller",
    "statefulset-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "serviceaccount-controller",
    "serviceaccount-token-controller",
    "node-lifecycle-controller",
    "resourceclaim-controller",
)
# KWOK's default stages, but for pod-complete: a Job's pods stay Running until a test ends
# them, as a long training job's do.
STAGES = ("node-initialize", "node-heartbeat-with-lease", "pod-ready", "pod-delete")


@dataclass
class ClusterParts:
    """The processes, their logs in the cluster's folder, each checked healthy when started."""

    binaries: Path
    cluster: TestCluster
    controllers: tuple[str, ...] = CONTROLLERS
    stages: tuple[str, ...] = STAGES
    scheduler_flags: tuple[str, ...] = ()  # e.g. feature gates of one cluster's scheduler
    _running: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)

    def start(self) -> None:
        """Start the controller manager, the scheduler and KWOK, each until it is healthy."""
        try:
            self._start_controller_manager()
            self._start_scheduler()
            self._start_kwok()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        while self._running:
            terminate(self._running.pop()[1])

    def _start_controller_manager(self) -> None:
        folder = self.cluster.folder
        port = free_port()
        self._run(
            "kube-controller-manager",
            [
                *self._component_flags("kube-controller-manager", port),
                f"--controllers={','.join(self.controllers)}",
                f"--service-account-private-key-file={folder / 'sa.key'}",
                f"--root-ca-file={folder / 'certs' / 'apiserver.crt'}",
                "--cluster-name=wlmap-test",
                # the default 20 requests/s lifts the not-ready taint of 5 new nodes a second
                "--kube-api-qps=500",
                "--kube-api-burst=1000",
            ],
            f"https://127.0.0.1:{port}/healthz",
        )

    def _start_scheduler(self) -> None:
        port = free_port()
        self._run(
            "kube-scheduler",
            [*self._component_flags("kube-scheduler", port), *self.scheduler_flags],
            f"https://127.0.0.1:{port}/readyz",
        )

    def _start_kwok(self) -> None:
        port = free_port()
        configs = [self.binaries / "stages" / f"{stage}.yaml" for stage in self.stages]
        self._run(
            "kwok",
            [
                f"--kubeconfig={self.cluster.kubeconfig}",
                f"--manage-nodes-with-annotation-selector={FAKE_NODE_ANNOTATION}=fake",
                *(f"--config={config}" for config in configs),
                "--node-lease-duration-seconds=40",
                # pod IPs (status only, nothing is routed): room for thousands of pods
                "--cidr=10.0.0.1/16",
                f"--server-address=127.0.0.1:{port}",
            ],
            f"http://127.0.0.1:{port}/healthz",
        )

    def _component_flags(self, name: str, port: int) -> list[str]:
        config = str(self.cluster.kubeconfig)
        return [
            f"--kubeconfig={config}",
            f"--authentication-kubeconfig={config}",
            f"--authorization-kubeconfig={config}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={self.cluster.folder / f'certs-{name}'}",
            "--leader-elect=false",
        ]

    def _run(self, name: str, arguments: list[str], health: str) -> None:
        log_path = self.cluster.folder / f"{name}.log"
        with log_path.open("ab") as log:
            process = subprocess.Popen(
                [str(self.binaries / name), *arguments], stdout=log, stderr=subprocess.STDOUT
            )
        self._running.append((name, process))
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            check_alive(process, log_path)
            try:
                if httpx.get(health, verify=False, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"{name} did not become healthy: see {log_path}")


__all__ = ["CONTROLLERS", "FAKE_NODE_ANNOTATION", "PARTS", "PARTS_SCRIPT", "STAGES", "ClusterParts"]
