"""Models of ``optimizationInstructions``: how pods form gangs."""

from __future__ import annotations

from wlmap.definitions._base import DefinitionModel


class PodGroupMember(DefinitionModel):
    """A component whose pods join a group, split by keys and narrowed by filters."""

    component_name: str
    group_by_key_paths: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()


class LegacyPodGroup(DefinitionModel):
    """The first (alpha) gang format: named groups of member components."""

    name: str
    members: tuple[PodGroupMember, ...]


class Topology(DefinitionModel):
    """A topology constraint: which topology, and the level pods must (or should) share."""

    topology_name: str
    required_topology_level: str | None = None
    preferred_topology_level: str | None = None


class SubGroup(DefinitionModel):
    """A component subtree that forms a sub-gang of the workload's pod group."""

    component_name: str
    topology: Topology | None = None


class PodGroupDefinition(DefinitionModel):
    """The v2 gang format: one group for the whole workload with optional subgroups."""

    name: str
    topology: Topology | None = None
    sub_groups: tuple[SubGroup, ...] = ()


class GangScheduling(DefinitionModel):
    """Gang instructions in either or both formats."""

    pod_groups: tuple[LegacyPodGroup, ...] | None = None
    pod_group: PodGroupDefinition | None = None


class OptimizationInstructions(DefinitionModel):
    """Hints for schedulers."""

    gang_scheduling: GangScheduling | None = None
