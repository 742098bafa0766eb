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


class Stages(DefinitionModel):
    """Instances of a component that start only after others did (wlmap's extension).

    ``startsAfterPath`` is read from the workload object and gives one result per
    instance of ``componentName`` (aligned with its ``instanceIdPath``, as a
    ``replicasPath`` is): the instances it waits for, each an instance id or
    ``{name, status}`` (``status`` says what it waits for, e.g. ``Ready`` or
    ``Complete``). Instances that wait for the same ones start together; each such set
    becomes a gang of its own, since a gang over pods that never exist at the same time
    can never be satisfied.
    """

    component_name: str
    starts_after_path: str


class PodGroupDefinition(DefinitionModel):
    """The v2 gang format: one group for the whole workload with optional subgroups,
    split into one group per start stage when ``stages`` says the instances of a
    component start one after another."""

    name: str
    topology: Topology | None = None
    sub_groups: tuple[SubGroup, ...] = ()
    stages: Stages | None = None


class GangScheduling(DefinitionModel):
    """Gang instructions in either or both formats."""

    pod_groups: tuple[LegacyPodGroup, ...] | None = None
    pod_group: PodGroupDefinition | None = None


class OptimizationInstructions(DefinitionModel):
    """Hints for schedulers."""

    gang_scheduling: GangScheduling | None = None
