"""Walking a topology downwards: children of each domain, ancestors of each domain.

:class:`~wlmap.placement.gangs.tree.Topology` stores each domain's parent; gang packing
walks from a domain to its children, and aggregates counts of a finer level into a coarser
one. Both are built once per topology and reused for every decision.

Capacities here count *pods* of one gang, with slices kept whole: at levels at or above the
slice level a domain's room is ``slice_size`` times the whole slices it can take, so any
split of the gang along those levels keeps every slice inside one slice-level domain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang
from wlmap.placement.gangs.tree import Topology

__all__ = ["DomainIndex", "GangRoom", "gang_room"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class DomainIndex:
    """Children and ancestors of every domain of a topology.

    Attributes:
        topology: the topology indexed.
        children: per level, each domain's children at the next finer level (node indices
            below the finest level), ascending. Index ``-1`` is the root: level-0 domains.
    """

    topology: Topology
    children: dict[int, tuple[IntArray, ...]]

    @classmethod
    def build(cls, topology: Topology) -> DomainIndex:
        """Index ``topology``."""
        finest = len(topology.levels) - 1
        children: dict[int, tuple[IntArray, ...]] = {
            -1: (np.arange(topology.domain_count(0), dtype=np.int64),),
            finest: topology.members[finest],
        }
        for level in range(finest):
            up = topology.parent[level + 1]
            order = np.argsort(up, kind="stable")
            bounds = np.searchsorted(up[order], np.arange(topology.domain_count(level) + 1))
            children[level] = tuple(
                order[bounds[i] : bounds[i + 1]] for i in range(topology.domain_count(level))
            )
        return cls(topology, children)

    def ancestor(self, fine: int, coarse: int) -> IntArray:
        """For each domain of level ``fine``, its ancestor at level ``coarse`` (<= fine)."""
        topology = self.topology
        if fine == len(topology.levels):
            return topology.node_domain[coarse]
        out = np.arange(topology.domain_count(fine), dtype=np.int64)
        for level in range(fine, coarse, -1):
            out = topology.parent[level][out]
        return out


@dataclass(frozen=True, eq=False)
class GangRoom:
    """How many pods of one gang each domain can take, slices kept whole.

    Attributes:
        capacity: the free capacity read.
        per_pod: GPUs per pod.
        unit: pods per slice (1 without slices).
        slice_level: the slice level (the node level without slices).
        levels: per domain level, pods each domain can take.
    """

    capacity: FreeCapacity
    per_pod: int
    unit: int
    slice_level: int
    levels: tuple[IntArray, ...]

    def nodes(self, nodes: IntArray) -> IntArray:
        """Pods each of ``nodes`` can take (a multiple of the slice size at the slice level)."""
        free = self.capacity.node_free[nodes]
        if self.slice_level == len(self.capacity.topology.levels):
            return (free // (self.per_pod * self.unit)) * self.unit
        return free // self.per_pod

    def free(self, level: int, domains: IntArray) -> IntArray:
        """Free GPUs of each domain of ``level``; ``level`` may be the node level."""
        capacity = self.capacity
        if level == len(self.levels):
            return capacity.node_free[domains].astype(np.int64)
        return capacity.domain_free[level][domains].astype(np.int64)

    def of(self, level: int, domains: IntArray) -> IntArray:
        """Pods each domain of ``level`` can take; ``level`` may be the node level."""
        if level == len(self.levels):
            return self.nodes(domains)
        return self.levels[level][domains]


def gang_room(index: DomainIndex, capacity: FreeCapacity, gang: Gang) -> GangRoom:
    """Pods of ``gang`` every domain can take, from the per-domain histograms only."""
    node_level = len(index.topology.levels)
    unit = gang.slice_size or 1
    slice_level = gang.slice_level if gang.slice_level is not None else node_level
    levels: list[IntArray] = []
    slices_at: IntArray | None = None
    if slice_level < node_level:
        slices_at = capacity.pod_slots(slice_level, gang.gpus_per_pod) // unit
    for level in range(node_level):
        if slice_level == node_level:
            room = capacity.pod_slots(level, gang.gpus_per_pod * unit) * unit
        elif level > slice_level:
            room = capacity.pod_slots(level, gang.gpus_per_pod)
        else:
            assert slices_at is not None
            ancestors = index.ancestor(slice_level, level)
            count = index.topology.domain_count(level)
            room = np.bincount(ancestors, weights=slices_at, minlength=count).astype(np.int64)
            room *= unit
        levels.append(room)
    return GangRoom(capacity, gang.gpus_per_pod, unit, slice_level, tuple(levels))
