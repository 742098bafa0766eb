"""docs/operator.md, step by step, against a real API server.

Each step performs what the walkthrough's command does, through the API: ``kubectl apply
--server-side`` is a server-side apply PATCH, ``kubectl create token`` a TokenRequest,
``kubectl scale`` a PATCH of the scale subresource, ``kubectl set env`` a strategic merge
patch. The cluster has no nodes, so the operator's Deployment is created but never runs: the
same operator runs as a local process instead, authenticated as the Deployment's service
account with a token of its own, which proves the generated RBAC is enough for it. The
JobSet controller is not installed either: the JobSet's Jobs and pods are created the way it
creates them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import min_member
from tests.integration.operator_process import refused_lines
from tests.integration.serviceaccount import apply, apply_all, kubeconfig, token
from tests.integration.testcluster import TestCluster, free_port
from wlmap.operator.deploy import rbac

REPO = Path(__file__).resolve().parents[2]
OPERATOR_MANIFESTS = REPO / "deploy" / "operator"
JOBSET_DEFINITION = REPO / "src/wlmap/catalog/definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml"
SYSTEM = "wlmap-system"
ACCOUNT = "wlmap-operator"
DEMO = "wlmap-walkthrough"  # the walkthrough's `demo` namespace
# kustomize's install order for the kinds deploy/operator holds
KIND_ORDER = (
    "Namespace",
    "CustomResourceDefinition",
    "ServiceAccount",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "Deployment",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
)
KAI = ("scheduling.run.ai/v2alpha2", "PodGroup")
VOLCANO = ("scheduling.volcano.sh/v1beta1", "PodGroup")


def kustomization_objects(folder: Path) -> list[dict[str, Any]]:
    """The objects ``kubectl apply -k folder`` applies, in kustomize's kind order."""
    spec = yaml.safe_load((folder / "kustomization.yaml").read_text(encoding="utf-8"))
    objects: list[dict[str, Any]] = []
    for entry in spec["resources"]:
        path = (folder / entry).resolve()
        if path.is_dir():
            objects.extend(kustomization_objects(path))
        else:
            documents = yaml.safe_load_all(path.read_text(encoding="utf-8"))
            objects.extend(d for d in documents if isinstance(d, dict))
    return sorted(objects, key=lambda o: KIND_ORDER.index(o["kind"]))


@dataclass
class Operator:
    """``wlmap-operator`` as a local process, logging to a file."""

    process: subprocess.Popen[bytes]
    log: Path
    health: str

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""

    def alive(self) -> None:
        """Fails when the operator exited or was refused a request (RBAC too narrow)."""
        if self.process.poll() is not None:
            raise AssertionError(
                f"the operator exited with {self.process.returncode}:\n{self.output()}"
            )
        log = self.log.read_text(errors="replace") if self.log.exists() else ""
        refused = refused_lines(log)
        if refused:
            raise AssertionError(f"the service account lacks a permission:\n{refused[0]}")

    def watching(self, check: Any) -> Any:
        """``check``, once the operator is known to be still running."""

        def checked() -> Any:
            self.alive()
            return check()

        return checked

    def healthy(self) -> bool:
        self.alive()
        try:
            return httpx.get(self.health, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def run_operator(tmp_path: Path) -> Iterator[Any]:
    """Starts operators; every one is stopped at the end, whatever happened."""
    started: list[Operator] = []

    def start(kubeconfig: Path, target: str) -> Operator:
        health = f"http://127.0.0.1:{free_port()}/healthz"
        log = tmp_path / f"operator-{len(started)}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("WLMAP_")}
        env.pop("KUBECONFIG", None)
        env["PYTHONUNBUFFERED"] = "1"
        with log.open("ab") as out:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "wlmap.operator",
                    "--kubeconfig",
                    str(kubeconfig),
                    "--target",
                    target,
                    "-n",
                    DEMO,
                    "--health",
                    health,
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        operator = Operator(process, log, health)
        started.append(operator)
        wait_for(operator.healthy, "the operator's health endpoint", timeout=90)
        return operator

    try:
        yield start
    finally:
        for operator in started:
            operator.stop()


def owned_groups(
    kube: Kube, kind: tuple[str, str], owner: Mapping[str, Any]
) -> list[dict[str, Any]]:
    uid = owner["metadata"]["uid"]
    return [
        g
        for g in kube.list(*kind, DEMO)
        if any(r.get("uid") == uid for r in g["metadata"].get("ownerReferences") or ())
    ]


def linked(kube: Kube, annotation: str, group: str) -> bool:
    pods = kube.list("v1", "Pod", DEMO)
    return bool(pods) and all(
        (p["metadata"].get("annotations") or {}).get(annotation) == group for p in pods
    )


def conditions(obj: Mapping[str, Any]) -> dict[str, str]:
    return {c["type"]: c["status"] for c in (obj.get("status") or {}).get("conditions") or ()}


def merge_patch(kube: Kube, path: str, patch: Any, content_type: str) -> dict[str, Any]:
    return kube._ok(kube._send("PATCH", path, json=patch, headers={"Content-Type": content_type}))


def install(kube: Kube) -> None:
    """Steps 2 and 3: ``kubectl apply --server-side -k deploy/operator``, then
    ``kubectl -n wlmap-system get deployment wlmap-operator``."""
    objects = kustomization_objects(OPERATOR_MANIFESTS)
    listed = yaml.safe_load((OPERATOR_MANIFESTS / "kustomization.yaml").read_text())["resources"]
    files = {p.name for p in OPERATOR_MANIFESTS.glob("*.yaml")} - {"kustomization.yaml"}
    assert files <= set(listed), f"kustomization.yaml leaves out {sorted(files - set(listed))}"
    assert [o["kind"] for o in objects] == [
        "Namespace",
        "CustomResourceDefinition",
        "CustomResourceDefinition",
        "ServiceAccount",
        "Role",
        "ClusterRole",
        "ClusterRole",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "ClusterRoleBinding",
        "Deployment",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ]
    for obj in objects:
        apply(kube, obj)
        if obj["kind"] == "CustomResourceDefinition":
            name = obj["metadata"]["name"]
            wait_for(partial(kube.crd_established, name), f"CRD {name} established")
    deployment = kube.get("apps/v1", "Deployment", SYSTEM, ACCOUNT)
    assert deployment is not None  # no nodes here: it never becomes ready
    pod_spec = deployment["spec"]["template"]["spec"]
    assert pod_spec["serviceAccountName"] == ACCOUNT
    assert pod_spec["containers"][0]["image"] == "wlmap:0.1.0"


def as_service_account(cluster: TestCluster, kube: Kube, folder: Path) -> Path:
    """Step 5 up to the operator's start: ``kubectl scale --replicas=0``, ``kubectl
    create token``, and a kubeconfig holding that token."""
    scale = kube.path("apps/v1", "Deployment", SYSTEM, ACCOUNT) + "/scale"
    merge_patch(kube, scale, {"spec": {"replicas": 0}}, "application/merge-patch+json")
    secret = token(kube)
    with cluster.client(secret) as client:  # the token is the service account's own
        review = client.post(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
        )
        user = review.json()["status"]["userInfo"]["username"]
        assert user == f"system:serviceaccount:{SYSTEM}:{ACCOUNT}"
    return kubeconfig(cluster, secret, folder / "wlmap-operator.kubeconfig")


def definition_object(kube: Kube, operator: Operator) -> None:
    """Steps 10 to 13: a definition object, its status, a broken update, its deletion."""
    definition = yaml.safe_load(JOBSET_DEFINITION.read_text(encoding="utf-8"))
    name = definition["metadata"]["name"]
    path = kube.path("wlmap.dev/v1alpha1", "WorkloadMap", None, name)

    def status_of(generation: int) -> dict[str, Any] | None:
        found = kube.get("wlmap.dev/v1alpha1", "WorkloadMap", None, name) or {}
        return (
            found if (found.get("status") or {}).get("observedGeneration") == generation else None
        )

    try:
        apply(kube, definition)

        # Degraded is written once the JobSet of step 6 was evaluated under the definition
        def evaluated() -> dict[str, Any] | None:
            found = status_of(1)
            return found if found and "Degraded" in conditions(found) else None

        stored = wait_for(operator.watching(evaluated), "the definition's status")
        assert conditions(stored) == {"Validated": "True", "CRDExists": "True", "Degraded": "False"}
        assert stored["status"]["generationInUse"] == 1
        broken = [
            {
                "op": "replace",
                "path": "/spec/structureDefinition/rootComponent/statusDefinition"
                "/statusMappings/running/0/byExpression/expression",
                "value": ".status | ]",
            }
        ]
        merge_patch(kube, path, broken, "application/json-patch+json")
        stored = wait_for(operator.watching(lambda: status_of(2)), "the broken update's status")
        assert conditions(stored)["Validated"] == "False"
        assert stored["status"]["generationInUse"] == 1  # the last good version
        assert stored["status"]["problems"]
    finally:
        kube.delete(definition)


def set_target(kube: Kube, target: str) -> None:
    """Step 14: ``python -m wlmap.operator.deploy DIR --target ... --base deploy/operator``
    and ``kubectl apply --server-side -k DIR``: the overlay changes the ClusterRole (the
    target's gang kinds instead of KAI's) and the Deployment's ``WLMAP_TARGET`` (as
    ``tests/unit/operator/test_bundle.py`` checks with kustomize itself)."""
    (role,) = [
        o
        for o in rbac.manifests(target=target)
        if (o["kind"], o["metadata"]["name"]) == ("ClusterRole", ACCOUNT)
    ]
    apply(kube, role)
    container = {"name": "operator", "env": [{"name": "WLMAP_TARGET", "value": target}]}
    patch = {"spec": {"template": {"spec": {"containers": [container]}}}}
    path = kube.path("apps/v1", "Deployment", SYSTEM, ACCOUNT)
    deployment = merge_patch(kube, path, patch, "application/strategic-merge-patch+json")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env == {
        "WLMAP_TARGET": target,
        "WLMAP_HEALTH": "http://0.0.0.0:8080/healthz",
        "WLMAP_LOG_FORMAT": "json",
    }


def test_walkthrough(cluster: TestCluster, kube: Kube, run_operator: Any, tmp_path: Path) -> None:
    # 1. the CRDs of the workload kind and of the scheduler's PodGroup (409 when present)
    kube.install_crds(["jobset.x-k8s.io_jobsets.yaml", "scheduling.run.ai_podgroups.yaml"])
    install(kube)  # 2, 3
    kube.namespace(DEMO)  # 4. kubectl create namespace demo
    # kubectl -n demo create rolebinding wlmap-operator --clusterrole wlmap-operator ...
    apply_all(kube, rbac.namespace_bindings([DEMO]))
    kube.patch(  # kubectl label namespace demo wlmap.dev/serve=true
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": DEMO}},
        {"metadata": {"labels": {"wlmap.dev/serve": "true"}}},
    )
    kubeconfig = as_service_account(cluster, kube, tmp_path)  # 5
    operator: Operator = run_operator(kubeconfig, "kai")

    # 6. kubectl -n demo create -f coordinator.yaml; the JobSet controller's Jobs and pods
    (manifest,) = load("jobset/coordinator.yaml")
    jobset = kube.create(manifest, DEMO)
    pods = jobset_children(kube, jobset)
    expected = sum(
        int(r.get("replicas", 1)) * int(r["template"]["spec"].get("parallelism", 1))
        for r in manifest["spec"]["replicatedJobs"]
    )
    assert len(pods) == expected == 5

    # 7. kubectl -n demo get podgroups.scheduling.run.ai -o yaml
    def one_kai_group() -> dict[str, Any] | None:
        groups = kube.list(*KAI, DEMO)
        owned = owned_groups(kube, KAI, jobset)
        if len(groups) == 1 and owned and min_member(owned[0]) == expected:
            return owned[0]
        return None

    group = wait_for(operator.watching(one_kai_group), "one KAI PodGroup owned by the JobSet")
    (reference,) = group["metadata"]["ownerReferences"]
    assert reference["kind"] == "JobSet" and reference["name"] == "coordinator-example"
    assert reference["controller"] is True
    assert group["metadata"]["labels"]["wlmap.dev/workload-uid"] == jobset["metadata"]["uid"]

    # 8. kubectl -n demo get pods -o custom-columns=...pod-group-name
    name = group["metadata"]["name"]
    wait_for(
        operator.watching(lambda: linked(kube, "pod-group-name", name)),
        "every pod annotated with pod-group-name",
    )

    # 9. curl http://127.0.0.1:8080/healthz
    answer = httpx.get(operator.health, timeout=5)
    assert answer.status_code == 200, answer.text

    definition_object(kube, operator)  # 10 to 13
    kube.install_crds(["scheduling.volcano.sh_podgroups.yaml"])  # Volcano is installed
    set_target(kube, "volcano")  # 14

    # 15. wlmap-operator --kubeconfig ... --target volcano; kubectl -n demo get
    # podgroups.scheduling.volcano.sh -o yaml; kubectl -n demo get pods -o custom-columns=...
    operator.stop()
    operator = run_operator(kubeconfig, "volcano")
    volcano = wait_for(
        operator.watching(lambda: owned_groups(kube, VOLCANO, jobset)),
        "a Volcano PodGroup owned by the JobSet",
    )
    assert len(volcano) == 1 and volcano[0]["spec"]["minMember"] == expected
    wait_for(
        operator.watching(
            lambda: linked(kube, "scheduling.k8s.io/group-name", volcano[0]["metadata"]["name"])
        ),
        "every pod annotated with scheduling.k8s.io/group-name",
    )

    # 16. the KAI group stays until deleted: kubectl -n demo delete podgroups.scheduling.run.ai ...
    assert [g["metadata"]["name"] for g in owned_groups(kube, KAI, jobset)] == [name]
    kube.delete(group)
    assert kube.get(*KAI, DEMO, name) is None
    assert len(owned_groups(kube, VOLCANO, jobset)) == 1
