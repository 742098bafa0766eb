"""Faults, live, on the KWOK cluster: a node made NotReady (or tainted GPU-unhealthy)
under a running gang has its pods evicted by the placement controller; the Job controller makes replacements, the
webhook gates them, and the controller places them in the gang's rack, off the faulty node,
without moving a healthy pod. The time from the fault to the last replacement bound is
printed (not asserted: the machine's load decides it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.clusterparts import FAKE_NODE_ANNOTATION
from tests.integration.conftest import terminal
from tests.integration.fakenodes import RACK_LABEL, KwokCluster, ready_count
from tests.integration.kube import Kube, wait_for
from tests.integration.kwokpods import owned_pods, pod_template, running
from tests.integration.operator_process import OperatorProcess, refused_lines
from tests.integration.placing import (
    condition,
    events,
    gated,
    restart_leading,
    start_as_service_account,
)
from wlmap.operator.placing.node_faults import GPU_TAINT

REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
PODS, GPUS = 6, 4  # two pods to an 8-GPU node: a node's fault takes more than one


@pytest.fixture
def placing(
    kwok_cluster: KwokCluster, kwok_namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    """The operator as its own service account (the generated RBAC with ``--placement``
    and the pod policy installed), serving the namespace opted in to placement."""
    process = start_as_service_account(kwok_cluster, kwok_namespace, tmp_path)
    try:
        yield process
    finally:
        process.stop()


def _job(name: str) -> dict[str, Any]:
    template = pod_template({}, GPUS, {}, restart="Never")
    template["metadata"]["annotations"] = {REQUIRED_TOPOLOGY: RACK_LABEL}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"parallelism": PODS, "completions": PODS, "template": template},
    }


def _fail(kube: Kube, name: str) -> float:
    """Make a node NotReady as a node whose kubelet died: KWOK stops playing it (no more
    heartbeats), and its Ready condition turns False; the moment it did (monotonic).

    KWOK drops the node only once it has seen the annotation go, and until then it sets
    Ready back to True; on a loaded machine that takes longer than any fixed sleep. So the
    condition is set again until it has held for ``_STEADY_SECONDS``.
    """
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    kube.patch(node, {"metadata": {"annotations": {FAKE_NODE_ANNOTATION: None}}})
    time.sleep(2)  # KWOK has most likely seen the node leave
    deadline = time.monotonic() + 60
    while True:
        current = kube.get("v1", "Node", None, name)
        assert current is not None
        conditions = [
            {**c, "status": "False", "reason": "KubeletNotReady", "message": "kubelet stopped"}
            if c["type"] == "Ready"
            else c
            for c in current["status"]["conditions"]
        ]
        kube.set_status(current, {"conditions": conditions})
        failed = time.monotonic()
        while time.monotonic() - failed < _STEADY_SECONDS and _not_ready(kube, name):
            time.sleep(0.2)
        if _not_ready(kube, name):
            return failed
        assert time.monotonic() < deadline, f"KWOK kept setting node {name} Ready"


_STEADY_SECONDS = 3.0


def _not_ready(kube: Kube, name: str) -> bool:
    node = kube.get("v1", "Node", None, name)
    assert node is not None
    ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
    return bool(ready) and ready[0]["status"] == "False"


def _heal(kube: Kube, kwok: KwokCluster, name: str) -> None:
    """Give the node back to KWOK: it turns Ready, its leftover pods go, and the node
    lifecycle controller lifts its taints (the other tests expect every node usable)."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    kube.patch(node, {"metadata": {"annotations": {FAKE_NODE_ANNOTATION: "fake"}}})
    size = kwok.topology.size
    wait_for(lambda: ready_count(kube) >= size, "the healed node Ready", timeout=120)


def _taint(kube: Kube, name: str) -> float:
    """Mark a node's GPUs unhealthy as a health checker would: the documented taint."""
    current = kube.get("v1", "Node", None, name)
    assert current is not None
    taints = [*(current["spec"].get("taints") or ()), {"key": GPU_TAINT, "effect": "NoSchedule"}]
    kube.patch(current, {"spec": {"taints": taints}})
    return time.monotonic()


def _untaint(kube: Kube, kwok: KwokCluster, name: str) -> None:
    current = kube.get("v1", "Node", None, name)
    assert current is not None
    taints = [t for t in current["spec"].get("taints") or () if t["key"] != GPU_TAINT]
    kube.patch(current, {"spec": {"taints": taints or None}})
    size = kwok.topology.size
    wait_for(lambda: ready_count(kube) >= size, "the node untainted", timeout=60)


# each fault: how to cause it, how to end it, and what the controller calls it
FAULTS = {
    "not-ready": (_fail, _heal, "NotReady"),
    "gpu-unhealthy": (_taint, _untaint, "GPUUnhealthy"),
}


def _replacements_bound(
    kube: Kube,
    namespace: str,
    job: dict[str, Any],
    first: set[str],
    count: int,
    seen: dict[str, float] | None = None,
) -> list[dict[str, Any]]:
    """The Job's new pods once ``count`` of them are bound; ``seen`` collects when (by the
    monotonic clock) the pods on the faulty node were first seen evicted, ``count``
    replacements first seen created, and bound."""
    pods = owned_pods(kube, namespace, job)
    new = [
        p
        for p in pods
        if p["metadata"]["name"] not in first and not p["metadata"].get("deletionTimestamp")
    ]
    bound = [p for p in new if p["spec"].get("nodeName")]
    if seen is not None:
        now = time.monotonic()
        if sum(bool(p["metadata"].get("deletionTimestamp")) for p in pods) >= count:
            seen.setdefault("evicted", now)
        if len(new) >= count:
            seen.setdefault("replacements created", now)
        if len(bound) >= count:
            seen.setdefault("bound", now)
    return bound if len(bound) >= count else []


@pytest.mark.parametrize("fault", FAULTS)
def test_pods_of_a_failed_node_rejoin_their_gang(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    placing: OperatorProcess,
    pytestconfig: pytest.Config,
    fault: str,
) -> None:
    """A running gang's pods on a node that fails (NotReady, or its GPUs marked unhealthy)
    are evicted and replaced in the gang's rack, off that node, no healthy pod moved."""
    cause, end, reason = FAULTS[fault]
    kube = kwok_cluster.kube
    job = kube.create(_job("train"), kwok_namespace)
    pods = wait_for(running(kube, kwok_namespace, job, PODS), "the Job's pods Running", 90)
    nodes = kwok_cluster.nodes()
    racks = {nodes[p["spec"]["nodeName"]]["metadata"]["labels"][RACK_LABEL] for p in pods}
    assert len(racks) == 1, placing.output()[-3000:]
    (rack,) = racks
    by_node: dict[str, list[str]] = {}
    for pod in pods:
        by_node.setdefault(pod["spec"]["nodeName"], []).append(pod["metadata"]["name"])
    faulty = max(by_node, key=lambda n: (len(by_node[n]), n))
    lost = len(by_node[faulty])
    healthy = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods}
    for name in by_node[faulty]:
        del healthy[name]
    started = cause(kube, faulty)
    seen: dict[str, float] = {}
    try:
        new = wait_for(
            lambda: _replacements_bound(
                kube, kwok_namespace, job, {*healthy, *by_node[faulty]}, lost, seen
            ),
            f"{lost} replacement pod(s) bound",
            timeout=120,
            interval=0.1,
        )
        steps = ", ".join(f"{k} +{t - started:.1f} s" for k, t in seen.items())
        (terminal(pytestconfig) or print)(
            f"node {faulty} {reason} under a {PODS}-pod gang, {lost} pod(s) on it: "
            f"fault to last replacement bound {seen['bound'] - started:.2f} s ({steps})"
        )
        nodes = kwok_cluster.nodes()  # a NotReady node is no longer KWOK's: not among them
        for pod in new:
            assert pod["spec"]["nodeName"] != faulty
            assert nodes[pod["spec"]["nodeName"]]["metadata"]["labels"][RACK_LABEL] == rack
            assert not gated(pod)
        now = {p["metadata"]["name"]: p for p in owned_pods(kube, kwok_namespace, job)}
        for name, node in healthy.items():  # no healthy pod moved or stopped
            assert now[name]["spec"]["nodeName"] == node
            assert not now[name]["metadata"].get("deletionTimestamp")
        said = wait_for(
            lambda: (c := condition(kube, job)) and c["reason"] == "Replaced" and c,
            "the Job's condition saying the pods were replaced",
        )
        assert said["status"] == "True"
        assert f"{lost} pod(s) of {GPUS} GPU(s) placed in rack" in said["message"], said
        evicted = events(kube, kwok_namespace, "NodeFault")
        assert evicted and f"node {faulty} is {reason}" in evicted[0]["message"]
        assert events(kube, kwok_namespace, "Replaced")
    finally:
        end(kube, kwok_cluster, faulty)
    assert refused_lines(placing.output()) == []


LEASE_SECONDS = 10  # longer than failing a node takes: it fails while no replica leads


def test_a_node_that_failed_while_no_replica_led_is_acted_on_by_the_next_leader(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    placing: OperatorProcess,
    pytestconfig: pytest.Config,
) -> None:
    """The leading replica dies with its lease held and a node under the gang fails: a
    new replica, started while the lease lasts, sees the node's events as a follower and
    evicts its pods when it takes the lease over (a failed node sends no further event)."""
    kube = kwok_cluster.kube
    restart_leading(placing, LEASE_SECONDS)
    job = kube.create(_job("led"), kwok_namespace)
    pods = wait_for(running(kube, kwok_namespace, job, PODS), "the Job's pods Running", 90)
    by_node: dict[str, list[str]] = {}
    for pod in pods:
        by_node.setdefault(pod["spec"]["nodeName"], []).append(pod["metadata"]["name"])
    faulty = max(by_node, key=lambda n: (len(by_node[n]), n))
    placing.kill()  # its lease stays held until it expires
    placing.start()  # following while the dead replica's lease lasts
    started = _fail(kube, faulty)
    try:
        wait_for(
            lambda: _replacements_bound(
                kube,
                kwok_namespace,
                job,
                {p["metadata"]["name"] for p in pods},
                len(by_node[faulty]),
            ),
            "the replacements bound",
            timeout=120,
            interval=0.1,
        )
        (terminal(pytestconfig) or print)(
            f"node {faulty} NotReady while no replica led: replacements bound "
            f"{time.monotonic() - started:.2f} s after the fault (lease {LEASE_SECONDS} s)"
        )
        log = placing.output()
        assert log.count("following: another replica holds the lease") == 1
        assert log.rindex("leading: this replica writes") < log.rindex(f"node {faulty} is faulty")
        evicted = events(kube, kwok_namespace, "NodeFault")
        assert evicted and f"node {faulty} is NotReady" in evicted[0]["message"]
    finally:
        _heal(kube, kwok_cluster, faulty)
    assert refused_lines(placing.output()) == []


def test_an_eviction_a_disruption_budget_refuses_is_reported_and_tried_again(
    kwok_cluster: KwokCluster, kwok_namespace: str, placing: OperatorProcess
) -> None:
    kube = kwok_cluster.kube
    job = kube.create(_job("guarded"), kwok_namespace)
    pods = wait_for(running(kube, kwok_namespace, job, PODS), "the Job's pods Running", 90)
    rack = {
        kwok_cluster.nodes()[p["spec"]["nodeName"]]["metadata"]["labels"][RACK_LABEL] for p in pods
    }
    budget = kube.create(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "guarded"},
            "spec": {
                "minAvailable": PODS,
                "selector": {"matchLabels": {"batch.kubernetes.io/job-name": "guarded"}},
            },
        },
        kwok_namespace,
    )
    faulty = pods[0]["spec"]["nodeName"]
    on_faulty = {p["metadata"]["name"] for p in pods if p["spec"]["nodeName"] == faulty}
    _fail(kube, faulty)
    try:
        said = wait_for(
            lambda: (c := condition(kube, job)) and c["reason"] == "EvictionRefused" and c,
            "the Job's condition saying the eviction was refused",
        )
        assert said["status"] == "False"
        assert f"node {faulty} is NotReady: eviction of" in said["message"], said
        assert events(kube, kwok_namespace, "EvictionRefused")
        now = {p["metadata"]["name"]: p for p in owned_pods(kube, kwok_namespace, job)}
        assert not any(now[name]["metadata"].get("deletionTimestamp") for name in on_faulty)
        kube.delete(budget)  # the budget gone, the next attempt evicts
        new = wait_for(
            lambda: _replacements_bound(
                kube, kwok_namespace, job, {p["metadata"]["name"] for p in pods}, len(on_faulty)
            ),
            "the replacements bound once the budget is gone",
            timeout=150,
        )
        assert faulty not in {p["spec"]["nodeName"] for p in new}
        nodes = kwok_cluster.nodes()
        assert {nodes[p["spec"]["nodeName"]]["metadata"]["labels"][RACK_LABEL] for p in new} == rack
    finally:
        _heal(kube, kwok_cluster, faulty)
