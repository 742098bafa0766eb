"""Least privilege, enforced by a real API server: the requests the operator's service
account may not send (another target's gang kinds, objects that are not wlmap's, namespaces
it does not serve) are refused, by RBAC or the admission policy, while those it sends still
pass.

The bundle as generated serves the namespaces labelled ``wlmap.dev/serve=true`` (and bound
to its namespaced role by a RoleBinding there) and keeps KAI PodGroups; the overlay's RBAC
and policy serve listed namespaces only. Neither lets it list the pods of the cluster,
and a namespace labelled and bound while the operator runs is served without a restart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import min_member
from tests.integration.operator_process import OperatorProcess, refused_lines
from tests.integration.serviceaccount import kubeconfig, token
from tests.integration.test_operator_rbac import (
    DEFINITION_CRDS,
    MERGE,
    POD,
    in_force,
    install,
    pod_path,
    serve,
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
KAI_KIND = (KAI.removeprefix("/apis/"), "PodGroup")

# a watch refused in one namespace, as the operator logs it
ELSEWHERE = re.compile(r"cannot watch \S+ in namespace ([a-z0-9-]+)")


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
        # not bound there: RBAC refuses every call
        refused(client.patch(pod_path(where), json=LINK, headers=MERGE), "forbidden")
        refused(client.get(f"/api/v1/namespaces/{where}/pods"), "forbidden")
        # bound there by mistake, but not labelled: the admission policy still refuses
        (bound,) = rbac.namespace_bindings([where])
        created.append(kube.create(bound))
        try:
            wait_for(partial(_readable, client, pod_path(where)), "the RoleBinding in force")
            _policy_refusals(kube, client, where, created)
        finally:
            for obj in reversed(created):
                kube.delete(obj)


def _readable(client: httpx.Client, path: str) -> bool:
    return client.get(path).status_code == 200


def _policy_refusals(
    kube: Kube, client: httpx.Client, where: str, created: list[dict[str, Any]]
) -> None:
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
    # pods are read where the namespace is bound; never across the cluster
    assert client.get(f"/api/v1/namespaces/{namespace}/pods").status_code == 200
    refused(client.get("/api/v1/pods"), "forbidden")
    refused(client.get("/apis/scheduling.run.ai/v2alpha2/podgroups"), "forbidden")
    # kopf's watch of the workload kinds is the one cluster-wide read left
    assert client.get("/apis/jobset.x-k8s.io/v1alpha2/jobsets").status_code == 200


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


def test_the_operator_serves_a_namespace_opted_in_while_it_runs_without_listing_all_pods(
    cluster: TestCluster, kube: Kube, namespace: str, crds: None, tmp_path: Path
) -> None:
    """The bundle's mode, the operator as its service account: a namespace labelled and
    bound after it started gets its JobSet's gang, with no refused request."""
    kube.install_crds([c for c in DEFINITION_CRDS if c.name != "kustomization.yaml"])
    kube.install_crds(["jobset.x-k8s.io_jobsets.yaml"])
    install(kube)
    secret = token(kube)
    config = kubeconfig(cluster, secret, tmp_path / "operator.kubeconfig")
    operator = OperatorProcess(config, None, tmp_path / "operator.log").start()
    try:
        serve(kube, namespace)  # bound, then labelled: after the start
        (manifest,) = load("jobset/coordinator.yaml")
        jobset = kube.create(manifest, namespace)
        pods = jobset_children(kube, jobset)

        def grouped() -> dict[str, Any] | None:
            groups = kube.list(*KAI_KIND, namespace)
            return groups[0] if len(groups) == 1 and min_member(groups[0]) == len(pods) else None

        name = wait_for(grouped, "the JobSet's PodGroup")["metadata"]["name"]

        def linked() -> bool:
            found = kube.list("v1", "Pod", namespace)
            return bool(found) and all(
                (p["metadata"].get("annotations") or {}).get("pod-group-name") == name
                for p in found
            )

        wait_for(linked, "every pod linked to the PodGroup")
        assert operator.process is not None and operator.process.poll() is None
        # other tests' namespaces in this shared cluster may carry the label without a
        # binding: refused there, as documented; nothing of this namespace may be
        refused = [
            line
            for line in refused_lines(operator.output())
            if (other := ELSEWHERE.search(line)) is None or other.group(1) == namespace
        ]
        assert not refused, refused[0]
    finally:
        operator.stop()
    with cluster.client(secret) as client:
        refused_answer = client.get("/api/v1/pods")
        assert refused_answer.status_code == 403, refused_answer.text


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
