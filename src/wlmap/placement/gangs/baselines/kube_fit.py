"""LeastAllocated and MostAllocated: kube-scheduler's NodeResourcesFit, blind to topology.

kube-scheduler scores every node with room for a pod and binds the pod to the best one
(``pkg/scheduler/framework/plugins/noderesources``, strategies ``LeastAllocated`` and
``MostAllocated``). For GPUs, with the pod's own request counted in:

- LeastAllocated: ``(allocatable - requested) * 100 / allocatable`` (integer division);
- MostAllocated: ``requested * 100 / allocatable``.

Pods are scored and placed one at a time, each seeing the GPUs its gang mates took. Ties
go to the lowest node index (kube-scheduler draws among ties at random). The gang is
all-or-nothing, as a coscheduling plugin makes it: if any pod finds no node, nothing is
placed.

A plain scheduler knows no topology levels. A gang that must stay inside one domain of a
level gets there the way a user would ask kube-scheduler for it: a required pod affinity
to its gang mates with ``topologyKey`` set to that level's label. The first pod goes to the
best-scoring node anywhere (restricted, so that the gang can still be placed whole, to
domains of the level that can hold it: the coscheduling plugin's pre-filter), and the
later pods must share its domain. Slices work the same way one level down: the first pod
of each slice picks the best node among slice domains with room for the slice, the rest of
the slice follows it. Preferred levels are ignored: these policies are the
topology-oblivious baseline of issue 11, item 3.
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.gangs.baselines._domain_walk import (
    IntArray,
    effective_slice,
    nodes_of,
    unit_capacity,
    units_needed,
)
from wlmap.placement.gangs.baselines._fill import Scratch
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement

__all__ = ["NodeResourcesFitPolicy", "least_allocated", "most_allocated"]


class NodeResourcesFitPolicy:
    """kube-scheduler's per-pod node scoring applied to a whole gang (module docstring)."""

    def __init__(self, most_allocated: bool) -> None:
        self.most_allocated = most_allocated
        self.name = "most-allocated" if most_allocated else "least-allocated"

    def _scores(self, scratch: Scratch, nodes: IntArray) -> IntArray:
        total = scratch.capacity.topology.gpus[nodes]
        free = scratch.free[nodes]
        g = scratch.gpus_per_pod
        safe = np.maximum(total, 1)
        if self.most_allocated:
            score: IntArray = (total - free + g) * 100 // safe
        else:
            score = (free - g) * 100 // safe
        return np.where(free >= g, score, np.iinfo(np.int64).min)

    def _best(self, scratch: Scratch, nodes: IntArray) -> int | None:
        if len(nodes) == 0:
            return None
        scores = self._scores(scratch, nodes)
        at = int(np.argmax(scores))
        if scores[at] == np.iinfo(np.int64).min:
            return None
        return int(nodes[at])

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        topology = capacity.topology
        scratch = Scratch(capacity, gang)
        candidates = np.arange(len(topology.nodes), dtype=np.int64)
        reason = "pods on the best-scoring nodes"
        if gang.required_level is not None:
            level = gang.required_level
            room = unit_capacity(capacity, gang, level) >= units_needed(gang)
            of_node = candidates if level == len(topology.levels) else topology.node_domain[level]
            first = self._best(scratch, candidates[room[of_node]])
            if first is None:
                return None
            domain = int(of_node[first])
            candidates = nodes_of(topology, level, domain)
            reason += f", kept in {topology.domain_name(level, domain)} by pod affinity"
        sliced = effective_slice(gang)
        if sliced is None:
            if not self._fill(scratch, candidates, gang.pods):
                return None
            return scratch.placement(gang, reason)
        size, slice_level = sliced
        of_slice = (
            np.arange(len(topology.nodes), dtype=np.int64)
            if slice_level == len(topology.levels)
            else topology.node_domain[slice_level]
        )
        slice_slots = capacity.pod_slots(slice_level, gang.gpus_per_pod).copy()
        for _ in range(gang.pods // size):
            open_nodes = candidates[slice_slots[of_slice[candidates]] >= size]
            first = self._best(scratch, open_nodes)
            if first is None:
                return None
            home = int(of_slice[first])
            inside = candidates[of_slice[candidates] == home]
            if not self._fill(scratch, inside, size):
                return None
            slice_slots[home] -= size
        return scratch.placement(gang, reason + ", each slice by pod affinity")

    def _fill(self, scratch: Scratch, nodes: IntArray, pods: int) -> bool:
        for _ in range(pods):
            node = self._best(scratch, nodes)
            if node is None:
                return False
            scratch.take(node, 1)
        return True


def least_allocated() -> NodeResourcesFitPolicy:
    """kube-scheduler's default spread: the emptiest node first."""
    return NodeResourcesFitPolicy(most_allocated=False)


def most_allocated() -> NodeResourcesFitPolicy:
    """kube-scheduler's bin packing: the fullest node with room first."""
    return NodeResourcesFitPolicy(most_allocated=True)
