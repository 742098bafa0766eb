"""The operator against a real API server: gang objects created, kept in step with scale,
never duplicated, removed with their workload, for each scheduler target."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import min_member
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster, free_port

KAI = ("scheduling.run.ai/v2alpha2", "PodGroup")
VOLCANO = ("scheduling.volcano.sh/v1beta1", "PodGroup")
WORKLOAD_API = "scheduling.k8s.io/v1alpha2"


def groups(kube: Kube, namespace: str, kind: tuple[str, str] = KAI) -> list[dict[str, Any]]:
    return kube.list(*kind, namespace)


def jobset(kube: Kube, namespace: str, name: str = "coordinator-example") -> dict[str, Any]:
    (obj,) = load("jobset/coordinator.yaml")
    obj["metadata"]["name"] = name
    return kube.create(obj, namespace)


def test_a_jobset_gets_one_podgroup_owned_by_it_and_its_pods_are_linked(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    created = jobset(kube, namespace)
    pods = jobset_children(kube, created)

    (group,) = wait_for(lambda: groups(kube, namespace), "the PodGroup")
    (owner,) = group["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"]) == (
        "JobSet",
        "coordinator-example",
        created["metadata"]["uid"],
    )
    assert min_member(group) == 5  # 4 workers + 1 driver, as the JobSet asks

    def linked() -> bool:
        names = [p["metadata"]["name"] for p in pods]
        current = [kube.get("v1", "Pod", namespace, n) for n in names]
        return all(
            (p or {}).get("metadata", {}).get("annotations", {}).get("pod-group-name")
            == group["metadata"]["name"]
            for p in current
        )

    wait_for(linked, "every pod annotated with its PodGroup")
    assert len(groups(kube, namespace)) == 1, "one group per workload, not one per pod event"


def test_scaling_a_workload_updates_its_podgroup_in_place(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    created = jobset(kube, namespace)
    (before,) = wait_for(lambda: groups(kube, namespace), "the PodGroup")
    replicated = created["spec"]["replicatedJobs"]
    replicated[0]["replicas"] = 3  # workers: 3 jobs of 4 pods
    kube.patch(created, {"spec": {"replicatedJobs": replicated}})

    wait_for(
        lambda: [g for g in groups(kube, namespace) if min_member(g) == 13],
        "minMember 13 after scaling",
    )
    (group,) = groups(kube, namespace)
    assert group["metadata"]["uid"] == before["metadata"]["uid"]  # the same object, updated


def test_a_trainjob_gang_counts_the_nodes_its_runtime_runs(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    # the TrainJob's pods are described by the ClusterTrainingRuntime it names: the operator
    # must read it as the CLI does, or the gang has no members
    (runtime,) = load("kubeflow-trainingruntime/torch-distributed.yaml")
    runtime["metadata"]["name"] = f"torch-{namespace}"[:63]
    kube.create(runtime)
    (trainjob,) = load("kubeflow-trainjob/01-multi-node.yaml")
    trainjob["spec"]["runtimeRef"]["name"] = runtime["metadata"]["name"]
    try:
        kube.create(trainjob, namespace)
        (group,) = wait_for(lambda: groups(kube, namespace), "the TrainJob's PodGroup")
        assert min_member(group) == 3  # numNodes: 3 of the runtime's one node job
    finally:
        kube.delete(runtime)


def test_a_trainjob_created_before_its_runtime_gets_its_gang_once_the_runtime_exists(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    # nothing about the TrainJob changes when its runtime is created: the operator must
    # look again by itself, not wait for an event on the TrainJob
    (runtime,) = load("kubeflow-trainingruntime/torch-distributed.yaml")
    runtime["metadata"]["name"] = f"late-{namespace}"[:63]
    (trainjob,) = load("kubeflow-trainjob/01-multi-node.yaml")
    trainjob["spec"]["runtimeRef"]["name"] = runtime["metadata"]["name"]
    kube.create(trainjob, namespace)
    wait_for(lambda: "waiting" in operator.output(), "the operator waiting for the runtime")
    assert groups(kube, namespace) == [], "no gang from a TrainJob whose pods are unknown"
    try:
        kube.create(runtime)
        (group,) = wait_for(lambda: groups(kube, namespace), "the TrainJob's PodGroup")
        assert min_member(group) == 3
    finally:
        kube.delete(runtime)


def test_a_deleted_workload_loses_its_podgroup(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    created = jobset(kube, namespace)
    wait_for(lambda: groups(kube, namespace), "the PodGroup")
    kube.delete(created)
    wait_for(lambda: not groups(kube, namespace), "the PodGroup deleted")


def test_volcano_target_writes_volcano_podgroups(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    # the kubeconfig's current context has no permissions: --context must be what is used
    kubeconfig = tmp_path / "kubeconfig"
    config = yaml.safe_load(cluster.kubeconfig.read_text())
    kubeconfig.write_text(yaml.safe_dump({**config, "current-context": "viewer"}))
    process = OperatorProcess(
        kubeconfig, namespace, tmp_path / "op.log", target="volcano", context="admin"
    )
    try:
        process.start()
        created = jobset(kube, namespace)
        pods = jobset_children(kube, created)
        (group,) = wait_for(lambda: groups(kube, namespace, VOLCANO), "the Volcano PodGroup")
        assert group["spec"]["minMember"] == 5
        assert group["metadata"]["ownerReferences"][0]["uid"] == created["metadata"]["uid"]
        pod = pods[0]["metadata"]["name"]
        wait_for(
            lambda: (
                (kube.get("v1", "Pod", namespace, pod) or {})["metadata"]
                .get("annotations", {})
                .get("scheduling.k8s.io/group-name")
                == group["metadata"]["name"]
            ),
            "the pod linked to its Volcano PodGroup",
        )
        assert groups(kube, namespace) == [], "no KAI objects for the Volcano target"
    finally:
        process.stop()


def test_workload_api_target_writes_upstream_workload_and_podgroup(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    process = OperatorProcess(
        cluster.kubeconfig,
        namespace,
        tmp_path / "op.log",
        target="workload-api",
        # its pod-group webhook on a port of its own: other operators may run beside it
        env={"WLMAP_WEBHOOK": f"127.0.0.1:{free_port()}"},
    )
    try:
        process.start()
        created = jobset(kube, namespace)
        (workload,) = wait_for(
            lambda: kube.list(WORKLOAD_API, "Workload", namespace), "the upstream Workload"
        )
        (group,) = wait_for(
            lambda: kube.list(WORKLOAD_API, "PodGroup", namespace), "the upstream PodGroup"
        )
        assert workload["spec"]["controllerRef"] == {
            "apiGroup": "jobset.x-k8s.io",
            "kind": "JobSet",
            "name": "coordinator-example",
        }
        assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 5}}
        assert group["metadata"]["ownerReferences"][0]["uid"] == created["metadata"]["uid"]
    finally:
        process.stop()
