"""The Helm chart installed by a real helm on the test API server: the operator, run as
the release's service account with the release's Deployment settings (no container runs
on this cluster, so its pod never starts: the same settings run as a local process), keeps
a JobSet's gang, serving a listed namespace or, under a selector, a namespace the release
binds (``namespaces.bind``) and a label opts in; either way the service account cannot
list the pods of the cluster. `helm uninstall` then leaves nothing of the release behind
but the CRDs, which Helm keeps by design."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helm import CHART, RELEASE, run, template, values_file
from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import min_member
from tests.integration.operator_process import OperatorProcess, refused_lines
from tests.integration.serviceaccount import kubeconfig, token
from tests.integration.testcluster import TestCluster
from wlmap.operator.deploy import rbac

KAI = ("scheduling.run.ai/v2alpha2", "PodGroup")
CRD_API = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")


def _helm(cluster: TestCluster, *arguments: str) -> str:
    done = run(*arguments, "--kubeconfig", str(cluster.kubeconfig), check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _leftovers(kube: Kube, objects: dict[Any, Any]) -> list[tuple[str, str, str]]:
    found = []
    for key, obj in objects.items():
        meta = obj["metadata"]
        if kube.get(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"]):
            found.append(key)
    return found


# a selector no other test's namespace carries: the release serves the test's one only
SELECTOR = "wlmap.dev/helm-test=true"


@contextmanager
def installed(
    cluster: TestCluster, kube: Kube, values: dict[str, Any], tmp_path: Path
) -> Iterator[dict[Any, Any]]:
    """The chart installed with ``values``; yields the objects of its templates."""
    objects = template(values, tmp_path, rbac.NAMESPACE)
    templated = {k: o for k, o in objects.items() if k[0] != "CustomResourceDefinition"}
    # what other tests applied by hand (the bundle's RBAC) would not be Helm's to adopt
    for obj in templated.values():
        kube.delete(obj)
    wait_for(lambda: not _leftovers(kube, templated), "the hand-applied objects gone")
    _helm(
        cluster, "install", RELEASE, str(CHART), "--namespace", rbac.NAMESPACE,
        "--create-namespace", "-f", str(values_file(values, tmp_path)),
    )  # fmt: skip
    try:
        yield templated
    finally:
        run("uninstall", RELEASE, "--namespace", rbac.NAMESPACE,
            "--kubeconfig", str(cluster.kubeconfig), check=False)  # fmt: skip


@pytest.fixture
def release(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> Iterator[dict[Any, Any]]:
    """The chart installed, serving ``namespace``; yields the objects of its templates."""
    with installed(cluster, kube, {"namespaces": {"list": [namespace]}}, tmp_path) as objects:
        yield objects


def _settings(kube: Kube) -> dict[str, str]:
    """The environment of the installed Deployment's container, but its health address
    (the local process gets a free port)."""
    deployment = kube.get("apps/v1", "Deployment", rbac.NAMESPACE, rbac.NAME)
    assert deployment is not None
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    env.pop("WLMAP_HEALTH")
    return env | {"WLMAP_LOG_FORMAT": "plain"}


def test_the_installed_release_keeps_a_jobsets_gang_and_uninstalls_cleanly(
    cluster: TestCluster,
    kube: Kube,
    namespace: str,
    tmp_path: Path,
    release: dict[Any, Any],
) -> None:
    listed = yaml.safe_load(_helm(cluster, "list", "-n", rbac.NAMESPACE, "-o", "yaml"))
    assert [(r["name"], r["status"]) for r in listed] == [(RELEASE, "deployed")]
    present = _leftovers(kube, release)
    missing = [k for k in release if k not in present]
    assert not missing, f"not installed: {missing}"

    env = _settings(kube)
    assert env["WLMAP_NAMESPACES"] == namespace
    _keeps_a_jobsets_gang(cluster, kube, namespace, env, tmp_path)

    _helm(cluster, "uninstall", RELEASE, "--namespace", rbac.NAMESPACE, "--wait")
    wait_for(lambda: not _leftovers(kube, release), "the release's objects gone")
    assert yaml.safe_load(_helm(cluster, "list", "-n", rbac.NAMESPACE, "-o", "yaml")) == []
    for crd in ("workloadmaps.wlmap.dev", "kartas.run.ai"):  # Helm keeps CRDs by design
        assert kube.get(*CRD_API, None, crd) is not None, crd


def test_a_release_under_a_selector_serves_the_namespace_it_binds(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    values = {"namespaces": {"selector": SELECTOR, "bind": [namespace]}}
    with installed(cluster, kube, values, tmp_path) as objects:
        assert ("RoleBinding", namespace, rbac.NAME) in objects
        label, _, value = SELECTOR.partition("=")
        labelled = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        kube.patch(labelled, {"metadata": {"labels": {label: value}}})
        env = _settings(kube)
        assert "WLMAP_NAMESPACES" not in env
        assert env["WLMAP_NAMESPACE_SELECTOR"] == SELECTOR
        _keeps_a_jobsets_gang(cluster, kube, namespace, env, tmp_path)
    wait_for(lambda: not _leftovers(kube, objects), "the release's objects gone")


def _keeps_a_jobsets_gang(
    cluster: TestCluster, kube: Kube, namespace: str, env: dict[str, str], tmp_path: Path
) -> None:
    """The operator, as the release's service account with its settings, gives a JobSet
    in ``namespace`` its PodGroup and links its pods, with no request refused; that
    account reads the pods of ``namespace``, not those of the cluster."""
    secret = token(kube)
    config = kubeconfig(cluster, secret, tmp_path / "release.kubeconfig")
    operator = OperatorProcess(
        config, None, tmp_path / "operator.log", target=env["WLMAP_TARGET"], env=env
    ).start()
    try:
        (manifest,) = load("jobset/coordinator.yaml")
        jobset = kube.create(manifest, namespace)
        pods = jobset_children(kube, jobset)

        def grouped() -> dict[str, Any] | None:
            groups = kube.list(*KAI, namespace)
            return groups[0] if len(groups) == 1 and min_member(groups[0]) == len(pods) else None

        group = wait_for(grouped, "the JobSet's PodGroup")
        name = group["metadata"]["name"]
        wait_for(
            lambda: all(
                (p["metadata"].get("annotations") or {}).get("pod-group-name") == name
                for p in kube.list("v1", "Pod", namespace)
            ),
            "every pod linked to the PodGroup",
        )
        refused = refused_lines(operator.output())
        assert not refused, refused[0]
    finally:
        operator.stop()
    with cluster.client(secret) as client:
        assert client.get(f"/api/v1/namespaces/{namespace}/pods").status_code == 200
        answer = client.get("/api/v1/pods")
        assert answer.status_code == 403, answer.text
