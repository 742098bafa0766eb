"""The operator's own gang objects read from its watch-fed cache against a real API server:
reconciling workloads again lists no PodGroup, and a group deleted or edited by someone
else is still restored, in both read modes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, converged, expected_minimum, min_member
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster

REQUESTS = re.compile(r"^apiserver_request_total\{([^}]*)\} (\S+)$", re.MULTILINE)
WORKLOADS = 6


def podgroup_requests(metrics: httpx.Client, verb: str) -> int:
    """Requests of one verb for PodGroups the server has answered so far."""
    return sum(
        int(float(value))
        for labels, value in REQUESTS.findall(metrics.get("/metrics").text)
        if 'resource="podgroups"' in labels and f'verb="{verb}"' in labels
    )


def reconciled(operator: OperatorProcess) -> int:
    return int(httpx.get(operator.health, timeout=10).json().get("reconciled", 0))


def jobsets(kube: Kube, namespace: str, count: int) -> dict[str, dict[str, Any]]:
    """JobSets with their Jobs and pods, made as their controllers would."""
    (template,) = load("jobset/coordinator.yaml")
    made = {}
    for index in range(count):
        obj = {**template, "metadata": {**template["metadata"], "name": f"js-{index}"}}
        made[obj["metadata"]["name"]] = created = kube.create(obj, namespace)
        jobset_children(kube, created)
    return made


def test_reconciling_workloads_again_lists_no_gang_object(
    cluster: TestCluster, kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    made = jobsets(kube, namespace, WORKLOADS)
    expected = {name: expected_minimum(obj) for name, obj in made.items()}
    wait_for(converged(kube, namespace, expected), "one PodGroup per JobSet")

    metrics = cluster.client()
    lists, gets = podgroup_requests(metrics, "LIST"), podgroup_requests(metrics, "GET")
    done = reconciled(operator)
    for obj in made.values():  # a change each reconciliation reads: all reconciled again
        kube.patch(obj, {"metadata": {"labels": {"example.com/touched": "yes"}}})
    wait_for(lambda: reconciled(operator) >= done + WORKLOADS, "every JobSet reconciled")
    assert podgroup_requests(metrics, "LIST") == lists, "PodGroups listed per reconciliation"
    assert podgroup_requests(metrics, "GET") == gets, "PodGroups fetched per reconciliation"
    assert converged(kube, namespace, expected)()  # and none applied twice or lost


@pytest.mark.parametrize("cached", ["true", "false"])
def test_groups_deleted_or_edited_are_restored(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path, cached: str
) -> None:
    process = OperatorProcess(
        cluster.kubeconfig, namespace, tmp_path / "op.log", env={"WLMAP_CACHED_READS": cached}
    )
    process.start()
    try:
        made = jobsets(kube, namespace, 2)
        expected = {name: expected_minimum(obj) for name, obj in made.items()}
        wait_for(converged(kube, namespace, expected), "one PodGroup per JobSet")
        deleted, edited = sorted(kube.list(*KAI, namespace), key=lambda g: g["metadata"]["name"])
        kube.delete(deleted)
        owner = edited["metadata"]["ownerReferences"][0]["name"]
        kube.patch(
            edited,
            {"spec": {"minSubGroup": 0, "subGroups": [{"name": "replicatedjob", "minMember": 1}]}},
        )

        def restored() -> bool:
            groups = {g["metadata"]["name"]: g for g in kube.list(*KAI, namespace)}
            again = groups.get(deleted["metadata"]["name"])
            return (
                converged(kube, namespace, expected)()
                and again is not None
                and again["metadata"]["uid"] != deleted["metadata"]["uid"]
                and min_member(groups[edited["metadata"]["name"]]) == expected[owner]
            )

        wait_for(restored, "the deleted group back and the edited one as written")
    finally:
        process.stop()
