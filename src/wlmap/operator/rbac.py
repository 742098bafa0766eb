"""Least-privilege RBAC for the operator, generated from the kinds the definitions name.

The ClusterRole grants exactly what the operator does: it reads (get/list/watch) every root
kind of the built-in catalog and the pods beside them, patches pods (the group annotation),
reads the owners a pod's controller chain passes through and the objects definitions refer
to, lists DRA claims, reads the definition objects and patches their status, manages the
gang objects of every target, and reads what kopf needs (CRDs, namespaces; it posts events).

Run ``python -m wlmap.operator.rbac DIR`` to write ``DIR/rbac.yaml`` (ServiceAccount,
ClusterRole, ClusterRoleBinding). Definitions for kinds outside the catalog need their kinds
named: ``--kinds MyJob.example.com,Other.example.org`` (the same list as ``WLMAP_KINDS``).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from wlmap.catalog import builtin_registry
from wlmap.definitions.registry import Registry
from wlmap.operator.settings import FIELD_MANAGER, GANG_KINDS, parse_kinds
from wlmap.sources.cluster.definitions import DEFINITION_TYPES

NAMESPACE = "wlmap-system"
NAME = FIELD_MANAGER  # the ServiceAccount, ClusterRole and ClusterRoleBinding
RBAC_FILE = "rbac.yaml"

READ = ("get", "list", "watch")
MANAGE = ("create", "delete", "get", "list", "patch", "update", "watch")

# Owners between a pod and its workload that no definition names as a root kind: the
# operator follows a pod's controller references upwards (GET on each owner) to find the
# mapped workload, and a refused read ends the walk early.
INTERMEDIATE_OWNERS: tuple[tuple[str, str], ...] = (
    ("apps", "ReplicaSet"),  # Deployment -> ReplicaSet -> Pod
    ("apps", "StatefulSet"),  # LeaderWorkerSet, Notebook, Seldon Server -> StatefulSet -> Pod
    ("apps", "Deployment"),  # KServe, NIM, Milvus, Flink -> Deployment -> ReplicaSet -> Pod
    ("batch", "Job"),  # JobSet, CronJob, MPIJob launcher -> Job -> Pod
    ("serving.knative.dev", "Configuration"),  # Service -> Configuration -> Revision
    ("serving.knative.dev", "Revision"),  # Revision -> Deployment -> ReplicaSet -> Pod
    ("grove.io", "PodClique"),  # PodCliqueSet -> PodClique -> Pod
    ("grove.io", "PodCliqueScalingGroup"),  # PodCliqueSet -> scaling group -> PodClique
    ("nvidia.com", "DynamoComponentDeployment"),  # Dynamo graph -> component -> Deployment
)


def plural(kind: str) -> str:
    """The resource name of a kind by the rule CRD generators use: lower case, plus ``s``;
    ``es`` after s, x, z, ch and sh; ``ies`` for a consonant followed by y."""
    word = kind.lower()
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


class _Grants:
    """Verbs per (group, resource), merged as rules are added."""

    def __init__(self) -> None:
        self.verbs: dict[tuple[str, str], set[str]] = defaultdict(set)

    def add(self, group: str, resources: Iterable[str], verbs: Iterable[str]) -> None:
        for resource in resources:
            self.verbs[(group, resource)].update(verbs)

    def readable(self, group: str, resource: str) -> bool:
        return "get" in self.verbs.get((group, resource), set())

    def rules(self) -> list[dict[str, Any]]:
        """One rule per API group and verb set, resources sorted, rules sorted by group."""
        merged: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
        for (group, resource), verbs in self.verbs.items():
            merged[(group, tuple(sorted(verbs)))].append(resource)
        return [
            {"apiGroups": [group], "resources": sorted(resources), "verbs": list(verbs)}
            for (group, verbs), resources in sorted(merged.items())
        ]


def cluster_role_rules(
    registry: Registry | None = None, extra_kinds: Sequence[tuple[str, str]] = ()
) -> list[dict[str, Any]]:
    """The ClusterRole's rules for the definitions of a registry (default: the catalog)."""
    registry = builtin_registry() if registry is None else registry
    grants = _Grants()
    workloads: set[tuple[str, str]] = set(extra_kinds)
    references: set[tuple[str, str]] = set()
    selections: set[tuple[str, str]] = set()
    for entry in registry:
        definition = entry.definition
        structure = definition.spec.structure_definition
        workloads.update((c.kind.group, c.kind.kind) for c in definition.components() if c.kind)
        workloads.update((k.group, k.kind) for k in structure.additional_child_kinds)
        references.update((r.kind.group, r.kind.kind) for r in structure.references)
        # a selection (a PodCliqueSet's PodCliques) is listed, and may be watched
        selections.update(
            (r.kind.group, r.kind.kind) for r in structure.references if r.selects_many
        )
    for group, kind in workloads:
        grants.add(group, [plural(kind)], READ)
    grants.add("", ["pods"], (*READ, "patch"))  # the pod link annotation
    for group, kind in sorted(selections):
        grants.add(group, [plural(kind)], READ)
    for group, kind in sorted(references | set(INTERMEDIATE_OWNERS)):
        if not grants.readable(group, plural(kind)):
            grants.add(group, [plural(kind)], ["get"])
    grants.add("resource.k8s.io", ["resourceclaims"], ["list"])  # GPUs claimed through DRA
    for group, kind in DEFINITION_TYPES:
        grants.add(group, [plural(kind)], READ)
        grants.add(group, [f"{plural(kind)}/status"], ["patch"])
    for kinds in GANG_KINDS.values():
        for api_version, kind in kinds:
            grants.add(api_version.rpartition("/")[0], [plural(kind)], MANAGE)
    # kopf: resource discovery through CRDs, namespace observation, events it posts
    grants.add("apiextensions.k8s.io", ["customresourcedefinitions"], READ)
    grants.add("", ["namespaces"], ["list", "watch"])
    grants.add("", ["events"], ["create"])
    return grants.rules()


def manifests(
    registry: Registry | None = None, extra_kinds: Sequence[tuple[str, str]] = ()
) -> list[dict[str, Any]]:
    """ServiceAccount, ClusterRole and ClusterRoleBinding of the operator."""
    labels = {"app.kubernetes.io/name": NAME, "app.kubernetes.io/part-of": "wlmap"}
    return [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": labels},
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": NAME, "labels": labels},
            "rules": cluster_role_rules(registry, extra_kinds),
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": NAME, "labels": labels},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": NAME,
            },
            "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}],
        },
    ]


_GENERATED = (
    "# Generated by `python -m wlmap.operator.rbac deploy/operator` (`make deploy-manifests`)\n"
    "# from the kinds the built-in definitions name; do not edit by hand.\n"
)


def render(extra_kinds: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """File name -> content of every generated file."""
    documents = manifests(extra_kinds=extra_kinds)
    return {
        RBAC_FILE: _GENERATED + yaml.safe_dump_all(documents, sort_keys=False, explicit_start=True)
    }


def main(argv: Sequence[str]) -> int:
    """Write the generated files into a folder."""
    parser = argparse.ArgumentParser(
        prog="python -m wlmap.operator.rbac",
        description="Write the operator's ServiceAccount, ClusterRole and binding.",
    )
    parser.add_argument("folder", metavar="DIR", type=Path)
    parser.add_argument(
        "--kinds",
        default="",
        metavar="Kind.group,...",
        help="kinds outside the catalog to read as well (the operator's WLMAP_KINDS)",
    )
    args = parser.parse_args(argv)
    folder: Path = args.folder
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in render(parse_kinds(str(args.kinds).split(","))).items():
        (folder / name).write_text(content, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
