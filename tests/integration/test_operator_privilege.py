"""Least privilege, enforced by a real API server: the requests the operator's service
account may not send (another target's gang kinds, objects that are not wlmap's, namespaces
it does not serve) are refused, by RBAC or the admission policy, while those it sends still
pass.

The bundle as generated serves the namespaces labelled ``wlmap.dev/serve=true`` and keeps
KAI PodGroups; the overlay's RBAC and policy serve listed namespaces only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.kube import Kube, wait_for
from tests.integration.serviceaccount import token
from tests.integration.test_operator_rbac import (
    MERGE,
    POD,
    in_force,
    install,
    pod_path,
    served_client,
)
from tests.integration.testcluster import TestCluster
from wlmap.operator.core.settings import FIELD_MANAGER
from wlmap.operator.deploy import rbac

KAI = "/apis/scheduling.run.ai/v2alpha2"
VOLCANO = "/apis/scheduling.volcano.sh/v1beta1"
SYSTEM = "kube-system"
APPLY = {"Content-Type": "application/apply-patch+yaml"}
LINK = {"metadata": {"annotations": {"pod-group-name": "pg-trainer"}}}
NOT_SERVED = "writes only in the namespaces it serves"


def group(api: str, namespace: str, name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": api.removeprefix("/apis/"),
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {"minMember": 2},
    }


def groups_path(api: str, namespace: str, name: str | None = None) -> str:
    path = f"{api}/namespaces/{namespace}/podgroups"
    return f"{path}/{name}" if name else path


def event(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"generateName": "worker-0.", "namespace": namespace},
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": "worker-0",
            "namespace": namespace,
        },
        "reason": "GangRefused",
        "message": "a gang could not be written",
        "type": "Warning",
    }


def refused(answer: httpx.Response, because: str = "") -> None:
    """403, by RBAC (``forbidden``) or by the admission policy (its message)."""
    assert answer.status_code == 403, answer.text
    assert because in answer.json()["message"], answer.text


@pytest.fixture
def crds(kube: Kube) -> None:
    kube.install_crds(["scheduling.run.ai_podgroups.yaml", "scheduling.volcano.sh_podgroups.yaml"])


@pytest.fixture
def bundle_client(
    cluster: TestCluster, kube: Kube, namespace: str, crds: None
) -> Iterator[httpx.Client]:
    """The service account under the bundle as generated, ``namespace`` labelled served."""
    with served_client(cluster, kube, namespace) as client:
        yield client


def test_the_bundle_refuses_what_the_operator_never_does(
    kube: Kube, bundle_client: httpx.Client, namespace: str
) -> None:
    client = bundle_client
    other = kube.namespace(f"{namespace[:40]}-unserved")
    for where in (SYSTEM, other):
        created = [kube.create(POD, where)]
        try:
            # the gang link on a pod of a namespace not served
            answer = client.patch(pod_path(where), json=LINK, headers=MERGE)
            refused(answer, f"{NOT_SERVED}, not in {where}")
            # an event there
            answer = client.post(f"/api/v1/namespaces/{where}/events", json=event(where))
            refused(answer, f"{NOT_SERVED}, not in {where}")
            # a KAI PodGroup there: another's is not deleted, wlmap's not written
            created.append(kube.create(group(KAI, where, "theirs", {"team": "vision"})))
            answer = client.delete(groups_path(KAI, where, "theirs"))
            refused(answer, f"{NOT_SERVED}, not in {where}")
            assert kube.get(created[-1]["apiVersion"], "PodGroup", where, "theirs") is not None
            ours = group(KAI, where, "ours", {"app.kubernetes.io/managed-by": "wlmap"})
            refused(_apply(client, ours), f"{NOT_SERVED}, not in {where}")
            # a Volcano PodGroup while the target is KAI: RBAC grants no Volcano kind
            answer = client.post(groups_path(VOLCANO, where), json=group(VOLCANO, where, "v", {}))
            refused(answer, "forbidden")
        finally:
            for obj in created:
                kube.delete(obj)


def test_in_a_served_namespace_only_wlmaps_gang_objects_are_kept(
    kube: Kube, bundle_client: httpx.Client, namespace: str
) -> None:
    client = bundle_client
    managed = {"app.kubernetes.io/managed-by": "wlmap", "wlmap.dev/workload": "trainer"}
    # another's KAI PodGroup: neither changed nor deleted, nor taken over by a label
    foreign = kube.create(group(KAI, namespace, "theirs", {"team": "vision"}))
    refused(client.delete(groups_path(KAI, namespace, "theirs")), "not another's")
    taken = group(KAI, namespace, "theirs", managed)
    refused(_apply(client, taken), "not another's")
    kept = kube.get(foreign["apiVersion"], "PodGroup", namespace, "theirs")
    assert kept is not None and kept["metadata"]["labels"] == {"team": "vision"}
    # nor created without the label
    refused(_apply(client, group(KAI, namespace, "unlabelled", {})), "gang objects labelled")
    # Volcano's kind is not granted, even here
    answer = client.post(groups_path(VOLCANO, namespace), json=group(VOLCANO, namespace, "v", {}))
    refused(answer, "forbidden")

    # what the operator does still passes: its own group written, changed, dropped
    ours = group(KAI, namespace, "ours", managed)
    assert _apply(client, ours).status_code == 201
    ours["spec"]["minMember"] = 3
    assert _apply(client, ours).status_code == 200
    unlabelled = {"metadata": {"labels": {"app.kubernetes.io/managed-by": None}}}
    refused(
        client.patch(groups_path(KAI, namespace, "ours"), json=unlabelled, headers=MERGE),
        "gang objects labelled",
    )
    assert client.delete(groups_path(KAI, namespace, "ours")).status_code == 200
    # the pod link, and events here and in its own namespace
    kube.create(POD, namespace)
    assert client.patch(pod_path(namespace), json=LINK, headers=MERGE).status_code == 200
    for where in (namespace, rbac.NAMESPACE):
        answer = client.post(f"/api/v1/namespaces/{where}/events", json=event(where))
        assert answer.status_code == 201, answer.text
    # listing pods cluster-wide is what serving namespaces picked by a label needs
    assert client.get("/api/v1/pods").status_code == 200


def test_the_overlay_serves_its_listed_namespaces_only(
    cluster: TestCluster, kube: Kube, namespace: str, crds: None
) -> None:
    install(kube, namespaces=(namespace,))  # not labelled: listed
    kube.create(POD | {"metadata": {"name": "policy-probe"}}, namespace)
    kube.create(POD, namespace)
    elsewhere = kube.create(POD | {"metadata": {"name": "listed-elsewhere"}}, SYSTEM)
    try:
        _overlay_refusals(cluster, kube, namespace)
    finally:
        kube.delete(elsewhere)


def _overlay_refusals(cluster: TestCluster, kube: Kube, namespace: str) -> None:
    with cluster.client(token(kube)) as client:
        wait_for(lambda: in_force(client, namespace), "the admission policy in force")
        wait_for(
            lambda: client.get("/api/v1/pods").status_code == 403,
            "the cluster-wide binding gone",
        )
        refused(client.get("/api/v1/pods"), "forbidden")  # no cluster-wide listing
        answer = client.patch(pod_path(SYSTEM, "listed-elsewhere"), json=LINK, headers=MERGE)
        refused(answer, "forbidden")
        refused(client.post(f"/api/v1/namespaces/{SYSTEM}/events", json=event(SYSTEM)))
        refused(client.delete(groups_path(KAI, SYSTEM, "theirs")), "forbidden")
        # in the listed namespace, the operator's own calls pass
        assert client.get(f"/api/v1/namespaces/{namespace}/pods").status_code == 200
        assert client.patch(pod_path(namespace), json=LINK, headers=MERGE).status_code == 200
        ours = group(KAI, namespace, "ours", {"app.kubernetes.io/managed-by": "wlmap"})
        assert _apply(client, ours).status_code == 201
        assert client.delete(groups_path(KAI, namespace, "ours")).status_code == 200
        answer = client.post(f"/api/v1/namespaces/{namespace}/events", json=event(namespace))
        assert answer.status_code == 201, answer.text


def _apply(client: httpx.Client, obj: dict[str, Any]) -> httpx.Response:
    """Server-side apply as the operator does it (its field manager, forced)."""
    meta = obj["metadata"]
    api = KAI if obj["apiVersion"].startswith("scheduling.run.ai") else VOLCANO
    return client.patch(
        groups_path(api, meta["namespace"], meta["name"]),
        params={"fieldManager": FIELD_MANAGER, "force": "true"},
        content=json.dumps(obj),
        headers=APPLY,
    )
