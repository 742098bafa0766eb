"""Which workloads the operator serves: namespaces opt in (by label, or listed), system
namespaces never, built-in kinds only when they ask for a gang, DaemonSets never."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, min_member
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster

SERVE = {"wlmap.dev/serve": "true"}


def jobset(kube: Kube, namespace: str, name: str = "coordinator-example") -> dict[str, Any]:
    (obj,) = load("jobset/coordinator.yaml")
    obj["metadata"]["name"] = name
    return kube.create(obj, namespace)


def deployment(kube: Kube, namespace: str, name: str, labels: dict[str, str]) -> dict[str, Any]:
    (obj,) = load("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml")
    obj["metadata"]["name"] = name
    obj["metadata"]["labels"] = {**obj["metadata"].get("labels", {}), **labels}
    return kube.create(obj, namespace)


def daemonset(kube: Kube, namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    """A DaemonSet running the corpus Deployment's pod template."""
    (source,) = load("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml")
    obj = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "node-agent", "labels": labels},
        "spec": {"selector": source["spec"]["selector"], "template": source["spec"]["template"]},
    }
    return kube.create(obj, namespace)


def groups_of(kube: Kube, namespace: str, obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        g
        for g in kube.list(*KAI, namespace)
        if any(o["uid"] == obj["metadata"]["uid"] for o in g["metadata"]["ownerReferences"])
    ]


def label(kube: Kube, namespace: str, labels: Mapping[str, str | None]) -> None:
    kube.patch(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"metadata": {"labels": labels}},
    )


@pytest.fixture
def unlisted(cluster: TestCluster, tmp_path: Path) -> Iterator[OperatorProcess]:
    """The operator started without namespaces: it serves those labelled to opt in."""
    process = OperatorProcess(cluster.kubeconfig, None, tmp_path / "operator.log")
    try:
        yield process.start()
    finally:
        process.stop()


def test_only_namespaces_that_opt_in_are_served(
    kube: Kube, namespace: str, unlisted: OperatorProcess
) -> None:
    other = kube.namespace(f"{namespace[:40]}-other")
    system = jobset(kube, "kube-system", f"in-kube-system-{namespace[-8:]}")
    label(kube, "kube-system", SERVE)  # a label cannot opt a system namespace in
    try:
        waiting = jobset(kube, namespace)
        label(kube, other, SERVE)
        served = jobset(kube, other)
        (group,) = wait_for(
            lambda: groups_of(kube, other, served), "the opted-in namespace's group"
        )
        assert min_member(group) == 5
        assert groups_of(kube, namespace, waiting) == []
        assert groups_of(kube, "kube-system", system) == []

        label(kube, namespace, SERVE)  # opting in later: its workloads are caught up
        wait_for(lambda: groups_of(kube, namespace, waiting), "the group once opted in")
        assert groups_of(kube, "kube-system", system) == []
    finally:
        label(kube, "kube-system", {"wlmap.dev/serve": None})
        kube.delete(system)


def test_built_in_kinds_get_a_gang_only_when_they_ask_and_daemonsets_never(
    kube: Kube, namespace: str, unlisted: OperatorProcess
) -> None:
    label(kube, namespace, SERVE)
    plain = deployment(kube, namespace, "web", {})
    asking = deployment(kube, namespace, "trainer", {"wlmap.dev/gang": "true"})
    agent = daemonset(kube, namespace, {"wlmap.dev/gang": "true"})
    (group,) = wait_for(
        lambda: groups_of(kube, namespace, asking), "the labelled Deployment's group"
    )
    assert min_member(group) == 5
    assert groups_of(kube, namespace, plain) == []
    assert groups_of(kube, namespace, agent) == []
    made = jobset(kube, namespace)
    wait_for(lambda: groups_of(kube, namespace, made), "the JobSet's group (a kind made for gangs)")
    assert groups_of(kube, namespace, plain) == [] and groups_of(kube, namespace, agent) == []
    out = deployment(kube, namespace, "opted-out", {"wlmap.dev/gang": "false"})
    label(kube, namespace, {"wlmap.dev/gang": "true"})  # every built-in kind of the namespace
    wait_for(lambda: groups_of(kube, namespace, plain), "the plain Deployment's group")
    assert groups_of(kube, namespace, out) == [] and groups_of(kube, namespace, agent) == []
