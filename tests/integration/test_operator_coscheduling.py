"""The operator's coscheduling target against a real API server holding the PodGroup CRD
of kubernetes-sigs/scheduler-plugins (scripts/fetch-scheduler-plugins.sh): the server
checks each PodGroup against the CRD's schema, the operator writes one per JobSet, and
every pod carries the label that names it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import REPO, BuildUnavailable, TestCluster, build_binaries

SCRIPT = REPO / "scripts" / "fetch-scheduler-plugins.sh"
CRD = "crd/scheduling.x-k8s.io_podgroups.yaml"
POD_GROUP = ("scheduling.x-k8s.io/v1alpha1", "PodGroup")
LABEL = "scheduling.x-k8s.io/pod-group"


@pytest.fixture(scope="module")
def podgroup_crd(kube: Kube) -> Iterator[None]:
    """scheduler-plugins' PodGroup CRD, fetched once from the Go module proxy, installed
    for this module's tests."""
    try:
        folder = build_binaries(script=SCRIPT, what="the scheduler-plugins PodGroup CRD")
    except BuildUnavailable as missing_go:
        pytest.skip(str(missing_go))
    names = kube.install_crds([folder / CRD])
    try:
        yield
    finally:
        kube.remove_crds(names)


def test_the_crd_refuses_a_group_of_no_members(
    podgroup_crd: None, kube: Kube, namespace: str
) -> None:
    group = {
        "apiVersion": POD_GROUP[0],
        "kind": POD_GROUP[1],
        "metadata": {"name": "empty"},
        "spec": {"minMember": 0},
    }
    with pytest.raises(AssertionError, match="minMember"):
        kube.create(group, namespace)


def test_a_jobset_gets_its_coscheduling_podgroup_and_its_pods_the_label(
    podgroup_crd: None, cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    process = OperatorProcess(
        cluster.kubeconfig, namespace, tmp_path / "op.log", target="coscheduling"
    )
    try:
        process.start()
        (obj,) = load("jobset/coordinator.yaml")
        created = kube.create(obj, namespace)
        pods = jobset_children(kube, created)
        (group,) = wait_for(lambda: kube.list(*POD_GROUP, namespace), "the coscheduling PodGroup")
        read = kube.get(*POD_GROUP, namespace, group["metadata"]["name"])
        assert read is not None
        assert read["spec"] == {"minMember": 5}  # 4 workers + 1 driver, as the JobSet asks
        (owner,) = read["metadata"]["ownerReferences"]
        assert (owner["kind"], owner["uid"]) == ("JobSet", created["metadata"]["uid"])
        names = [p["metadata"]["name"] for p in pods]

        def labelled() -> bool:
            current = [kube.get("v1", "Pod", namespace, n) or {} for n in names]
            return all(
                p.get("metadata", {}).get("labels", {}).get(LABEL) == group["metadata"]["name"]
                for p in current
            )

        wait_for(labelled, "every pod labelled with its PodGroup")
        assert not any(
            "pod-group-name"
            in (kube.get("v1", "Pod", namespace, n) or {})["metadata"].get("annotations", {})
            for n in names
        ), "no KAI link for the coscheduling target"
    finally:
        process.stop()
