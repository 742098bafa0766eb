"""The records gangs are made of: a gang group as the view shows it, and the v2
``podGroup`` worked out once per definition."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wlmap.definitions.gang import PodGroupDefinition, Topology
from wlmap.workload._records import record


@record
class GangGroup:
    """A set of pods that must be placed together (a gang), or a subgroup of one."""

    name: str
    min_member: int
    members: tuple[str, ...]
    pods: tuple[str, ...] | None = None
    key: tuple[str, ...] | None = None
    topology: Topology | None = None
    sub_groups: tuple[GangGroup, ...] = field(default=())
    source: str = "podGroup"
    # the component instances whose pods it holds, when it holds only some instances of
    # its member components (one start stage of a podGroup split by its stages)
    holds: tuple[tuple[str, str | None], ...] | None = None
    # why the gang is a stage of its own (what its instances start after)
    starts_after: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (an entry of ``gangGroups``)."""
        return {
            "name": self.name,
            "minMember": self.min_member,
            "members": list(self.members),
            "pods": list(self.pods) if self.pods is not None else None,
            "key": list(self.key) if self.key is not None else None,
            "topology": self.topology.model_dump(exclude_none=True) if self.topology else None,
            "subGroups": [s.to_dict() for s in self.sub_groups],
            "source": self.source,
            "startsAfter": self.starts_after,
        }


@dataclass(frozen=True)
class SubGroupPlan:
    """A subgroup of the v2 ``podGroup``, worked out once per definition."""

    component: str
    topology: Topology | None
    # the pod-bearing components of its subtree, in definition order
    pod_bearing: tuple[str, ...]


@dataclass(frozen=True)
class V2Plan:
    """The v2 ``podGroup`` worked out once per definition."""

    definition: PodGroupDefinition
    subs: tuple[SubGroupPlan, ...]
    pod_bearing: tuple[str, ...]
    root: str
