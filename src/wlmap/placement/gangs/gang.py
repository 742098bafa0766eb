"""A gang asking for topology-aware placement, and where its pods went.

A :class:`Gang` is all-or-nothing: ``pods`` pods of ``gpus_per_pod`` whole GPUs each,
placed together or not at all. Its topology intent follows Kueue's podset annotations:
a required level the whole gang must fit inside, a preferred level it should fit inside
when it can, and an optional slice (groups of ``slice_size`` consecutive pods that must each
fit inside one domain of ``slice_level``, as a tensor-parallel group inside one NVLink
domain). Levels are indices into :attr:`Topology.levels`; the node level is
``len(levels)``.

A :class:`GangPlacement` lists (node, pods) pairs; :meth:`GangPlacement.assignment` gives
them as Kueue's ``TopologyAssignment``: the hostname level and one (hostname, pod count)
pair per node, as Kueue writes it when the topology's lowest level is the node.
"""

from __future__ import annotations

from dataclasses import dataclass

from wlmap.placement.gangs.tree import HOSTNAME_LABEL, Topology

__all__ = ["DomainCount", "Gang", "GangPlacement"]


@dataclass(frozen=True, slots=True)
class Gang:
    """What a gang asks for.

    Attributes:
        name: the gang's name, e.g. ``"default/train worker"``.
        pods: pods in the gang (its minimum members; all are placed or none).
        gpus_per_pod: whole GPUs each pod takes, >= 1.
        required_level: the level one domain of which must hold every pod; None for none.
        preferred_level: the level one domain of which should hold every pod; None for none.
        slice_size: pods per slice; 0 when the gang has no slices.
        slice_level: the level one domain of which must hold each slice (with ``slice_size``).
        priority: larger is more important; policies may use it.
        origin: where the gang came from (a workload and component), for reports.
    """

    name: str
    pods: int
    gpus_per_pod: int
    required_level: int | None = None
    preferred_level: int | None = None
    slice_size: int = 0
    slice_level: int | None = None
    priority: int = 0
    origin: str | None = None

    @property
    def gpus(self) -> int:
        """Whole GPUs the gang takes."""
        return self.pods * self.gpus_per_pod

    def problem(self, topology: Topology) -> str | None:
        """What is wrong with the request against ``topology``, or None."""
        node_level = len(topology.levels)
        if self.pods < 1:
            return f"pods must be >= 1, got {self.pods}"
        if self.gpus_per_pod < 1:
            return f"gpus_per_pod must be >= 1, got {self.gpus_per_pod}"
        for name in ("required_level", "preferred_level", "slice_level"):
            level = getattr(self, name)
            if level is not None and not 0 <= level <= node_level:
                return f"{name} must be between 0 and {node_level}, got {level}"
        if (self.slice_size > 0) != (self.slice_level is not None):
            return "slice_size and slice_level go together"
        if self.slice_size < 0 or (self.slice_size and self.pods % self.slice_size):
            return f"slice_size {self.slice_size} must divide the gang's {self.pods} pods"
        return None


@dataclass(frozen=True, slots=True)
class DomainCount:
    """Pods of a gang in one domain: the domain's label values and the count."""

    values: tuple[str, ...]
    count: int


@dataclass(frozen=True, slots=True)
class GangPlacement:
    """Where a gang's pods go.

    Attributes:
        gang: the gang placed.
        nodes: (node index, pods on it) pairs, node indices ascending, counts >= 1.
        reason: why the policy chose this, in words (the ``why this rack`` line).
    """

    gang: Gang
    nodes: tuple[tuple[int, int], ...]
    reason: str = ""

    def domain_counts(self, topology: Topology, level: int) -> dict[int, int]:
        """Pods per domain of ``level`` (per node at the node level)."""
        counts: dict[int, int] = {}
        node_level = len(topology.levels)
        for node, pods in self.nodes:
            domain = node if level == node_level else int(topology.node_domain[level][node])
            counts[domain] = counts.get(domain, 0) + pods
        return counts

    def assignment(self, topology: Topology) -> tuple[tuple[str, ...], tuple[DomainCount, ...]]:
        """Kueue's ``TopologyAssignment``: the level keys, and one entry per node.

        The placement names nodes, so the topology's lowest level is the hostname, and
        Kueue then writes only that level: ``levels: [kubernetes.io/hostname]`` and each
        node's hostname label (its name when the label is absent) with its pod count
        (``buildAssignment`` in Kueue's ``tas_flavor_snapshot.go``).
        """
        entries = tuple(
            DomainCount(
                values=(
                    topology.nodes[node].labels.get(HOSTNAME_LABEL, topology.nodes[node].name),
                ),
                count=pods,
            )
            for node, pods in self.nodes
        )
        return (HOSTNAME_LABEL,), entries

    def topology_assignment(self, topology: Topology) -> dict[str, object]:
        """:meth:`assignment` in the shape of Kueue's API object (``levels``, ``domains``)."""
        levels, entries = self.assignment(topology)
        return {
            "levels": list(levels),
            "domains": [{"values": list(e.values), "count": e.count} for e in entries],
        }
