"""Least-privilege RBAC for the operator, generated from the kinds the definitions name.

The grants follow the requests the operator sends, verb by verb: it reads (get/list/watch)
every root kind of the built-in catalog and the pods beside them, patches pods (the link
annotation; an admission policy, see ``admission``, keeps those patches to that annotation),
watches the owners a pod's controller chain passes through (the operator's cache of
them) and reads the objects definitions refer to, watches DRA claims, keeps the gang
objects of the configured target only (server-side apply creates and patches them; stale
ones are deleted; ``--target``, default ``kai``, the Deployment's ``WLMAP_TARGET``), reads
the definition objects and patches their status, and reads what kopf needs (CRDs,
namespaces). Events and its leader-election Lease are written in the operator's own
namespace. What RBAC cannot say (which namespaces a selector serves, which objects are
wlmap's, which pod fields may change) the admission policies say (``admission``).

The rules come in four roles, so that the same roles serve both modes and only the
bindings differ:

- ClusterRole ``wlmap-operator``: everything inside a served namespace, granted there only
  by a RoleBinding per served namespace: with listed namespaces (``--namespaces a,b``)
  the overlay holds them; with the namespace selector (the bundle's mode) whoever labels a
  namespace binds it there too (``kubectl create rolebinding``, see docs/operator.md), as
  RBAC cannot follow a label. Nothing grants it cluster-wide: the operator's service
  account cannot list the pods of the cluster.
- ClusterRole ``wlmap-operator-workloads``: list and watch of the workload kinds, bound
  cluster-wide in the namespace selector's mode only: kopf watches those kinds across the
  cluster there (it cannot watch the namespaces a label picks), and the handlers drop the
  workloads of namespaces not served. The listed namespaces' overlay deletes the binding.
- ClusterRole ``wlmap-operator-cluster``: the cluster-scoped reads, always bound
  cluster-wide: CRDs, namespaces, the definition objects (and their status) and referenced
  cluster-scoped objects (a ClusterTrainingRuntime).
- Role ``wlmap-operator-own-namespace`` in ``wlmap-system``: the Lease and events (kopf posts
  the events of cluster-scoped objects in its own namespace).

Run ``python -m wlmap.operator.deploy DIR`` to write ``DIR/rbac.yaml`` and ``DIR/policy.yaml``;
with ``--namespaces a,b --base BASE`` it writes a kustomize overlay of BASE into DIR instead
(see ``bundle``). Definitions for kinds outside the catalog need their kinds named:
``--kinds MyJob.example.com,Other.example.org`` (the same list as ``WLMAP_KINDS``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from wlmap.catalog import builtin_registry
from wlmap.definitions.registry import Registry
from wlmap.operator.core.scope import NEVER_SERVED_KINDS, NOT_TOP_LEVEL_KINDS
from wlmap.operator.core.settings import FIELD_MANAGER, SYNC_TARGETS, Settings
from wlmap.schedulers import PROFILES
from wlmap.sources.cluster.definitions import DEFINITION_TYPES

NAMESPACE = "wlmap-system"
NAME = FIELD_MANAGER  # the ServiceAccount, and the ClusterRole of the namespaced rules
CLUSTER_ROLE = f"{NAME}-cluster"  # the cluster-scoped reads
WORKLOADS_ROLE = f"{NAME}-workloads"  # the workload kinds, as kopf watches them
OWN_NAMESPACE_ROLE = f"{NAME}-own-namespace"  # Lease and events in NAMESPACE
USERNAME = f"system:serviceaccount:{NAMESPACE}:{NAME}"
RBAC_API = "rbac.authorization.k8s.io"
LABELS = {"app.kubernetes.io/name": NAME, "app.kubernetes.io/part-of": "wlmap"}
DEFAULT_TARGET = Settings.target  # the bundle's Deployment runs with WLMAP_TARGET=kai

READ = ("get", "list", "watch")
# Server-side apply creates a missing object (authorized as create) and patches an existing
# one; stale groups, and an upstream Workload whose immutable spec changed, are deleted.
GANG = (*READ, "create", "patch", "delete")

# Owners between a pod and its workload that no definition names as a root kind: the
# operator watches them (its cache follows a pod's controller references upwards to find
# the mapped workload, and a workload's downwards to find its pods); a refused watch
# leaves those chains to GETs, and a refused GET ends the walk early.
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

    def drop(self, group: str, resource: str) -> None:
        self.verbs.pop((group, resource), None)

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


def namespaced_rules(
    registry: Registry | None = None,
    extra_kinds: Sequence[tuple[str, str]] = (),
    placement: bool = False,
    target: str = DEFAULT_TARGET,
) -> list[dict[str, Any]]:
    """The rules of ClusterRole ``wlmap-operator``: what the operator does inside a served
    namespace, for the definitions of a registry (default: the catalog), keeping the gang
    objects of ``target`` only (the operator's ``WLMAP_TARGET``); with ``placement``, the
    workloads' status too (the ``WlmapPlacement`` condition) and evictions (the pods of
    placed gangs on a faulty node).

    Raises:
        ValueError: ``target`` is not a scheduler whose objects the operator keeps.
    """
    if target not in SYNC_TARGETS:
        raise ValueError(f"target must be one of {', '.join(SYNC_TARGETS)}, not {target!r}")
    registry = builtin_registry() if registry is None else registry
    grants = _Grants()
    workloads: set[tuple[str, str]] = set(extra_kinds)
    selections: set[tuple[str, str]] = set()
    for entry in registry:
        definition = entry.definition
        structure = definition.spec.structure_definition
        workloads.update((c.kind.group, c.kind.kind) for c in definition.components() if c.kind)
        workloads.update((k.group, k.kind) for k in structure.additional_child_kinds)
        # a selection (a PodCliqueSet's PodCliques) is listed, and may be watched
        selections.update(
            (r.kind.group, r.kind.kind) for r in structure.references if r.selects_many
        )
    for group, kind in workloads:
        grants.add(group, [plural(kind)], READ)
        if placement:
            grants.add(group, [f"{plural(kind)}/status"], ["patch"])
    grants.add("", ["pods"], (*READ, "patch"))  # the pod link annotation, nothing else
    if placement:  # pods of placed gangs off a faulty node, through the budgets' check
        grants.add("", ["pods/eviction"], ["create"])
    for group, kind in sorted(selections):
        grants.add(group, [plural(kind)], READ)
    for group, kind in INTERMEDIATE_OWNERS:  # the operator's cache watches them
        grants.add(group, [plural(kind)], READ)
    for group, kind in sorted(k for k, scoped in _references(registry) if scoped):
        if not grants.readable(group, plural(kind)):
            grants.add(group, [plural(kind)], ["get"])
    grants.add("resource.k8s.io", ["resourceclaims"], ["list", "watch"])  # GPUs claimed via DRA
    if placement:  # a DRA gang's claims replaced by narrowed ones (operator.devices)
        grants.add("resource.k8s.io", ["resourceclaims"], ["create", "delete"])
        grants.add("resource.k8s.io", ["resourceclaimtemplates"], ["list"])
        grants.add("", ["pods/status"], ["patch"])
    for gang_kind in PROFILES[target].kinds:  # another scheduler's objects stay out of reach
        grants.add(gang_kind.group, [gang_kind.plural], GANG)
    grants.add("", ["events"], ["create", "patch"])  # kopf's events about served objects
    return grants.rules()


def workload_rules(
    registry: Registry | None = None, extra_kinds: Sequence[tuple[str, str]] = ()
) -> list[dict[str, Any]]:
    """The rules of ClusterRole ``wlmap-operator-workloads``: list and watch of the kinds
    the operator watches as workloads (the roots of a registry's definitions, default the
    catalog's, and ``extra_kinds``; never pods, ReplicaSets nor DaemonSets), as kopf
    watches them across the cluster under a namespace selector."""
    registry = builtin_registry() if registry is None else registry
    roots = {
        (entry.definition.root_gvk.group, entry.definition.root_gvk.kind)
        for entry in registry
        if entry.definition.root_gvk is not None
    }
    grants = _Grants()
    for group, kind in sorted(
        (roots | set(extra_kinds)) - NOT_TOP_LEVEL_KINDS - NEVER_SERVED_KINDS
    ):
        grants.add(group, [plural(kind)], ["list", "watch"])
    return grants.rules()


def retarget(rules: Sequence[dict[str, Any]], target: str) -> list[dict[str, Any]]:
    """The rules of ClusterRole ``wlmap-operator`` as generated (``rules``, for whichever
    target), keeping the gang objects of ``target`` instead.

    Raises:
        ValueError: ``target`` is not a scheduler whose objects the operator keeps.
    """
    if target not in SYNC_TARGETS:
        raise ValueError(f"target must be one of {', '.join(SYNC_TARGETS)}, not {target!r}")
    grants = _Grants()
    for rule in rules:
        for group in rule["apiGroups"]:
            grants.add(group, rule["resources"], rule["verbs"])
    for kept in SYNC_TARGETS:
        for gang_kind in PROFILES[kept].kinds:
            grants.drop(gang_kind.group, gang_kind.plural)
    for gang_kind in PROFILES[target].kinds:
        grants.add(gang_kind.group, [gang_kind.plural], GANG)
    return grants.rules()


def cluster_rules(
    registry: Registry | None = None, placement: bool = False, webhooks: bool = False
) -> list[dict[str, Any]]:
    """The rules of ClusterRole ``wlmap-operator-cluster``: the cluster-scoped reads, needed
    in both modes; with ``placement``, what planning reads (nodes and pods of the whole
    cluster, listed once and watched; faulty nodes are seen through the same watch), the
    devices and claims a DRA gang is planned over (slices watched: a device removed from
    one is a fault), and the webhook configurations kopf
    keeps (it creates them when absent and patches in its URL and certificate; it keeps a
    validating one too, empty, whenever it manages webhooks); those also with ``webhooks``
    alone (the Workload API target's pod-group webhook)."""
    registry = builtin_registry() if registry is None else registry
    grants = _Grants()
    for group, kind in sorted(k for k, scoped in _references(registry) if not scoped):
        grants.add(group, [plural(kind)], ["get"])
    for group, kind in DEFINITION_TYPES:
        grants.add(group, [plural(kind)], READ)
        grants.add(group, [f"{plural(kind)}/status"], ["patch"])
    # kopf: resources found through CRDs; namespaces observed when serving some of them
    grants.add("apiextensions.k8s.io", ["customresourcedefinitions"], READ)
    grants.add("", ["namespaces"], ["list", "watch"])
    if placement:
        grants.add("", ["nodes", "pods"], ["list", "watch"])
        # a DRA gang is planned over every device and every claim's allocation
        grants.add("resource.k8s.io", ["deviceclasses", "resourceclaims"], ["list"])
        # and devices removed from a slice are faults of the gangs holding them
        grants.add("resource.k8s.io", ["resourceslices"], ["list", "watch"])
    if placement or webhooks:
        # kopf keeps both kinds once it manages webhooks: the validating one stays empty
        configurations = ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]
        grants.add("admissionregistration.k8s.io", configurations, ["create", "patch"])
    return grants.rules()


def own_namespace_rules() -> list[dict[str, Any]]:
    """The rules of Role ``wlmap-operator-own-namespace``: the leader-election Lease, and
    the events kopf posts there about cluster-scoped objects (the definitions)."""
    grants = _Grants()
    grants.add("coordination.k8s.io", ["leases"], ["create", "get", "update"])
    grants.add("", ["events"], ["create", "patch"])
    return grants.rules()


def _references(registry: Registry) -> set[tuple[tuple[str, str], bool]]:
    """(group, Kind) of every referenced object, and whether it lives in a namespace: a
    reference without a namespace expression names a cluster-scoped object."""
    found = set()
    for entry in registry:
        for reference in entry.definition.spec.structure_definition.references:
            scoped = reference.namespace_expression is not None
            found.add(((reference.kind.group, reference.kind.kind), scoped))
    return found


def _role(kind: str, name: str, rules: list[dict[str, Any]], namespace: str | None = None) -> Any:
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    metadata["labels"] = LABELS
    return {"apiVersion": f"{RBAC_API}/v1", "kind": kind, "metadata": metadata, "rules": rules}


def binding(kind: str, role_kind: str, role: str, namespace: str | None = None) -> Any:
    """A ClusterRoleBinding or RoleBinding (in ``namespace``) of a role to the operator's
    service account; the binding is named after the role."""
    metadata: dict[str, Any] = {"name": role}
    if namespace is not None:
        metadata["namespace"] = namespace
    metadata["labels"] = LABELS
    return {
        "apiVersion": f"{RBAC_API}/v1",
        "kind": kind,
        "metadata": metadata,
        "roleRef": {"apiGroup": RBAC_API, "kind": role_kind, "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}],
    }


def namespace_bindings(namespaces: Sequence[str]) -> list[dict[str, Any]]:
    """The grant of ClusterRole ``wlmap-operator`` in served namespaces: one RoleBinding
    in each (what ``kubectl create rolebinding wlmap-operator --clusterrole
    wlmap-operator --serviceaccount wlmap-system:wlmap-operator -n NS`` creates)."""
    return [binding("RoleBinding", "ClusterRole", NAME, ns) for ns in sorted(set(namespaces))]


def manifests(
    registry: Registry | None = None,
    extra_kinds: Sequence[tuple[str, str]] = (),
    namespaces: Sequence[str] = (),
    placement: bool = False,
    target: str = DEFAULT_TARGET,
    webhooks: bool = False,
) -> list[dict[str, Any]]:
    """ServiceAccount, roles and bindings of the operator: serving the namespaces a label
    picks (each bound on its own when labelled, see the module docstring), or
    (``namespaces`` given) those namespaces only, keeping the gang objects of ``target``;
    with the placement controller's grants when ``placement``, and the webhook
    configurations' when ``webhooks`` (the pod-group webhook)."""
    service_account = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": LABELS},
    }
    served = (
        namespace_bindings(namespaces)
        if namespaces
        else [binding("ClusterRoleBinding", "ClusterRole", WORKLOADS_ROLE)]
    )
    return [
        service_account,
        _role("ClusterRole", NAME, namespaced_rules(registry, extra_kinds, placement, target)),
        _role("ClusterRole", WORKLOADS_ROLE, workload_rules(registry, extra_kinds)),
        _role("ClusterRole", CLUSTER_ROLE, cluster_rules(registry, placement, webhooks)),
        _role("Role", OWN_NAMESPACE_ROLE, own_namespace_rules(), NAMESPACE),
        *served,
        binding("ClusterRoleBinding", "ClusterRole", CLUSTER_ROLE),
        binding("RoleBinding", "Role", OWN_NAMESPACE_ROLE, NAMESPACE),
    ]
