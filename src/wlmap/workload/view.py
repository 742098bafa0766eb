"""The workload view: one model of a workload that every renderer and consumer reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from wlmap.quantity import quantity_to_number
from wlmap.workload._records import lazy, record
from wlmap.workload.gangs import GangGroup
from wlmap.workload.pods import PodPlacement
from wlmap.workload.resources import PodResources
from wlmap.workload.status import StatusReport
from wlmap.workload.suspend import SuspendState


@record
class ComponentView:
    """One component instance: its place in the tree, scale, pods and resources."""

    name: str
    instance: str | None
    parent: str | None
    kind: str | None
    replicas: int | None
    min_replicas: int | None
    max_replicas: int | None
    pods: int
    min_pods: int
    template: dict[str, Any] | None
    per_pod: PodResources | None
    total: PodResources | None
    pods_observed: int | None = None
    pods_ready: int | None = None
    absent: bool = False  # an optional role the object does not have (no pods, no count)

    def to_dict(self) -> dict[str, Any]:
        """An entry of ``components`` in the JSON contract."""
        per_pod = self.per_pod.to_dict() if self.per_pod else None
        total = self.total.to_dict() if self.total else None
        return {
            "name": self.name,
            "instance": self.instance,
            "parent": self.parent,
            "kind": self.kind,
            "replicas": self.replicas,
            "minReplicas": self.min_replicas,
            "maxReplicas": self.max_replicas,
            "pods": self.pods,
            "minPods": self.min_pods,
            "hasPodTemplate": self.template is not None,
            "resources": {
                "perPod": per_pod["requests"] if per_pod else {},
                "total": total["requests"] if total else {},
            },
            "gpus": total["totalGpus"] if total else 0,
            "gpusPerPod": per_pod["totalGpus"] if per_pod else 0,
            "mig": total["mig"] if total else {},
            "unresolvedClaims": per_pod["unresolvedClaims"] if per_pod else [],
            "podsObserved": self.pods_observed,
            "podsReady": self.pods_ready,
        }


@record(slots=False)
class WorkloadView:
    """Everything wlmap knows about one workload object under its definition."""

    api_version: str | None
    kind: str | None
    name: str | None
    namespace: str | None
    definition: str
    phases: tuple[str, ...]
    components: tuple[ComponentView, ...]
    totals: PodResources
    total_pods: int
    gangs_reader: Callable[[], tuple[GangGroup, ...]]
    explanation: StatusReport
    suspend_reader: Callable[[], SuspendState]
    pods: tuple[PodPlacement, ...] | None
    components_without_pods: tuple[tuple[str, str | None], ...]
    missing_references: tuple[str, ...]
    warnings_reader: Callable[[], tuple[str, ...]]
    gang_issues_reader: Callable[[], tuple[str, ...]] = tuple

    @lazy
    def gang_groups(self) -> tuple[GangGroup, ...]:
        """The gangs, worked out on first use (listing workloads does not need them)."""
        return self.gangs_reader()

    @lazy
    def warnings(self) -> tuple[str, ...]:
        """What could not be read; includes what working out the gangs met."""
        _ = self.gang_groups
        return self.warnings_reader()

    @lazy
    def gang_issues(self) -> tuple[str, ...]:
        """The errors that make the gangs unreliable: anything that failed while reading
        components, their counts and instances, their pods or the gang instructions (not
        status, suspend or resources). A gang built despite them may have the wrong minimum.
        """
        _ = self.gang_groups
        return self.gang_issues_reader()

    @lazy
    def suspend(self) -> SuspendState:
        """Whether the kind supports native suspend and whether the object is suspended.

        Read on first use: most consumers never ask.
        """
        return self.suspend_reader()

    def totals_dict(self) -> dict[str, Any]:
        """The ``totals`` object of the JSON contract."""
        totals = self.totals
        requests = {k: quantity_to_number(k, v) for k, v in totals.requests.items()}
        return {
            "pods": self.total_pods,
            "gpus": quantity_to_number("gpus", totals.total_gpus),
            "cpu": requests.get("cpu", 0),
            "memory": requests.get("memory", 0),
            "mig": dict(totals.mig),
            "resources": requests,
        }

    def identity_dict(self) -> dict[str, Any]:
        """The identity part of the JSON contract: object, definition and phases."""
        return identity(self)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract (see docs/json-output.md)."""
        unclaimed = [p.to_dict() for p in self.pods or () if p.component is None]
        return {
            **self.identity_dict(),
            "components": [c.to_dict() for c in self.components],
            "totals": self.totals_dict(),
            "gangGroups": [g.to_dict() for g in self.gang_groups],
            "explanation": self.explanation.to_dict(),
            "suspend": self.suspend.to_dict(),
            "pods": [p.to_dict() for p in self.pods] if self.pods is not None else None,
            "unclaimedPods": unclaimed,
            "componentsWithoutPods": [
                {"component": c, "instance": i} for c, i in self.components_without_pods
            ],
            "missingReferences": list(self.missing_references),
            "warnings": list(self.warnings),
        }


class Identified(Protocol):
    """What names a workload in JSON output: a view, or a listing row made from one."""

    @property
    def api_version(self) -> str | None: ...
    @property
    def kind(self) -> str | None: ...
    @property
    def name(self) -> str | None: ...
    @property
    def namespace(self) -> str | None: ...
    @property
    def definition(self) -> str: ...
    @property
    def phases(self) -> tuple[str, ...]: ...


def identity(item: Identified) -> dict[str, Any]:
    """The identity fields of the JSON contract."""
    return {
        "apiVersion": item.api_version,
        "kind": item.kind,
        "name": item.name,
        "namespace": item.namespace,
        "definition": item.definition,
        "phases": list(item.phases),
    }


def object_names(obj: Mapping[str, Any]) -> tuple[str | None, str | None, str | None, str | None]:
    """A workload object's apiVersion, kind, name and namespace, each None unless a string
    (the first four fields of its view)."""
    metadata = obj.get("metadata")
    if type(metadata) is not dict and not isinstance(metadata, Mapping):
        metadata = {}
    found = (
        obj.get("apiVersion"),
        obj.get("kind"),
        metadata.get("name"),
        metadata.get("namespace"),
    )
    api_version, kind, name, namespace = (v if isinstance(v, str) else None for v in found)
    return api_version, kind, name, namespace
