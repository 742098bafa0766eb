"""Start stages under the upstream Workload API: each stage of a workload is a gang of its
own (a PodGroup per stage), and the operator's pod-group webhook creates every pod naming
its stage's PodGroup in ``spec.schedulingGroup`` (immutable after creation, so only
admission can set it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.operator_process import OperatorProcess, workload_api_operator
from tests.integration.testcluster import TestCluster

WORKLOAD_API = "scheduling.k8s.io/v1alpha2"
DEPENDS_ON = "jobset/multiple-depends-on.yaml"


def pod_groups_by_template(kube: Kube, namespace: str) -> dict[str, str]:
    """PodGroup name by the name of the Workload's gang template it comes from."""
    return {
        group["spec"]["podGroupTemplateRef"]["workload"]["podGroupTemplateName"]: group["metadata"][
            "name"
        ]
        for group in kube.list(WORKLOAD_API, "PodGroup", namespace)
    }


def scheduling_group(pod: dict[str, Any]) -> str | None:
    return ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")


@pytest.fixture
def operator_wapi(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    process = workload_api_operator(kube, cluster.kubeconfig, namespace, tmp_path)
    try:
        yield process
    finally:
        process.stop()


def test_each_pod_is_created_naming_its_stage_podgroup(
    kube: Kube, namespace: str, operator_wapi: OperatorProcess
) -> None:
    """The initializers' pods join the first stage's PodGroup, the workers' the second's:
    the mapping gang sync uses for the other targets' links, applied at creation."""
    (obj,) = load(DEPENDS_ON)
    created = kube.create(obj, namespace)
    groups = wait_for(
        lambda: (found := pod_groups_by_template(kube, namespace)) and len(found) == 2 and found,
        "a PodGroup per stage",
    )
    assert sorted(groups) == ["jobset-dataset-initializer", "jobset-worker"]
    pods = jobset_children(kube, created, ready=False)
    joined = {pod["metadata"]["name"]: scheduling_group(pod) for pod in pods}
    first, second = groups["jobset-dataset-initializer"], groups["jobset-worker"]
    assert joined == {
        "multiple-depends-on-dataset-initializer-0-0": first,
        "multiple-depends-on-model-initializer-0-0": first,
        **{f"multiple-depends-on-worker-0-{i}": second for i in range(4)},
    }, operator_wapi.output()[-3000:]


def test_a_pod_of_an_unserved_namespace_is_left_as_it_came(
    kube: Kube, namespace: str, operator_wapi: OperatorProcess
) -> None:
    other = kube.namespace(f"{namespace}-other"[:63])
    (obj,) = load(DEPENDS_ON)
    created = kube.create(obj, other)
    pods = jobset_children(kube, created, ready=False)
    assert [scheduling_group(pod) for pod in pods] == [None] * 6
