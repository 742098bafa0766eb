"""The placement controller with DRA devices on the KWOK cluster: the corpus Deployment
whose 4 pods each claim 4 MIG devices of one GPU (``matchAttribute`` on the parent GPU) is
gated, planned as one gang over ResourceSlices the test publishes, each pod's generated
claim replaced by one narrowed to the planned devices, released, and allocated and bound
by kube-scheduler, with the operator running as its service account with the generated
grants. Every claim keeps its constraint, and the gang's devices share one NVLink clique,
which first-fit on the same devices does not give."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import terminal
from tests.integration.dra_objects import (
    CLIQUE,
    DRIVER,
    LAYOUT,
    MIG_CLASS,
    OPT_IN,
    RESOURCE,
    WORKLOAD,
    corpus_objects,
    pod_claims,
    publish,
)
from tests.integration.fakenodes import KwokCluster
from tests.integration.kube import Kube, wait_for
from tests.integration.kwokpods import owned_pods
from tests.integration.operator_process import OperatorProcess, refused_lines
from tests.integration.placing import start_as_service_account
from wlmap.operator.placing.devices import NARROWED_FROM
from wlmap.placement.devices import DeviceState, PodClaims, aligned, first_fit_gang, read_dra


@pytest.fixture
def devices(kwok_cluster: KwokCluster, kwok_namespace: str) -> Iterator[list[dict[str, Any]]]:
    """The MIG class and one slice per node of ``LAYOUT``, removed afterwards."""
    kube = kwok_cluster.kube
    nodes = sorted(kwok_cluster.nodes())[: len(LAYOUT)]
    made = publish(kube, nodes, LAYOUT, kwok_namespace)
    try:
        yield made
    finally:
        for obj in made:
            kube.delete(obj)


def _bound(kube: Kube, namespace: str, owner: dict[str, Any]) -> list[dict[str, Any]]:
    """The workload's 4 pods once all are Running with their claims allocated."""
    pods = [p for p in owned_pods(kube, namespace, owner) if p["spec"].get("nodeName")]
    if len(pods) != 4 or any(p["status"].get("phase") != "Running" for p in pods):
        return []
    for pod in pods:
        claims = pod_claims(kube, namespace, pod)
        if not claims or any(not c.get("status", {}).get("allocation") for c in claims):
            return []
    return pods


@pytest.fixture
def placing(
    kwok_cluster: KwokCluster, kwok_namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    """The operator with placement on, as its own service account with the generated
    ``rbac --placement`` grants and pod policy, serving the opted-in test namespace."""
    process = start_as_service_account(kwok_cluster, kwok_namespace, tmp_path)
    try:
        yield process
    finally:
        process.stop()


@pytest.mark.skipif(not WORKLOAD.is_file(), reason="the shared corpus is not present")
def test_a_dra_gang_gets_devices_in_one_clique_that_keep_each_claims_constraint(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    devices: list[dict[str, Any]],
    placing: OperatorProcess,
    pytestconfig: pytest.Config,
) -> None:
    kube = kwok_cluster.kube
    template, deployment = corpus_objects(kwok_namespace)
    kube.create(template)
    started = time.monotonic()
    made = kube.create(deployment)
    replica_set = wait_for(
        lambda: next(iter(kube.list("apps/v1", "ReplicaSet", kwok_namespace)), None),
        "the Deployment's ReplicaSet",
    )
    pods = wait_for(
        lambda: _bound(kube, kwok_namespace, replica_set),
        "4 pods Running with their claims allocated",
        timeout=120,
    )
    elapsed = time.monotonic() - started
    (terminal(pytestconfig) or print)(
        f"DRA gang: 4 pods gated, planned, claims narrowed, allocated and Running {elapsed:.1f} s"
        " after the Deployment was created"
    )
    by_key = {
        (DRIVER, s["spec"]["pool"]["name"], d["name"]): d
        for s in devices
        for d in s["spec"]["devices"]
    }
    cliques: set[str] = set()
    for pod in pods:
        (claim,) = pod_claims(kube, kwok_namespace, pod)
        assert claim["metadata"]["annotations"].get(NARROWED_FROM), placing.output()[-3000:]
        results = claim["status"]["allocation"]["devices"]["results"]
        assert len(results) == 4
        chosen = [by_key[(r["driver"], r["pool"], r["device"])] for r in results]
        assert {r["pool"] for r in results} == {f"{kwok_namespace}-{pod['spec']['nodeName']}"}
        # the claim's matchAttribute: its 4 MIG devices are slices of one GPU
        assert len({d["attributes"]["parentUUID"]["string"] for d in chosen}) == 1
        cliques.update(d["attributes"]["cliqueId"]["string"] for d in chosen)
        # the claim the controller made in its place is gone
        assert (
            kube.get(
                RESOURCE,
                "ResourceClaim",
                kwok_namespace,
                claim["metadata"]["annotations"][NARROWED_FROM],
            )
            is None
        )
    assert cliques == {"clique-b"}
    condition = wait_for(
        lambda: next(
            (
                c
                for c in (kube.get("apps/v1", "Deployment", kwok_namespace, "pod") or {})
                .get("status", {})
                .get("conditions", ())
                if c["type"] == "WlmapPlacement" and c["reason"] == "Placed"
            ),
            None,
        ),
        "the Deployment's condition saying it was placed",
    )
    assert "clique" in condition["message"]
    assert made["metadata"]["name"] == "pod"
    assert refused_lines(placing.output()) == []  # the generated grants suffice
    # first-fit on the same devices: the same claims, kept, but the gang split
    inventory = read_dra([MIG_CLASS, *devices, template])
    gang = [PodClaims(f"pod-{i}", (inventory.claims["mig-devices"],)) for i in range(4)]
    first_fit = first_fit_gang(gang, DeviceState(inventory))
    assert first_fit is not None and not aligned(first_fit, [CLIQUE])


def _condition(kube: Kube, namespace: str) -> dict[str, Any] | None:
    found = kube.get("apps/v1", "Deployment", namespace, "pod") or {}
    conditions = (found.get("status") or {}).get("conditions") or ()
    return next((c for c in conditions if c["type"] == "WlmapPlacement"), None)


@pytest.mark.skipif(not WORKLOAD.is_file(), reason="the shared corpus is not present")
def test_a_dra_gang_no_clique_can_hold_stays_gated_with_the_reason(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    devices: list[dict[str, Any]],
    placing: OperatorProcess,
) -> None:
    kube = kwok_cluster.kube
    template, deployment = corpus_objects(kwok_namespace)
    deployment["spec"]["replicas"] = 5  # each clique has at most 4 whole GPUs
    kube.create(template)
    kube.create(deployment)
    said = wait_for(
        lambda: (c := _condition(kube, kwok_namespace)) and c["reason"] == "DoesNotFit" and c,
        "the Deployment's condition saying why it waits",
        timeout=90,
    )
    assert said["status"] == "False"
    # each node holds a pod alone, no clique all 5: nothing else is named
    assert f"{len(LAYOUT)} nodes: fits alone, but not with the rest of the gang" in said["message"]
    pods = kube.list("v1", "Pod", kwok_namespace)
    assert len(pods) == 5
    assert all(
        any(g["name"] == OPT_IN for g in p["spec"].get("schedulingGates") or ())
        and not p["spec"].get("nodeName")
        for p in pods
    )
    claims = kube.list(RESOURCE, "ResourceClaim", kwok_namespace)
    assert claims and not any(
        (c["metadata"].get("annotations") or {}).get(NARROWED_FROM) for c in claims
    )
