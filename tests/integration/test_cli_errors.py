"""What a user sees when live mode cannot give an answer: one line, the right exit code."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.integration.kube import Kube, load, wait_for
from tests.integration.testcluster import VIEWER_TOKEN, TestCluster, free_port
from tests.integration.wlmapcli import (
    TEMPLATE_HASH,
    Wlmap,
    aligned,
    deployment_with_pods,
    kubeconfig_copy,
)
from wlmap.cli._exits import CLUSTER, NO_DEFINITION, NOT_FOUND, OK
from wlmap.sources.cluster import ApiError, Cluster

RBAC = "rbac.authorization.k8s.io/v1"


def create_jobset(kube: Kube, namespace: str) -> dict[str, Any]:
    (manifest,) = load("jobset/coordinator.yaml")
    return kube.create(manifest, namespace)


def test_a_missing_workload_exits_3_with_one_line(wlmap: Wlmap, namespace: str) -> None:
    for args in (
        ("get", "jobset/absent"),
        ("get", "jobsets", "absent"),
        ("describe", "jobset/absent"),
    ):
        result = wlmap(*args, "-n", namespace)
        assert (result.code, result.out) == (NOT_FOUND, ""), args
        assert result.err == f"error: jobset 'absent' not found in namespace '{namespace}'\n"


def test_a_mapped_kind_without_its_crd_exits_3(wlmap: Wlmap, namespace: str) -> None:
    for token in ("rayjobs", "RayJob", "rayjobs.ray.io", "rayjob.v1.ray.io"):
        result = wlmap("get", token, "-n", namespace)
        assert (result.code, result.out) == (NOT_FOUND, ""), token
        assert result.err == (
            "error: the cluster does not serve RayJob (ray.io): is its CRD installed?\n"
        )
    described = wlmap("describe", "rayjob/sample", "-n", namespace)
    assert (described.code, described.errors) == (
        NOT_FOUND,
        ["error: the cluster does not serve RayJob (ray.io): is its CRD installed?"],
    )
    unknown = wlmap("get", "frobnicators", "-n", namespace)
    assert (unknown.code, unknown.err) == (
        NO_DEFINITION,
        "error: the cluster has no resource type 'frobnicators'\n",
    )


def test_viewer_is_told_what_is_forbidden_and_sees_what_it_may(
    wlmap: Wlmap, kube: Kube, cluster: TestCluster, namespace: str
) -> None:
    create_jobset(kube, namespace)

    one = wlmap("--context", "viewer", "get", "jobsets", "-n", namespace)
    assert (one.code, one.out) == (CLUSTER, "")
    assert one.errors == [
        f"error: GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets: 403 "
        f'jobsets.jobset.x-k8s.io is forbidden: User "viewer" cannot list resource "jobsets" '
        f'in API group "jobset.x-k8s.io" in the namespace "{namespace}"'
    ]
    every = wlmap("--context", "viewer", "get", "--all-types", "-n", namespace)
    assert (every.code, every.out) == (CLUSTER, "")
    (error,) = every.errors
    assert error.startswith("error: cannot list any of the ")
    assert f"workload types in namespace '{namespace}'; " in error
    assert "forbidden" in error

    grant_list(kube, namespace, "jobset.x-k8s.io", "jobsets")
    with cluster.client(VIEWER_TOKEN) as viewer:
        path = f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets"
        wait_for(lambda: viewer.get(path).status_code == 200, "the role binding to apply")

    granted = wlmap("--context", "viewer", "get", "--all-types", "-n", namespace)
    assert granted.code == OK, granted.err
    assert granted.table() == aligned(
        ("NAMESPACE", "NAME", "KIND", "PHASE", "PODS", "GPUS"),
        (namespace, "coordinator-example", "JobSet", "Undefined", "5", "0"),
    )
    assert granted.errors == []
    for refused in ("deployments.apps", "jobs.batch", "pods"):
        assert f"cannot list {refused} in namespace '{namespace}': forbidden" in granted.warnings


def grant_list(kube: Kube, namespace: str, group: str, plural: str) -> None:
    """A Role allowing ``list`` on one type in one namespace, bound to the viewer."""
    role = kube.create(
        {
            "apiVersion": RBAC,
            "kind": "Role",
            "metadata": {"name": f"list-{plural}"},
            "rules": [{"apiGroups": [group], "resources": [plural], "verbs": ["list"]}],
        },
        namespace,
    )
    kube.create(
        {
            "apiVersion": RBAC,
            "kind": "RoleBinding",
            "metadata": {"name": f"viewer-list-{plural}"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "Role",
                "name": role["metadata"]["name"],
            },
            "subjects": [
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "viewer"}
            ],
        },
        namespace,
    )


def test_an_unreachable_server_exits_7_with_one_line(wlmap: Wlmap, tmp_path: Path) -> None:
    closed = f"https://127.0.0.1:{free_port()}"
    config = kubeconfig_copy(wlmap.kubeconfig, tmp_path / "kubeconfig", server=closed)
    result = wlmap.process("get", "jobsets", "-n", "default", kubeconfig=config)
    assert (result.code, result.out) == (CLUSTER, "")
    assert result.err == (
        f"error: cannot reach the API server at {closed}: All connection attempts failed\n"
    )


def test_configuration_problems_exit_7_naming_what_is_wrong(
    wlmap: Wlmap, cluster: TestCluster, tmp_path: Path
) -> None:
    nope = wlmap("--context", "nope", "get", "jobsets")
    assert (nope.code, nope.out, nope.err) == (
        CLUSTER,
        "",
        "error: cannot use context 'nope': No such context nope\n",
    )
    missing = wlmap("get", "jobsets", kubeconfig=tmp_path / "absent")
    assert (missing.code, missing.err) == (
        CLUSTER,
        f"error: the kubeconfig {tmp_path / 'absent'} does not exist\n",
    )
    revoked = kubeconfig_copy(wlmap.kubeconfig, tmp_path / "revoked", token="revoked")
    refused = wlmap("get", "jobsets", kubeconfig=revoked)
    assert (refused.code, refused.err) == (
        CLUSTER,
        f"error: the API server at {cluster.url} does not accept the credentials of "
        "the kubeconfig: Unauthorized\n",
    )


def test_expired_credentials_are_reloaded_once(cluster: TestCluster, tmp_path: Path) -> None:
    """A token that stops being accepted mid-session (an exec plugin's token expiring) is
    replaced by reloading the kubeconfig; requests failing together reload it once."""
    config = kubeconfig_copy(cluster.kubeconfig, tmp_path / "kubeconfig")

    def expire(connection: Cluster) -> None:
        connection._api._session.headers["Authorization"] = "Bearer expired"

    async def scenario() -> tuple[list[int], int]:
        connection = await Cluster.connect(str(config))
        try:
            expire(connection)
            answers = await asyncio.gather(
                *(connection.request("GET", "/api/v1/namespaces/default") for _ in range(4))
            )
            names = [a["metadata"]["name"] == "default" for a in answers]
            kubeconfig_copy(cluster.kubeconfig, config, token="revoked")
            expire(connection)
            with pytest.raises(ApiError) as refused:
                await connection.request("GET", "/api/v1/namespaces/default")
            return [int(n) for n in names], refused.value.code
        finally:
            await connection.close()

    assert asyncio.run(scenario()) == ([1, 1, 1, 1], 401)


def test_owners_the_viewer_may_not_read_are_named_in_a_warning(
    wlmap: Wlmap, kube: Kube, cluster: TestCluster, namespace: str
) -> None:
    deployment = deployment_with_pods(kube, namespace, ready=3)
    grant_list(kube, namespace, "apps", "deployments")
    grant_list(kube, namespace, "", "pods")
    with cluster.client(VIEWER_TOKEN) as viewer:
        path = f"/api/v1/namespaces/{namespace}/pods"
        wait_for(lambda: viewer.get(path).status_code == 200, "the role bindings to apply")

    result = wlmap("--context", "viewer", "describe", "deploy", "-n", namespace)
    assert result.code == OK, result.err
    replicaset = f"{deployment['metadata']['name']}-{TEMPLATE_HASH}"
    assert (
        f"cannot read replicasets.apps {namespace}/{replicaset}: forbidden; the pods they own "
        "are not attributed to their workload"
    ) in result.warnings
