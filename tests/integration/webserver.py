"""``wlmap web`` on the test cluster: a ClusterSource read with the admin kubeconfig,
served on a free loopback port (with a Guard for ``--auth``), and service accounts with
Roles of their own to call it as."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx

from tests.integration.kube import Kube
from tests.integration.testcluster import TestCluster
from wlmap.app.live import Live
from wlmap.web import ClusterSource, Guard
from wlmap.web.server import make_server


@contextmanager
def web_server(cluster: TestCluster, *, auth: bool) -> Iterator[str]:
    """The address of a live ``wlmap web`` (``--auth`` when ``auth``) until the block ends."""
    warnings: list[str] = []
    source = ClusterSource(Live(warnings.append, str(cluster.kubeconfig))).start()
    guard = Guard(source.ask, source.plural) if auth else None
    server = make_server(source, "127.0.0.1", 0, guard=guard)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host!s}:{port}/"
    finally:
        server.shutdown()
        server.server_close()
        source.stop()


def reader(kube: Kube, namespace: str, name: str, resources: Sequence[tuple[str, str]]) -> str:
    """A service account allowed to get, list and watch ``resources`` ((group, plural)
    pairs) in ``namespace`` only; returns a token of it."""
    kube.create(
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}, namespace
    )
    rules = [
        {"apiGroups": [group], "resources": [plural], "verbs": ["get", "list", "watch"]}
        for group, plural in resources
    ]
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": name},
    }
    kube.create({**role, "rules": rules}, namespace)
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
    }
    kube.create(binding, namespace)
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
    path = f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"
    return str(kube._ok(kube._send("POST", path, json=request))["status"]["token"])


def get(url: str, token: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx.get(url, headers=headers, timeout=10)


def names(answer: httpx.Response, namespaces: Sequence[str]) -> set[str]:
    """The workloads of a Workloads answer in these namespaces (the cluster is shared)."""
    assert answer.status_code == 200, answer.text
    document: dict[str, Any] = json.loads(answer.text)
    return {r["name"] for r in document["items"] if r["namespace"] in namespaces}
