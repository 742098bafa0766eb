"""The RBAC of the standalone exporter (``wlmap metrics serve``), generated from the same
catalog as the operator's: every verb it is granted is a read, but on the one ConfigMap
where it keeps the GPU-seconds of deleted pods across restarts. The Helm chart's
``exporter-rbac.yaml`` and ``deploy/metrics/rbac.yaml`` are both written from here.

    make metrics-files   # deploy/metrics/rbac.yaml; make deploy-manifests for the chart

- ClusterRole ``wlmap-exporter``: the operator's namespaced grants (the workload kinds, the
  owners between them and pods, pods, referenced objects, DRA claims) cut to get, list and
  watch, without the gang objects and events, which the exporter neither reads nor writes;
  bound cluster-wide, or by a RoleBinding in each namespace served (``namespaces``).
- ClusterRole ``wlmap-exporter-cluster``: nodes and namespaces (the node series and the
  namespaces' team labels), the stored definitions, cluster-scoped references. Not the
  CRDs: the exporter finds the kinds through discovery, as the CLI does.
- Role ``wlmap-exporter-checkpoint`` in the exporter's namespace: create its checkpoint
  ConfigMap (``create`` cannot be limited to a name), get and update that one only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import yaml

from wlmap.metrics.checkpoint import CHECKPOINT_NAME
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

__all__ = [
    "CHECKPOINT_ROLE",
    "CLUSTER_ROLE",
    "NAME",
    "exporter_manifests",
    "exporter_rules",
    "main",
    "render_exporter_rbac",
]

NAME = "wlmap-exporter"
CLUSTER_ROLE = f"{NAME}-cluster"
CHECKPOINT_ROLE = f"{NAME}-checkpoint"
EXPORTER_LABELS = {**LABELS, "app.kubernetes.io/name": NAME}


def _read_only(rules: list[dict[str, Any]], left_out: set[tuple[str, str]]) -> list[dict[str, Any]]:
    kept = []
    for rule in rules:
        verbs = [v for v in rule["verbs"] if v in READ]
        (group,) = rule["apiGroups"]
        resources = [r for r in rule["resources"] if "/" not in r and (group, r) not in left_out]
        if verbs and resources:
            kept.append({"apiGroups": [group], "resources": resources, "verbs": verbs})
    return kept


def exporter_rules() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The namespaced and the cluster-scoped rules of the exporter."""
    gangs = {(k.group, k.plural) for t in SYNC_TARGETS for k in PROFILES[t].kinds}
    namespaced = _read_only(namespaced_rules(), gangs | {("", "events")})
    cluster = _read_only(cluster_rules(), {("apiextensions.k8s.io", "customresourcedefinitions")})
    cluster.append({"apiGroups": [""], "resources": ["namespaces", "nodes"], "verbs": list(READ)})
    return namespaced, cluster


def _checkpoint_rules() -> list[dict[str, Any]]:
    return [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]},
        {
            "apiGroups": [""],
            "resources": ["configmaps"],
            "resourceNames": [CHECKPOINT_NAME],
            "verbs": ["get", "update"],
        },
    ]


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    return {
        "name": name,
        **({"namespace": namespace} if namespace else {}),
        "labels": EXPORTER_LABELS,
    }


def _binding(kind: str, role_kind: str, role: str, namespace: str | None = None) -> dict[str, Any]:
    return {
        "apiVersion": f"{RBAC_API}/v1",
        "kind": kind,
        "metadata": _meta(role, namespace),
        "roleRef": {"apiGroup": RBAC_API, "kind": role_kind, "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}],
    }


def exporter_manifests(namespaces: Sequence[str] = ()) -> list[dict[str, Any]]:
    """ServiceAccount, roles and bindings of the exporter: reading the workloads of the
    whole cluster, or (``namespaces`` given) of those namespaces only."""
    namespaced, cluster = exporter_rules()
    role = f"{RBAC_API}/v1"
    served = (
        [_binding("RoleBinding", "ClusterRole", NAME, ns) for ns in sorted(set(namespaces))]
        if namespaces
        else [_binding("ClusterRoleBinding", "ClusterRole", NAME)]
    )
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(NAME, NAMESPACE)},
        {"apiVersion": role, "kind": "ClusterRole", "metadata": _meta(NAME), "rules": namespaced},
        {
            "apiVersion": role,
            "kind": "ClusterRole",
            "metadata": _meta(CLUSTER_ROLE),
            "rules": cluster,
        },
        {
            "apiVersion": role,
            "kind": "Role",
            "metadata": _meta(CHECKPOINT_ROLE, NAMESPACE),
            "rules": _checkpoint_rules(),
        },
        *served,
        _binding("ClusterRoleBinding", "ClusterRole", CLUSTER_ROLE),
        _binding("RoleBinding", "Role", CHECKPOINT_ROLE, NAMESPACE),
    ]


def render_exporter_rbac() -> str:
    """The text of ``deploy/metrics/rbac.yaml`` (the exporter serving every namespace)."""
    header = (
        "# Generated by `make metrics-files` (wlmap.operator.deploy.metrics_rbac); do not edit.\n"
    )
    return header + yaml.safe_dump_all(exporter_manifests(), sort_keys=False)


def main(argv: Sequence[str]) -> None:
    """Write the RBAC file named by the one argument."""
    if len(argv) != 1:
        sys.exit("usage: python -m wlmap.operator.deploy.metrics_rbac FILE")
    with open(argv[0], "w", encoding="utf-8") as out:
        out.write(render_exporter_rbac())


if __name__ == "__main__":
    main(sys.argv[1:])
