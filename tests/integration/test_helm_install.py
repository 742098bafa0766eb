"""The Helm chart installed by a real helm on the test API server: the operator, run as
the release's service account with the release's Deployment settings (no container runs
on this cluster, so its pod never starts: the same settings run as a local process), keeps
a JobSet's gang, serving a listed namespace or, under a selector, a namespace the release
binds (``namespaces.bind``) and a label opts in; either way the service account cannot
list the pods of the cluster. `helm uninstall` then leaves nothing of the release behind
but the CRDs, which Helm keeps by design. With the exporter on, `wlmap metrics serve` runs
the same way, with its Deployment's arguments and account, and serves a JobSet."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.helm import CHART, RELEASE, run, template, values_file
from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import min_member
from tests.integration.operator_process import OperatorProcess, refused_lines
from tests.integration.serviceaccount import kubeconfig, token
from tests.integration.testcluster import TestCluster, free_port, terminate
from wlmap.metrics.checkpoint import CHECKPOINT_NAME
from wlmap.operator.deploy import metrics_rbac, rbac

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


# the exporter's release: another namespace than the bundle's, where its Role is
RELEASE_NAMESPACE = "wlmap-metrics-release"

# a selector no other test's namespace carries: the release serves the test's one only
SELECTOR = "wlmap.dev/helm-test=true"


@contextmanager
def installed(
    cluster: TestCluster,
    kube: Kube,
    values: dict[str, Any],
    tmp_path: Path,
    release_namespace: str = rbac.NAMESPACE,
) -> Iterator[dict[Any, Any]]:
    """The chart installed with ``values`` in ``release_namespace``; yields the objects
    of its templates."""
    objects = template(values, tmp_path, release_namespace)
    templated = {k: o for k, o in objects.items() if k[0] != "CustomResourceDefinition"}
    # what other tests applied by hand (the bundle's RBAC) would not be Helm's to adopt
    for obj in templated.values():
        kube.delete(obj)
    wait_for(lambda: not _leftovers(kube, templated), "the hand-applied objects gone")
    _helm(
        cluster, "install", RELEASE, str(CHART), "--namespace", release_namespace,
        "--create-namespace", "-f", str(values_file(values, tmp_path)),
    )  # fmt: skip
    try:
        yield templated
    finally:
        run("uninstall", RELEASE, "--namespace", release_namespace,
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


def test_the_releases_exporter_serves_a_jobset_with_its_own_account(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    """``exporter.enabled`` (beside the operator's ``metrics.enabled``): `wlmap metrics
    serve`, run with the installed Deployment's command, arguments and environment as the
    release's exporter account, serves a JobSet's series with no request refused and
    keeps its checkpoint in the release's namespace (not the command's default); the
    Services send the scrape to the ports the containers serve."""
    port, operator_port = free_port(), free_port()
    values = {
        "namespaces": {"list": [namespace]},
        "exporter": {"enabled": True, "port": port},
        "metrics": {"enabled": True, "port": operator_port},
    }
    with installed(cluster, kube, values, tmp_path, RELEASE_NAMESPACE):
        exporter = _container(kube, metrics_rbac.NAME)
        operator = _container(kube, rbac.NAME)
        assert _served_port(kube, metrics_rbac.NAME, exporter) == port
        assert _served_port(kube, "wlmap-operator-metrics", operator) == operator_port
        assert operator["args"] == ["--metrics-port", str(operator_port)]

        (manifest,) = load("jobset/coordinator.yaml")
        jobset = kube.create(manifest, namespace)
        pods = jobset_children(kube, jobset)
        secret = token(kube, account=metrics_rbac.NAME, namespace=RELEASE_NAMESPACE)
        config = kubeconfig(cluster, secret, tmp_path / "exporter.kubeconfig")
        log = tmp_path / "exporter.log"
        wlmap = Path(sys.executable).parent / exporter["command"][0]
        command = [str(wlmap), "--kubeconfig", str(config), *exporter["command"][1:]]
        env = {e["name"]: e["value"] for e in exporter.get("env", ())}
        process = subprocess.Popen(
            [*command, *exporter["args"]],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            env=os.environ | env,
        )
        try:
            info = (
                f'wlmap_workload_info{{namespace="{namespace}",'
                f'workload="{jobset["metadata"]["name"]}",kind="JobSet"'
            )

            def served() -> str | None:
                if process.poll() is not None:
                    raise AssertionError(f"the exporter exited:\n{log.read_text()[-3000:]}")
                try:
                    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
                except httpx.HTTPError:
                    return None
                return text if info in text else None

            text = wait_for(served, "the JobSet's series on the exporter", timeout=90)
            assert "wlmap_exporter_cache_synced 1" in text
            desired = [
                line
                for line in text.splitlines()
                if line.startswith("wlmap_workload_component_pods_desired{")
                and f'workload="{jobset["metadata"]["name"]}"' in line
            ]
            assert sum(float(line.rsplit(" ", 1)[1]) for line in desired) == len(pods)
        finally:
            terminate(process)
        output = log.read_text()
        refused = refused_lines(output)
        assert not refused, refused[0]
        # written on stop, in the release's namespace, where its Role lets it write
        checkpoint = kube.get("v1", "ConfigMap", RELEASE_NAMESPACE, CHECKPOINT_NAME)
        assert checkpoint is not None, output[-3000:]
        kube.delete(checkpoint)  # not the release's: Helm would leave it behind


def _container(kube: Kube, deployment: str) -> dict[str, Any]:
    found = kube.get("apps/v1", "Deployment", RELEASE_NAMESPACE, deployment)
    assert found is not None, deployment
    (container,) = found["spec"]["template"]["spec"]["containers"]
    return dict(container)


def _served_port(kube: Kube, service: str, container: dict[str, Any]) -> int:
    """The port a Service sends its `metrics` port to, once checked against the container
    port it names and the port the container's command listens on."""
    found = kube.get("v1", "Service", RELEASE_NAMESPACE, service)
    assert found is not None, service
    (ports,) = found["spec"]["ports"]
    assert (ports["name"], ports["targetPort"]) == ("metrics", "metrics")
    named = {p["name"]: p["containerPort"] for p in container["ports"]}
    args = list(container.get("args", ()))
    flag = "--port" if "--port" in args else "--metrics-port"
    assert int(args[args.index(flag) + 1]) == named["metrics"] == ports["port"]
    return int(ports["port"])
