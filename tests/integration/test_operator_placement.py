"""The placement controller on the KWOK cluster: the operator's webhook gates the pods of
an opted-in Job at creation, the controller plans the gang, narrows each pod to the rack
the plan chose and releases it, and kube-scheduler binds every pod inside that rack; a gang
no rack can hold stays gated with the reason on the Job until its namespace opts out,
which releases it untouched; a namespace not opted in gets no gate. A StatefulSet (no gang
in its definition) whose GPU pods require a rack is placed as one gang in one rack; one
without a topology intent is released with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.fakenodes import RACK_LABEL, KwokCluster
from tests.integration.kube import Kube, wait_for
from tests.integration.kwokpods import owned_pods, placement, pod_template, running
from tests.integration.operator_process import OperatorProcess, refused_lines
from tests.integration.placing import (
    OPT_IN,
    condition,
    events,
    gated,
    start_as_service_account,
    start_operator,
)

REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"


@pytest.fixture
def placing(
    kwok_cluster: KwokCluster, kwok_namespace: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[OperatorProcess]:
    """The operator serving the test's namespace with the placement controller on, once
    its webhook is registered with the API server; the namespace opted in to gangs, and to
    placement unless the test says ``False``."""
    kube = kwok_cluster.kube
    opted_in = getattr(request, "param", True)
    labels = {"wlmap.dev/gang": "true", **({OPT_IN: "enabled"} if opted_in else {})}
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": kwok_namespace}}
    kube.patch(namespace, {"metadata": {"labels": labels}})
    process = start_operator(kube, kwok_cluster.cluster.kubeconfig, kwok_namespace, tmp_path)
    try:
        yield process
    finally:
        process.stop()


def _job(name: str, pods: int, gpus: int) -> dict[str, Any]:
    template = pod_template({}, gpus, {}, restart="Never")
    template["metadata"]["annotations"] = {REQUIRED_TOPOLOGY: RACK_LABEL}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"parallelism": pods, "completions": pods, "template": template},
    }


def _statefulset(name: str, pods: int, gpus: int, level: str | None) -> dict[str, Any]:
    """GPU pods created all at once (``Parallel``), requiring one domain of ``level``."""
    template = pod_template({}, gpus, {"app": name})
    if level is not None:
        template["metadata"]["annotations"] = {REQUIRED_TOPOLOGY: level}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": pods,
            "podManagementPolicy": "Parallel",
            "serviceName": name,
            "selector": {"matchLabels": {"app": name}},
            "template": template,
        },
    }


def _placed(kube: Kube, job: dict[str, Any]) -> dict[str, Any] | None:
    """The condition once it says ``Placed`` (it says ``WaitingForPods`` before)."""
    found = condition(kube, job)
    return found if found is not None and found["reason"] == "Placed" else None


def test_a_gang_that_requires_one_rack_is_gated_narrowed_released_and_bound_in_one_rack(
    kwok_cluster: KwokCluster, kwok_namespace: str, placing: OperatorProcess
) -> None:
    kube = kwok_cluster.kube
    job = kube.create(_job("train", 4, 8), kwok_namespace)
    pods = wait_for(running(kube, kwok_namespace, job, 4), "the Job's 4 pods Running", timeout=90)
    racks = {labels[RACK_LABEL] for labels in placement(kwok_cluster, pods).values()}
    assert len(racks) == 1, placing.output()[-3000:]
    (rack,) = racks
    for pod in pods:  # each was narrowed to that rack (with its block), then released
        assert not gated(pod)
        terms = pod["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"]
        assert {"key": RACK_LABEL, "operator": "In", "values": [rack]} in terms[0][
            "matchExpressions"
        ]
        # and pinned to the node its plan chose, where kube-scheduler bound it
        node = {"key": "metadata.name", "operator": "In", "values": [pod["spec"]["nodeName"]]}
        assert terms[0]["matchFields"] == [node]
    said = wait_for(lambda: _placed(kube, job), "the Job's condition saying it was placed")
    assert said["status"] == "True"
    assert f"{RACK_LABEL}={rack}" in said["message"]
    assert events(kube, kwok_namespace, "Placed")


def test_a_gang_no_rack_can_hold_stays_gated_with_the_reason_until_opted_out(
    kwok_cluster: KwokCluster, kwok_namespace: str, placing: OperatorProcess
) -> None:
    kube, topology = kwok_cluster.kube, kwok_cluster.topology
    size = topology.hosts + 4  # 20 pods of a whole node each; a rack has 16 nodes
    job = kube.create(_job("too-big", size, topology.gpus), kwok_namespace)
    said = wait_for(
        lambda: (c := condition(kube, job)) and c["reason"] == "DoesNotFit" and c,
        "the Job's condition saying why it waits",
        timeout=90,
    )
    assert said["status"] == "False"
    assert "rack" in said["message"] and str(size * topology.gpus) in said["message"], said
    pods = owned_pods(kube, kwok_namespace, job)
    assert len(pods) == size
    assert all(gated(p) and not p["spec"].get("nodeName") for p in pods)
    assert events(kube, kwok_namespace, "DoesNotFit")
    # opting the namespace out releases the held pods as they were: no domain is imposed
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": kwok_namespace}}
    kube.patch(namespace, {"metadata": {"labels": {OPT_IN: None}}})
    released = wait_for(
        lambda: (p := owned_pods(kube, kwok_namespace, job)) and not any(map(gated, p)) and p,
        "the Job's pods released",
        timeout=60,
    )
    assert len(released) == size
    assert not any(p["spec"].get("affinity") for p in released)


def test_a_statefulset_whose_gpu_pods_require_a_rack_is_placed_as_one_gang_in_one_rack(
    kwok_cluster: KwokCluster, kwok_namespace: str, placing: OperatorProcess
) -> None:
    kube = kwok_cluster.kube
    statefulset = kube.create(_statefulset("serve", 6, 8, RACK_LABEL), kwok_namespace)
    pods = wait_for(
        running(kube, kwok_namespace, statefulset, 6), "the StatefulSet's 6 pods", timeout=90
    )
    racks = {labels[RACK_LABEL] for labels in placement(kwok_cluster, pods).values()}
    assert len(racks) == 1, placing.output()[-3000:]
    (rack,) = racks
    for pod in pods:  # narrowed to the rack and pinned, then bound there
        assert not gated(pod)
        terms = pod["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"]
        assert {"key": RACK_LABEL, "operator": "In", "values": [rack]} in terms[0][
            "matchExpressions"
        ]
        assert terms[0]["matchFields"][0]["values"] == [pod["spec"]["nodeName"]]
    # the StatefulSet controller replaces the whole status once the pods run (no condition
    # kept): the operator writes it again
    said = wait_for(lambda: _placed(kube, statefulset), "the StatefulSet's condition: placed")
    assert said["status"] == "True"
    assert "gang pods: 6 pods in" in said["message"] and f"{RACK_LABEL}={rack}" in said["message"]
    assert events(kube, kwok_namespace, "Placed")


def test_a_statefulset_creating_pods_one_at_a_time_waits_with_the_reason(
    kwok_cluster: KwokCluster, kwok_namespace: str, placing: OperatorProcess
) -> None:
    kube = kwok_cluster.kube
    ordered = _statefulset("ordered", 3, 8, RACK_LABEL)
    del ordered["spec"]["podManagementPolicy"]  # OrderedReady, the default
    statefulset = kube.create(ordered, kwok_namespace)
    said = wait_for(
        lambda: (c := condition(kube, statefulset)) and c["reason"] == "WaitingForPods" and c,
        "the StatefulSet's condition saying what it waits for",
    )
    assert "waiting for its 3 pods to exist" in said["message"]
    assert "OrderedReady" in said["message"] and "Parallel" in said["message"]
    pods = owned_pods(kube, kwok_namespace, statefulset)
    assert len(pods) == 1 and gated(pods[0])  # the first pod, held; no second one


def test_a_statefulset_without_topology_intent_is_released_with_the_reason(
    kwok_cluster: KwokCluster, kwok_namespace: str, placing: OperatorProcess
) -> None:
    kube = kwok_cluster.kube
    statefulset = kube.create(_statefulset("plain", 3, 8, None), kwok_namespace)
    pods = wait_for(running(kube, kwok_namespace, statefulset, 3), "3 pods Running", timeout=90)
    # the webhook gated them; they were released as they were, with no domain imposed
    assert not any(gated(p) or p["spec"].get("affinity") for p in pods)
    said = wait_for(
        lambda: (c := condition(kube, statefulset)) and c["reason"] == "NoGang" and c,
        "the StatefulSet's condition saying why its pods were released",
    )
    assert said["status"] == "True"
    assert "no gang in its definition and no GPU pods with a topology intent" in said["message"]
    assert events(kube, kwok_namespace, "NoGang")


@pytest.mark.parametrize("placing", [False], indirect=True)
def test_a_namespace_not_opted_in_gets_no_gates(
    kwok_cluster: KwokCluster, kwok_namespace: str, placing: OperatorProcess
) -> None:
    kube = kwok_cluster.kube
    job = kube.create(_job("plain", 4, 8), kwok_namespace)
    pods = wait_for(running(kube, kwok_namespace, job, 4), "the Job's 4 pods Running", timeout=90)
    assert not any(gated(p) or p["spec"].get("affinity") for p in pods)
    assert condition(kube, job) is None


def test_the_generated_placement_rbac_and_admission_policy_let_the_controller_work(
    kwok_cluster: KwokCluster, kwok_namespace: str, tmp_path: Path
) -> None:
    """As the operator's service account, with ``rbac --placement`` and the pod policy:
    the gang is placed in one rack and no request is refused."""
    kube = kwok_cluster.kube
    operator = start_as_service_account(kwok_cluster, kwok_namespace, tmp_path)
    try:
        job = kube.create(_job("as-itself", 4, 8), kwok_namespace)
        pods = wait_for(running(kube, kwok_namespace, job, 4), "4 pods Running", timeout=90)
        assert len({labels[RACK_LABEL] for labels in placement(kwok_cluster, pods).values()}) == 1
        wait_for(lambda: _placed(kube, job), "the Job's condition saying it was placed")
    finally:
        operator.stop()
    assert refused_lines(operator.output()) == []
