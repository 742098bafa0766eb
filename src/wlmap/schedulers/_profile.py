"""What wlmap knows about one gang scheduler, in one record: a profile.

A profile holds the scheduler's gang object kinds (what RBAC grants, what the operator's
gang cache watches, what drift and deletion list), how a pod names its gang, the
annotations and labels the scheduler reads, the builder that turns a workload's view
into the scheduler's objects, and the renderer ``wlmap plan --render`` uses, when the
scheduler has one. The registry (:data:`wlmap.schedulers.PROFILES`) lists the profiles;
the CLI's choices, the operator's targets and the generated RBAC loop over it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from wlmap.workload import WorkloadView

if TYPE_CHECKING:
    from wlmap.definitions import Definition
    from wlmap.placement.gangs import Topology
    from wlmap.placement.plan import GangPlan

__all__ = ["Builder", "GangKind", "PlanInput", "PlanRender", "PodLink", "Profile"]

Builder = Callable[[WorkloadView, Mapping[str, Any]], list[dict[str, Any]]]
"""Builds a scheduler's objects for one workload: (view, workload object) -> objects."""


@dataclass(frozen=True)
class GangKind:
    """One kind of gang object a scheduler reads.

    Attributes:
        group: API group.
        version: API version within the group.
        plural: the resource name (``kubectl get PLURAL``, RBAC rules).
        kind: the object kind.
    """

    group: str
    version: str
    plural: str
    kind: str

    @property
    def api_version(self) -> str:
        """``group/version``, as objects spell it."""
        return f"{self.group}/{self.version}"


@dataclass(frozen=True)
class PodLink:
    """How a pod names the gang object it joins.

    Attributes:
        place: ``annotations`` or ``labels`` of the pod's metadata (the operator writes
            the link there), or ``field``: a pod field the API server will not let
            change after creation, so only admission can set it (the operator leaves it).
        name: the annotation or label key, or the field's path.
    """

    place: Literal["annotations", "labels", "field"]
    name: str

    @property
    def writable(self) -> bool:
        """Whether the operator can write the link onto a running pod."""
        return self.place != "field"

    def shown(self, pod: Mapping[str, Any]) -> str | None:
        """The group the pod names, or None when it names none."""
        if not self.writable:
            return None
        found = ((pod.get("metadata") or {}).get(self.place) or {}).get(self.name)
        return None if found is None else str(found)

    def patch(self, group: str) -> dict[str, Any]:
        """The metadata part of a merge patch that links a pod to ``group``."""
        assert self.writable, f"{self.name} cannot be patched onto a pod"
        return {self.place: {self.name: group}}


@dataclass(frozen=True)
class PlanInput:
    """What a plan renderer gets for one planned workload."""

    definition: Definition
    obj: Mapping[str, Any]
    view: WorkloadView
    plans: Sequence[GangPlan]
    topology: Topology
    workload: str  # ``Kind namespace/name``, how a patch names its workload


@dataclass(frozen=True)
class PlanRender:
    """How ``wlmap plan --render NAME`` prints a decision.

    Attributes:
        name: the ``--render`` choice.
        render: one planned workload's items.
        as_list: the items form a ``v1`` List of objects to apply (else the cluster's
            name and the items, patches naming their workload).
    """

    name: str
    render: Callable[[PlanInput], list[dict[str, Any]]]
    as_list: bool = False


@dataclass(frozen=True)
class Profile:
    """One gang scheduler.

    Attributes:
        name: the target's name (``wlmap podgroups --target``, the operator's target).
        build: the scheduler's objects for one workload.
        kinds: the standalone gang objects the builder makes, which the operator keeps;
            none when they only describe the workload to the scheduler (Kueue's PodSets).
        link: how a pod joins its gang, or None when it need not name it.
        annotations: the annotations the scheduler reads (on pods or workloads).
        labels: the labels the scheduler reads.
        render: the ``plan --render`` form, when the scheduler has one.
    """

    name: str
    build: Builder
    kinds: tuple[GangKind, ...] = ()
    link: PodLink | None = None
    annotations: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    render: PlanRender | None = None

    @property
    def kept(self) -> bool:
        """Whether the operator writes and keeps this scheduler's objects."""
        return bool(self.kinds)
