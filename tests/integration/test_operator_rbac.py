"""The operator's generated RBAC and admission policy, enforced by a real API server.

The requests are sent as the operator's service account (a TokenRequest token): its pod
patches may set the pod link annotations and nothing else, and with the namespaced RBAC it
serves its namespace without a refused request while it cannot touch pods elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import min_member
from tests.integration.operator_process import OperatorProcess, refused_lines
from tests.integration.serviceaccount import apply_all, kubeconfig, token
from tests.integration.testcluster import TestCluster
from wlmap.operator.core.scope import SERVE_LABEL
from wlmap.operator.deploy import rbac
from wlmap.operator.deploy.admission import DENIED, policy_manifests

REPO = Path(__file__).resolve().parents[2]
DEFINITION_CRDS = sorted((REPO / "deploy" / "crds").glob("*.yaml"))
JOBSET_DEFINITION = REPO / "src/wlmap/catalog/definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml"
KAI = ("scheduling.run.ai/v2alpha2", "PodGroup")
MERGE = {"Content-Type": "application/merge-patch+json"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "worker-0",
        "labels": {"app": "trainer"},
        "annotations": {"team": "vision"},
    },
    "spec": {"containers": [{"name": "main", "image": "registry.example/trainer:1"}]},
}


def install(kube: Kube, namespaces: tuple[str, ...] = ()) -> None:
    """The generated ServiceAccount, roles and bindings (cluster-wide, or bound in
    ``namespaces`` only) and the admission policy, as ``kubectl apply`` installs them."""
    kube.namespace(rbac.NAMESPACE)
    if namespaces:  # a cluster-wide binding left by another test would hide the scoping
        binding = rbac.WORKLOADS_ROLE
        kube._send("DELETE", kube.path(f"{rbac.RBAC_API}/v1", "ClusterRoleBinding", None, binding))
    apply_all(kube, rbac.manifests(namespaces=namespaces))
    apply_all(kube, policy_manifests(namespaces=namespaces))


def serve(kube: Kube, namespace: str) -> None:
    """Served by the bundle: ``kubectl -n NAMESPACE create rolebinding wlmap-operator
    --clusterrole wlmap-operator --serviceaccount wlmap-system:wlmap-operator``, then
    ``kubectl label namespace NAMESPACE wlmap.dev/serve=true``."""
    apply_all(kube, rbac.namespace_bindings([namespace]))
    labelled = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
    kube.patch(labelled, {"metadata": {"labels": {SERVE_LABEL: "true"}}})


@contextmanager
def served_client(cluster: TestCluster, kube: Kube, namespace: str) -> Iterator[httpx.Client]:
    """An API client authenticated as the operator's service account under the bundle as
    generated (``namespace`` bound and labelled served), once the admission policy is in
    force."""
    install(kube)
    serve(kube, namespace)
    probe = kube.create(POD | {"metadata": {"name": "policy-probe"}}, namespace)
    try:
        with cluster.client(token(kube)) as client:
            wait_for(lambda: in_force(client, namespace), "the admission policy in force")
            yield client
    finally:
        kube.delete(probe)


@pytest.fixture
def operator_client(cluster: TestCluster, kube: Kube, namespace: str) -> Iterator[httpx.Client]:
    """An API client authenticated as the operator's service account (the bundle's RBAC,
    the test's namespace served)."""
    with served_client(cluster, kube, namespace) as client:
        yield client


def in_force(client: httpx.Client, namespace: str) -> bool:
    """Whether the API server applies the policy as installed yet (it loads policies
    asynchronously): a dry-run label patch of a probe pod in the served ``namespace`` by
    the operator is denied for its label, not for its namespace (as by a policy installed
    earlier that served other namespaces)."""
    patch = {"metadata": {"labels": {"probe": "1"}}}
    path = pod_path(namespace, "policy-probe")
    answer = client.patch(path, params={"dryRun": "All"}, json=patch, headers=MERGE)
    return answer.status_code == 403 and "not labels" in answer.text


def pod_path(namespace: str, name: str = "worker-0") -> str:
    return f"/api/v1/namespaces/{namespace}/pods/{name}"


def denial(answer: httpx.Response) -> str:
    assert answer.status_code == 403, answer.text
    return str(answer.json()["message"])


def test_the_operator_may_set_the_pod_link_annotations(
    kube: Kube, operator_client: httpx.Client, namespace: str
) -> None:
    kube.create(POD, namespace)
    for annotation in ("pod-group-name", "scheduling.k8s.io/group-name"):
        patch = {"metadata": {"annotations": {annotation: "pg-trainer"}}}
        answer = operator_client.patch(pod_path(namespace), json=patch, headers=MERGE)
        assert answer.status_code == 200, answer.text
    pod = kube.get("v1", "Pod", namespace, "worker-0")
    assert pod is not None
    assert pod["metadata"]["annotations"] == {
        "team": "vision",
        "pod-group-name": "pg-trainer",
        "scheduling.k8s.io/group-name": "pg-trainer",
    }
    # a pod without any annotation or label: the maps are absent, not empty
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare"}, "spec": POD["spec"]}
    kube.create(bare, namespace)
    patch = {"metadata": {"annotations": {"pod-group-name": "pg-trainer"}}}
    answer = operator_client.patch(pod_path(namespace, "bare"), json=patch, headers=MERGE)
    assert answer.status_code == 200, answer.text
    assert answer.json()["metadata"]["annotations"] == {"pod-group-name": "pg-trainer"}


@pytest.mark.parametrize(
    ("patch", "headers", "what"),
    [
        ({"metadata": {"labels": {"app": "miner"}}}, MERGE, "labels"),
        ({"metadata": {"annotations": {"team": "crypto"}}}, MERGE, "other annotations"),
        ({"metadata": {"annotations": {"team": None}}}, MERGE, "other annotations"),
        (
            {"metadata": {"annotations": {"pod-group-name": "pg", "extra": "x"}}},
            MERGE,
            "other annotations",
        ),
        ({"spec": {"activeDeadlineSeconds": 60}}, MERGE, "the spec"),
        (
            [{"op": "replace", "path": "/spec/containers/0/image", "value": "evil:1"}],
            JSON_PATCH,
            "the spec",
        ),
        ({"metadata": {"finalizers": ["example.com/hold"]}}, MERGE, "finalizers"),
    ],
    ids=[
        "label",
        "annotation",
        "annotation-removed",
        "link-and-more",
        "spec",
        "image",
        "finalizer",
    ],
)
def test_any_other_pod_change_by_the_operator_is_denied(
    kube: Kube,
    operator_client: httpx.Client,
    namespace: str,
    patch: Any,
    headers: dict[str, str],
    what: str,
    request: pytest.FixtureRequest,
) -> None:
    name = f"worker-{request.node.callspec.id}"  # the namespace is shared by the cases
    created = kube.create(POD | {"metadata": {**POD["metadata"], "name": name}}, namespace)
    answer = operator_client.patch(pod_path(namespace, name), json=patch, headers=headers)
    message = denial(answer)
    assert DENIED in message and f"not {what}" in message, message
    pod = kube.get("v1", "Pod", namespace, name)
    assert (
        pod is not None
        and pod["metadata"]["resourceVersion"] == (created["metadata"]["resourceVersion"])
    )


def test_others_may_still_change_pods(kube: Kube, namespace: str) -> None:
    install(kube)
    pod = kube.create(POD, namespace)
    changed = kube.patch(
        pod, {"metadata": {"labels": {"app": "evaluator"}}, "spec": {"activeDeadlineSeconds": 60}}
    )
    assert changed["metadata"]["labels"] == {"app": "evaluator"}
    assert changed["spec"]["activeDeadlineSeconds"] == 60


def validated(kube: Kube, name: str) -> bool:
    found = kube.get("wlmap.dev/v1alpha1", "WorkloadMap", None, name) or {}
    return (found.get("status") or {}).get("observedGeneration") == 1


def test_namespaced_rbac_serves_its_namespace_only(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    other = kube.namespace(f"{namespace[:40]}-other")
    kube.install_crds([c for c in DEFINITION_CRDS if c.name != "kustomization.yaml"])
    install(kube, namespaces=(namespace,))
    secret = token(kube)
    config = kubeconfig(cluster, secret, tmp_path / "operator.kubeconfig")
    operator = OperatorProcess(config, namespace, tmp_path / "operator.log").start()
    try:
        (manifest,) = load("jobset/coordinator.yaml")
        jobset = kube.create(manifest, namespace)
        pods = jobset_children(kube, jobset)

        def grouped() -> dict[str, Any] | None:
            groups = kube.list(*KAI, namespace)
            return groups[0] if len(groups) == 1 and min_member(groups[0]) == len(pods) else None

        group = wait_for(grouped, "the JobSet's PodGroup")
        name = group["metadata"]["name"]

        def linked() -> bool:
            found = kube.list("v1", "Pod", namespace)
            return all(
                (p["metadata"].get("annotations") or {}).get("pod-group-name") == name
                for p in found
            )

        wait_for(linked, "every pod linked to the PodGroup")
        # the definition objects are cluster-scoped: read, and their status written, still
        definition = yaml.safe_load(JOBSET_DEFINITION.read_text(encoding="utf-8"))
        created = kube.create(definition)
        try:
            wait_for(
                lambda: validated(kube, created["metadata"]["name"]), "the definition's status"
            )
        finally:
            kube.delete(created)
        assert operator.process is not None and operator.process.poll() is None
        refused = refused_lines(operator.output())
        assert not refused, refused[0]
    finally:
        operator.stop()

    kube.create(POD, other)
    with cluster.client(secret) as client:
        patch = {"metadata": {"annotations": {"pod-group-name": "pg"}}}
        answer = client.patch(pod_path(other), json=patch, headers=MERGE)
        assert answer.status_code == 403 and "forbidden" in answer.text, answer.text
        assert client.get("/api/v1/pods").status_code == 403  # no cluster-wide listing
        assert client.get(f"/api/v1/namespaces/{other}/pods").status_code == 403
        assert client.get(f"/api/v1/namespaces/{namespace}/pods").status_code == 200
