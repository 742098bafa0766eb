"""What every command shares: the merged definitions and the workloads found in the input."""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from wlmap.catalog import BUILTIN, builtin_registry
from wlmap.cli._output import Output
from wlmap.definitions import load_definitions
from wlmap.definitions.registry import Entry, Registry
from wlmap.errors import ManifestError
from wlmap.sources import Inventory, read_manifests
from wlmap.sources.manifests import Manifest
from wlmap.workload import WorkloadView, interpret, prepare, reference_requests

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
        """Where its definition came from."""
        return "built-in" if self.entry.origin == BUILTIN else self.entry.origin


@dataclass
class Session:
    """Definitions from the catalog and ``--definitions``, later sources winning per kind."""

    definition_sources: Sequence[str] = ()
    output: Output = field(default_factory=Output)

    @cached_property
    def registry(self) -> Registry:
        registry = builtin_registry()
        for source in self.definition_sources:
            registry.extend(load_definitions(source), source)
        for collision in registry.collisions:
            self.output.warn(collision)
        return registry

    def read(self, sources: Sequence[str]) -> tuple[list[Found], list[Manifest]]:
        """Every workload in the inputs (in input order) and the uncovered objects."""
        errors: list[ManifestError] = []
        manifests = read_manifests(sources, errors)
        for error in errors:
            self.output.warn(str(error))
        if errors and not manifests:
            raise errors[0]
        # The input and the views live as long as the command and hold no cycles worth
        # collecting: pause the cyclic collector, which would otherwise walk the growing
        # heap again and again (a 10,000-object dump spends 40% of its time there).
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._interpret_all(manifests)
        finally:
            if collecting:
                gc.enable()

    def _interpret_all(self, manifests: list[Manifest]) -> tuple[list[Found], list[Manifest]]:
        inventory = Inventory(manifests)
        registry = self.registry

        def covered(obj: Mapping[str, Any]) -> bool:
            return _entry(registry, obj) is not None

        found, uncovered = [], []
        for manifest in self.output.progress(manifests, len(manifests), "reading"):
            obj = manifest.obj
            entry = _entry(registry, obj)
            if entry is None:
                if obj.get("kind") not in NOT_WORKLOADS:
                    uncovered.append(manifest)
                continue
            view = interpret(
                entry.definition,
                obj,
                pods=inventory.pods_of(obj),
                claims=inventory.claims or None,
                references=_references(entry, obj, inventory),
            )
            found.append(Found(manifest, entry, view, inventory.is_top_level(obj, covered)))
        return found, uncovered


def _references(
    entry: Entry, obj: Mapping[str, Any], inventory: Inventory
) -> dict[str, Any] | None:
    """The objects the definition refers to that the input itself holds."""
    if not entry.definition.spec.structure_definition.references:
        return None
    found = {}
    for request in reference_requests(prepare(entry.definition), obj):
        if request.name is not None:
            match = inventory.find(
                request.kind.group, request.kind.kind, request.name, request.namespace
            )
            if match is not None:
                found[request.reference] = match
    return found


def _entry(registry: Registry, obj: Mapping[str, Any]) -> Entry | None:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    return registry.find(api_version, kind)
