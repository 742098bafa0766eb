"""The standalone metrics exporter's RBAC (``wlmap metrics serve``): what the operator
reads, and nothing it writes.

It reads the workloads, their pods, owners, references and DRA claims in the served
namespaces (ClusterRole ``wlmap-exporter``, bound like the operator's), and cluster-wide
the nodes (GPUs per node and domain), the namespaces (their team label), the CRDs and the
definition objects (ClusterRole ``wlmap-exporter-cluster``). In its own namespace it keeps
the ConfigMap holding the GPU-seconds of deleted pods, so that a restart does not reset
the counters, and posts events (Role ``wlmap-exporter-own-namespace``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wlmap.operator.core.settings import SYNC_TARGETS
from wlmap.operator.deploy.rbac import (
    LABELS,
    NAMESPACE,
    RBAC_API,
    READ,
    cluster_rules,
    namespaced_rules,
)
from wlmap.schedulers import PROFILES

NAME = "wlmap-exporter"
CLUSTER_ROLE = f"{NAME}-cluster"
OWN_NAMESPACE_ROLE = f"{NAME}-own-namespace"
EXPORTER_LABELS = LABELS | {"app.kubernetes.io/name": NAME}
_GANG_RESOURCES = {(k.group, k.plural) for t in SYNC_TARGETS for k in PROFILES[t].kinds}


def _read_only(rules: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    kept = []
    for rule in rules:
        verbs = [v for v in rule["verbs"] if v in READ]
        resources = [
            r
            for r in rule["resources"]
            if "/" not in r and (rule["apiGroups"][0], r) not in _GANG_RESOURCES
        ]
        if verbs and resources:
            kept.append(rule | {"resources": resources, "verbs": verbs})
    return kept


def exporter_rules() -> list[dict[str, Any]]:
    """Inside a served namespace: the operator's reads, without the gang objects."""
    return _read_only(namespaced_rules())


def exporter_cluster_rules() -> list[dict[str, Any]]:
    """Cluster-wide: the operator's cluster-scoped reads, the nodes and the namespaces."""
    nodes = {"apiGroups": [""], "resources": ["namespaces", "nodes"], "verbs": list(READ)}
    rules = [r for r in _read_only(cluster_rules()) if r["apiGroups"] != [""]]
    return [nodes, *rules]


def exporter_own_namespace_rules() -> list[dict[str, Any]]:
    """Its own namespace: the GPU-seconds checkpoint and its events."""
    return [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create", *READ, "update"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    ]


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    return meta | {"labels": EXPORTER_LABELS}


def _binding(kind: str, role_kind: str, role: str, namespace: str | None = None) -> Any:
    return {
        "apiVersion": f"{RBAC_API}/v1",
        "kind": kind,
        "metadata": _meta(role, namespace),
        "roleRef": {"apiGroup": RBAC_API, "kind": role_kind, "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}],
    }


def exporter_manifests(namespaces: Sequence[str] = ()) -> list[dict[str, Any]]:
    """ServiceAccount, roles and bindings of the exporter: reading the whole cluster, or
    (``namespaces`` given) those namespaces' workloads only."""
    role = f"{RBAC_API}/v1"
    served = (
        [_binding("RoleBinding", "ClusterRole", NAME, ns) for ns in sorted(set(namespaces))]
        if namespaces
        else [_binding("ClusterRoleBinding", "ClusterRole", NAME)]
    )
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(NAME, NAMESPACE)},
        {"apiVersion": role, "kind": "ClusterRole", "metadata": _meta(NAME)}
        | {"rules": exporter_rules()},
        {"apiVersion": role, "kind": "ClusterRole", "metadata": _meta(CLUSTER_ROLE)}
        | {"rules": exporter_cluster_rules()},
        {"apiVersion": role, "kind": "Role", "metadata": _meta(OWN_NAMESPACE_ROLE, NAMESPACE)}
        | {"rules": exporter_own_namespace_rules()},
        *served,
        _binding("ClusterRoleBinding", "ClusterRole", CLUSTER_ROLE),
        _binding("RoleBinding", "Role", OWN_NAMESPACE_ROLE, NAMESPACE),
    ]
