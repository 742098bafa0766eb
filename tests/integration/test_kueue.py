"""Kueue (built from its module, see kueue.py) admitting Jobs on the KWOK cluster: its
webhook suspends a queued Job, it admits the Job whole when the queue's GPU quota allows,
and the real controllers, scheduler and KWOK then run its pods; a Job that does not fit
waits, suspended and without pods, until quota is freed."""

from __future__ import annotations

from typing import Any

from tests.integration.fakenodes import BLOCK_LABEL, GPU, HOST_LABEL, RACK_LABEL, KwokCluster
from tests.integration.kube import Kube, wait_for
from tests.integration.kueue import Kueue, admitted
from tests.integration.kwokpods import owned_pods, placement, pod_template, running

QUOTA = 64  # GPUs of the test's ClusterQueue
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"


def queues(kube: Kube, namespace: str, quota_gpus: int = QUOTA, topology: bool = False) -> None:
    """A flavor for the fake nodes (with their block/rack/host topology when asked), a
    ClusterQueue with ``quota_gpus`` GPUs for the test's namespace only, and its LocalQueue
    ``team``."""
    api = "kueue.x-k8s.io/v1beta2"
    flavor: dict[str, Any] = {"nodeLabels": {"type": "kwok"}}
    if topology:
        levels = [{"nodeLabel": label} for label in (BLOCK_LABEL, RACK_LABEL, HOST_LABEL)]
        kube.create(
            {
                "apiVersion": api,
                "kind": "Topology",
                "metadata": {"name": namespace},
                "spec": {"levels": levels},
            }
        )
        flavor["topologyName"] = namespace
    kube.create(
        {
            "apiVersion": api,
            "kind": "ResourceFlavor",
            "metadata": {"name": namespace},
            "spec": flavor,
        }
    )
    quota = {"name": GPU, "nominalQuota": quota_gpus}
    kube.create(
        {
            "apiVersion": api,
            "kind": "ClusterQueue",
            "metadata": {"name": namespace},
            "spec": {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
                "resourceGroups": [
                    {
                        "coveredResources": [GPU],
                        "flavors": [{"name": namespace, "resources": [quota]}],
                    }
                ],
            },
        }
    )
    kube.create(
        {
            "apiVersion": api,
            "kind": "LocalQueue",
            "metadata": {"name": "team"},
            "spec": {"clusterQueue": namespace},
        },
        namespace,
    )


def queued_job(name: str, pods: int, gpus: int, rack: str | None) -> dict[str, Any]:
    """A Job for the queue ``team``: held to ``rack`` by a node selector, or else asking
    Kueue to keep all its pods in one rack."""
    template = pod_template({RACK_LABEL: rack} if rack else {}, gpus, {}, restart="Never")
    if rack is None:
        template["metadata"]["annotations"] = {REQUIRED_TOPOLOGY: RACK_LABEL}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "labels": {QUEUE_LABEL: "team"}},
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "template": template,
        },
    }


def test_kueue_admits_a_job_whole_within_quota_and_holds_one_that_does_not_fit(
    kueue: Kueue, kwok_cluster: KwokCluster, kwok_namespace: str
) -> None:
    kube, rack = kwok_cluster.kube, "b3-r1"
    queues(kube, kwok_namespace)
    first = kube.create(queued_job("first", 4, 8, rack), kwok_namespace)
    assert first["spec"]["suspend"] is True  # Kueue's webhook holds it for the queue
    pods = wait_for(running(kube, kwok_namespace, first, 4), "the admitted Job's 4 pods Running")
    assert {labels[RACK_LABEL] for labels in placement(kwok_cluster, pods).values()} == {rack}
    # 32 of 64 GPUs are taken: a Job asking 40 more is not admitted, not even in part
    second = kube.create(queued_job("second", 5, 8, rack), kwok_namespace)
    wait_for(
        lambda: _pending(kube, kwok_namespace, "second"), "Kueue to report the second Job pending"
    )
    assert not admitted(kube, kwok_namespace, "second")
    assert owned_pods(kube, kwok_namespace, second) == []
    kube.delete(first)
    wait_for(lambda: admitted(kube, kwok_namespace, "second"), "the second Job admitted")
    wait_for(running(kube, kwok_namespace, second, 5), "the second Job's 5 pods Running")


def test_kueue_places_a_job_that_requires_one_rack_inside_one_rack(
    kueue: Kueue, kwok_cluster: KwokCluster, kwok_namespace: str
) -> None:
    kube, topology = kwok_cluster.kube, kwok_cluster.topology
    queues(kube, kwok_namespace, quota_gpus=topology.size * topology.gpus, topology=True)
    # a whole rack's worth of pods, one per host: kube-scheduler alone would spread them
    size = topology.hosts
    job = kube.create(queued_job("rack", size, topology.gpus, None), kwok_namespace)
    pods = wait_for(running(kube, kwok_namespace, job, size), f"{size} pods Running", timeout=120)
    where = placement(kwok_cluster, pods).values()
    assert len({labels[RACK_LABEL] for labels in where}) == 1
    assert len({labels[HOST_LABEL] for labels in where}) == size


def _pending(kube: Kube, namespace: str, job: str) -> bool:
    """Whether the Job's Workload says it waits for quota."""
    for workload in kube.list("kueue.x-k8s.io/v1beta2", "Workload", namespace):
        owners = {ref["name"] for ref in workload["metadata"].get("ownerReferences") or ()}
        conditions = {c["type"]: c for c in (workload.get("status") or {}).get("conditions") or ()}
        quota = conditions.get("QuotaReserved")
        if job in owners and quota is not None and quota["status"] == "False":
            return True
    return False
