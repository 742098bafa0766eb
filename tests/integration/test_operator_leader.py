"""Two replicas with leader election: one writes; when it dies the other takes over
within the lease time and catches up with what changed meanwhile."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, min_member
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster

LEASE_SECONDS = 15


def jobset(kube: Kube, namespace: str, name: str) -> dict[str, Any]:
    (obj,) = load("jobset/coordinator.yaml")
    obj["metadata"]["name"] = name
    return kube.create(obj, namespace)


def group_of(kube: Kube, namespace: str, obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        g
        for g in kube.list(*KAI, namespace)
        if g["metadata"]["ownerReferences"][0]["uid"] == obj["metadata"]["uid"]
        and min_member(g) == 5
    ]


def reconciled(process: OperatorProcess) -> int:
    """The replica's count of reconciliation steps done, from its health endpoint."""
    return int(httpx.get(process.health, timeout=5).json().get("reconciled", 0))


def test_only_the_leader_writes_and_a_follower_takes_over_when_it_dies(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    replicas = [
        OperatorProcess(
            cluster.kubeconfig,
            namespace,
            tmp_path / f"replica-{i}.log",
            arguments=("--leader-elect",),
        )
        for i in range(2)
    ]
    first, second = replicas
    try:
        first.start()
        second.start()
        made = jobset(kube, namespace, "first")
        wait_for(lambda: group_of(kube, namespace, made), "the first JobSet's group")
        wait_for(lambda: reconciled(first) > 0, "the leader's count of reconciliations", 30)
        assert "leading" in first.output() and "following" in second.output()
        assert reconciled(second) == 0, "the follower wrote nothing"

        first.kill()  # no clean stop: the lease is not given up
        killed = time.monotonic()
        later = jobset(kube, namespace, "after-the-leader-died")
        wait_for(lambda: group_of(kube, namespace, later), "the new leader catching up", 60)
        taken_over = time.monotonic() - killed
        assert "leading" in second.output()
        # within the lease time, plus one retry interval and the reconciliation itself
        assert taken_over < LEASE_SECONDS + LEASE_SECONDS / 5 + 10, taken_over
    finally:
        for process in replicas:
            process.stop()
