"""The operator's service account as a client: its objects installed from the generated
manifests, a TokenRequest token, and a kubeconfig holding nothing but that token."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from tests.integration.kube import Kube
from tests.integration.testcluster import TestCluster
from wlmap.operator.deploy.rbac import NAME, NAMESPACE

APPLY = "application/apply-patch+yaml"


def apply(kube: Kube, obj: Mapping[str, Any], namespace: str | None = None) -> dict[str, Any]:
    """``kubectl apply --server-side``: create or update through server-side apply."""
    meta = dict(obj["metadata"])
    namespace = namespace or meta.get("namespace")
    path = kube.path(obj["apiVersion"], obj["kind"], namespace, meta["name"])
    return kube._ok(
        kube._send(
            "PATCH",
            path,
            params={"fieldManager": "kubectl"},
            content=json.dumps(dict(obj)),
            headers={"Content-Type": APPLY},
        )
    )


def apply_all(kube: Kube, objects: Iterable[Mapping[str, Any]]) -> None:
    for obj in objects:
        apply(kube, obj)


def token(kube: Kube, seconds: int = 3600, account: str = NAME, namespace: str = NAMESPACE) -> str:
    """``kubectl -n NAMESPACE create token ACCOUNT`` (the operator's by default)."""
    request = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": seconds},
    }
    path = f"/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token"
    return str(kube._ok(kube._send("POST", path, json=request))["status"]["token"])


def kubeconfig(cluster: TestCluster, secret: str, path: Path) -> Path:
    """A kubeconfig with the cluster's server and CA, and the service account's token."""
    admin = yaml.safe_load(cluster.kubeconfig.read_text())
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "cluster", "cluster": admin["clusters"][0]["cluster"]}],
        "users": [{"name": NAME, "user": {"token": secret}}],
        "contexts": [{"name": NAME, "context": {"cluster": "cluster", "user": NAME}}],
        "current-context": NAME,
    }
    path.write_text(yaml.safe_dump(config))
    path.chmod(0o600)
    return path
