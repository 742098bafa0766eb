"""The operator's watch-fed cache against a real API server: pods attributed whatever order
they and their owners arrive in, deletions forgotten, and a restart relisting everything."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import yaml

from tests.integration.controllers import jobset_children, lws_children, owner_reference, run_pod
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, converged, expected_minimum
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster

LINK = "pod-group-name"


def jobset(kube: Kube, namespace: str, name: str) -> dict[str, Any]:
    (obj,) = load("jobset/coordinator.yaml")
    obj["metadata"]["name"] = name
    return kube.create(obj, namespace)


def groups_by_owner(kube: Kube, namespace: str) -> dict[str, str]:
    """The KAI PodGroups of the namespace by the name of the workload that owns each."""
    return {
        owner["name"]: group["metadata"]["name"]
        for group in kube.list(*KAI, namespace)
        for owner in group["metadata"].get("ownerReferences") or ()
    }


def all_linked(kube: Kube, namespace: str, jobsets: set[str]) -> bool:
    """Every pod of the namespace carries the group its JobSet owns (by the pod's label),
    and every one of ``jobsets`` has its group."""
    groups = groups_by_owner(kube, namespace)
    pods = kube.list("v1", "Pod", namespace)
    return (
        bool(pods)
        and jobsets <= groups.keys()
        and all(
            (p["metadata"].get("annotations") or {}).get(LINK)
            == groups.get(p["metadata"]["labels"].get("jobset.sigs.k8s.io/jobset-name"), "")
            for p in pods
        )
    )


def test_a_pod_created_before_its_job_joins_the_gang_once_the_job_owns_it(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    created = jobset(kube, namespace, "early-pods")
    wait_for(lambda: kube.list(*KAI, namespace), "the JobSet's PodGroup")
    labels = {
        "jobset.sigs.k8s.io/jobset-name": "early-pods",
        "jobset.sigs.k8s.io/replicatedjob-name": "driver",
        "jobset.sigs.k8s.io/job-index": "0",
    }
    template = created["spec"]["replicatedJobs"][1]["template"]["spec"]
    # the pod exists first, owned by nothing: no gang can claim it yet
    pod = kube.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "early-pods-driver-0-0", "labels": labels},
            "spec": template["template"]["spec"],
        },
        namespace,
    )
    job = kube.create(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "early-pods-driver-0",
                "labels": labels,
                "ownerReferences": [owner_reference(created)],
            },
            "spec": {
                **template,
                "suspend": True,
                "template": {
                    **template["template"],
                    "spec": {"restartPolicy": "OnFailure", **template["template"]["spec"]},
                },
            },
        },
        namespace,
    )
    # the Job adopts it, as the Job controller adopts matching orphans
    kube.patch(pod, {"metadata": {"ownerReferences": [owner_reference(job)]}})

    wait_for(
        lambda: all_linked(kube, namespace, {"early-pods"}),
        "the adopted pod linked to the JobSet's PodGroup",
    )


def test_a_deleted_pod_and_its_replacements_leave_the_links_consistent(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    created = jobset(kube, namespace, "replaced")
    pods = jobset_children(kube, created)
    groups = {"replaced"}
    wait_for(lambda: all_linked(kube, namespace, groups), "every pod linked")

    gone = pods[0]
    kube.delete(gone)
    wait_for(lambda: kube.get("v1", "Pod", namespace, gone["metadata"]["name"]) is None, "gone")
    # one replacement under the same name (a new uid, no link yet), one under a new name
    for name in (gone["metadata"]["name"], gone["metadata"]["name"] + "-retry"):
        replacement = copy.deepcopy(gone)
        replacement["metadata"] = {
            "name": name,
            "labels": gone["metadata"]["labels"],
            "ownerReferences": gone["metadata"]["ownerReferences"],
        }
        replacement.pop("status")
        kube.create(replacement, namespace)

    wait_for(lambda: all_linked(kube, namespace, groups), "the replacements linked")
    assert len(kube.list("v1", "Pod", namespace)) == 6
    (group,) = kube.list(*KAI, namespace)
    assert [o["name"] for o in group["metadata"]["ownerReferences"]] == ["replaced"]
    assert "request refused" not in operator.output()


def test_an_operator_restarted_midway_converges_on_what_changed_while_it_was_down(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    process = OperatorProcess(cluster.kubeconfig, namespace, tmp_path / "op.log").start()
    try:
        expected: dict[str, int] = {}
        children: dict[str, list[dict[str, Any]]] = {}
        for index in range(6):
            if index == 3:
                process.kill()  # mid-way: later JobSets and pods appear while it is down
            created = jobset(kube, namespace, f"js-{index}")
            expected[f"js-{index}"] = expected_minimum(created)
            children[f"js-{index}"] = jobset_children(kube, created)
        kube.delete(children["js-0"][0])  # a deletion no watch sees
        process.start()

        groups = set(expected)
        wait_for(converged(kube, namespace, expected), "one group per JobSet", 120)
        wait_for(lambda: all_linked(kube, namespace, groups), "every pod linked", 120)
        assert len(kube.list("v1", "Pod", namespace)) == 29
    finally:
        process.stop()


def test_groups_keyed_by_pods_follow_pod_deletions(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    # a LeaderWorkerSet gets one gang per group of pods present: when a scale-down deletes
    # a group's pods, that group's PodGroup must go, though the pods were the last change
    (lws,) = load("lws-leaderworkerset/sample-v1.yaml")
    lws["spec"]["replicas"] = 2
    created = kube.create(lws, namespace)
    groups = lws_children(kube, created)
    wait_for(lambda: len(kube.list(*KAI, namespace)) == 2, "one PodGroup per group")
    kube.patch(created, {"spec": {"replicas": 1}})
    for obj in groups[1]:
        kube.delete(obj)

    wait_for(lambda: len(kube.list(*KAI, namespace)) == 1, "the deleted group's PodGroup removed")
    (kept,) = kube.list(*KAI, namespace)
    group_zero = [o for o in groups[0] if o["kind"] == "Pod"]
    links = {
        (kube.get("v1", "Pod", namespace, p["metadata"]["name"]) or {})
        .get("metadata", {})
        .get("annotations", {})
        .get(LINK)
        for p in group_zero
    }
    assert links == {kept["metadata"]["name"]}, "the group left is the one of group 0's pods"


def test_pods_deleted_under_a_terminating_workload_do_not_bring_its_group_back(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    (obj,) = load("jobset/coordinator.yaml")
    obj["metadata"].update(name="held", finalizers=["example.com/hold"])
    created = kube.create(obj, namespace)
    pods = jobset_children(kube, created)
    wait_for(lambda: all_linked(kube, namespace, {"held"}), "every pod linked")
    try:
        kube.delete(created)  # terminating until the finalizer goes, as under foreground GC
        wait_for(lambda: not kube.list(*KAI, namespace), "the group removed")
        for pod in pods[:3]:
            kube.delete(pod)
        time.sleep(5)  # the operator sees the deletions within this; nothing may follow
        assert kube.list(*KAI, namespace) == []
    finally:
        kube.patch(created, {"metadata": {"finalizers": None}})


SHARDS = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "shards.cache-test.example.com"},
    "spec": {
        "group": "cache-test.example.com",
        "names": {
            "kind": "Shard",
            "plural": "shards",
            "singular": "shard",
            "listKind": "ShardList",
        },
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
            }
        ],
    },
}


def test_pods_under_an_owner_of_a_type_nobody_watches_are_reached_by_fetching_it(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    # a type between the JobSet and its pods that the operator does not watch (no
    # definition or owner table names it): its objects are fetched, and the pods still
    # join the gang
    crd = tmp_path / "shards.yaml"
    crd.write_text(yaml.safe_dump(SHARDS))
    names = kube.install_crds([crd])
    operator = OperatorProcess(cluster.kubeconfig, namespace, tmp_path / "op.log")
    try:
        operator.start()
        created = jobset(kube, namespace, "sharded")
        shard = kube.create(
            {
                "apiVersion": "cache-test.example.com/v1",
                "kind": "Shard",
                "metadata": {"name": "sharded-0", "ownerReferences": [owner_reference(created)]},
            },
            namespace,
        )
        template = created["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
        labels = {
            "jobset.sigs.k8s.io/jobset-name": "sharded",
            "jobset.sigs.k8s.io/replicatedjob-name": "workers",
            "jobset.sigs.k8s.io/job-index": "0",
        }
        for index in range(2):
            run_pod(kube, shard, f"sharded-workers-0-{index}", template, labels)
        wait_for(lambda: all_linked(kube, namespace, {"sharded"}), "pods linked")
    finally:
        operator.stop()
        kube.remove_crds(names)
