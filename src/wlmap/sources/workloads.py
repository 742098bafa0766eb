"""From objects read together to the views of the workloads among them.

One use case serves every consumer: the CLI reading files, dumps or a live snapshot, and
the operator reading one workload's snapshot. Each object a definition covers is
interpreted with what the input holds beside it: its pods (through owner references), DRA
claims, and the objects its definition refers to (a TrainJob's runtime, a PodCliqueSet's
PodCliques). Objects owned by another mapped workload are marked as not top-level; objects
of a kind some definition refers to are read through the workload, not reported uncovered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.registry import Entry, Registry
from wlmap.sources.entries import prepare_entry
from wlmap.sources.inventory import Inventory, controller_reference
from wlmap.sources.manifests import Manifest
from wlmap.workload import ReferenceRequest, WorkloadView, interpret, reference_requests

# Kinds that never carry a workload: skipped quietly instead of reported as uncovered.
NOT_WORKLOADS = frozenset(
    {
        "ConfigMap",
        "Secret",
        "Service",
        "ServiceAccount",
        "Namespace",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "Ingress",
        "NetworkPolicy",
        "PriorityClass",
        "StorageClass",
        "CustomResourceDefinition",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "DeviceClass",
        "LimitRange",
        "ResourceQuota",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "Endpoints",
        "EndpointSlice",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "Event",
        "Karta",
        "WorkloadMap",
        "Topology",
        "Queue",
        "PodGroup",
        "ComputeDomain",
        "VolumeSnapshot",
        "ScaledObject",
        "ServiceMonitor",
    }
)


@dataclass(frozen=True)
class Found:
    """A workload read from the input, with its definition and view."""

    manifest: Manifest
    entry: Entry
    view: WorkloadView
    top_level: bool

    @property
    def origin(self) -> str:
        """Where its definition came from (``built-in``, a file, a cluster object)."""
        return self.entry.origin


class WorkloadReader:
    """Interprets the workloads of one input (a file set, a dump, a cluster snapshot).

    Args:
        registry: the definitions in use.
        manifests: every object read together.
        pods_listed: the input holds every pod in scope, so a workload without pods has
            none running (rather than pods unknown).
    """

    def __init__(
        self, registry: Registry, manifests: list[Manifest], *, pods_listed: bool = False
    ) -> None:
        self.registry = registry
        self.inventory = Inventory(manifests, pods_listed=pods_listed)
        self._referenced_kinds: set[tuple[str, str]] | None = None

    def entry(self, obj: Mapping[str, Any]) -> Entry | None:
        """The definition covering an object, if any."""
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return None
        return self.registry.find(api_version, kind)

    def view(
        self, entry: Entry, obj: Mapping[str, Any], *, unknown_without_pods: bool = False
    ) -> WorkloadView:
        """The view of one covered object with its pods, claims and referenced objects.

        Args:
            unknown_without_pods: treat a workload with no pods in the input as one whose
                pods are unknown (gangs keyed by pod labels then fall back to the spec),
                as a controller does before the pods are created.
        """
        pods = self.inventory.pods_of(obj)
        return interpret(
            prepare_entry(entry),
            obj,
            pods=(pods or None) if unknown_without_pods else pods,
            claims=self.inventory.claims or None,
            references=self._references(entry, obj),
        )

    def read(
        self, manifests: Iterable[Manifest] | None = None
    ) -> tuple[list[Found], list[Manifest]]:
        """Every workload in the input (or in ``manifests``, a part of it, possibly wrapped
        in a progress display), in input order, and the objects no definition covers."""
        found: list[Found] = []
        uncovered: list[Manifest] = []
        for manifest in self.inventory.manifests if manifests is None else manifests:
            obj = manifest.obj
            entry = self.entry(obj)
            if entry is None:
                if self.uncovers(obj):
                    uncovered.append(manifest)
                continue
            view = self.view(entry, obj)
            found.append(Found(manifest, entry, view, self.is_top_level(obj)))
        return found, uncovered

    def uncovers(self, obj: Mapping[str, Any]) -> bool:
        """Whether ``obj`` is left uncovered: no definition maps its kind, it is of a kind
        that carries workloads, and no definition reads objects of its kind by reference."""
        return (
            self.entry(obj) is None
            and obj.get("kind") not in NOT_WORKLOADS
            and not self._is_referenced(obj)
        )

    def _is_referenced(self, obj: Mapping[str, Any]) -> bool:
        """A definition refers to objects of this kind (read through the workload)."""
        if self._referenced_kinds is None:
            self._referenced_kinds = {
                (reference.kind.group, reference.kind.kind)
                for entry in self.registry
                for reference in entry.definition.spec.structure_definition.references
            }
        group = str(obj.get("apiVersion", "")).rpartition("/")[0]
        return (group, str(obj.get("kind"))) in self._referenced_kinds

    def is_top_level(self, obj: Mapping[str, Any]) -> bool:
        """No owner in the object's chain is of a mapped kind."""
        return self.inventory.is_top_level(obj, lambda owner: self.entry(owner) is not None)

    def _references(self, entry: Entry, obj: Mapping[str, Any]) -> dict[str, Any] | None:
        """The objects the definition refers to that the input itself holds."""
        if not entry.definition.spec.structure_definition.references:
            return None
        found: dict[str, Any] = {}
        for request in reference_requests(prepare_entry(entry), obj):
            kind = request.kind
            if request.many and not request.applies:
                found[request.reference] = []
            elif request.many:
                owner = request.owner.uid if request.owner is not None else None
                candidates = self.inventory.of_kind(
                    kind.group, kind.kind, request.namespace, controller=owner
                )
                found[request.reference] = [o for o in candidates if selected(request, o)]
            elif request.name is not None:
                match = self.inventory.find(kind.group, kind.kind, request.name, request.namespace)
                if match is not None:
                    found[request.reference] = match
        return found


def selected(request: ReferenceRequest, obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` (of the requested kind and namespace) belongs to a selection: it has
    every requested label and, when asked, the workload as its controller owner (by uid;
    by kind and name when the workload has no uid, as in hand-written files)."""
    metadata = obj.get("metadata") or {}
    labels = metadata.get("labels") or {}
    if any(labels.get(key) != value for key, value in (request.labels or {}).items()):
        return False
    owner = request.owner
    if owner is None:
        return True
    controller = controller_reference(obj)
    if controller is None:
        return False
    if owner.uid is not None:
        return bool(controller.get("uid") == owner.uid)
    return (
        controller.get("kind") == owner.kind
        and controller.get("name") == owner.name
        and str(controller.get("apiVersion", "")).rpartition("/")[0]
        == str(owner.api_version or "").rpartition("/")[0]
    )
