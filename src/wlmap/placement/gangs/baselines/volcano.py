"""Volcano's network-topology-aware scheduling: the lowest tier that fits, bin-packed.

Follows volcano-sh/volcano ``docs/design/Network Topology Aware Scheduling.md``,
``docs/user-guide/how_to_use_network_topology_aware_scheduling.md`` and the
``network-topology-aware`` plugin (``pkg/scheduler/plugins/network-topology-aware/
network_topology_aware.go``). Each domain is a HyperNode; the finest level is tier 1 and
each coarser level one tier up.

1. Hard mode (a required level): ``highestTierAllowed`` is the required level's tier. The
   tiers are tried from the lowest up (``hyperNodeGradientFn``), and the first tier with a
   HyperNode that holds every pod (and every slice whole) wins. Among that tier's
   HyperNodes that hold the gang, the one with the highest bin-packing score
   ``(used + request) / allocatable`` on GPUs wins (``getSubJobHyperNodeBinPackingScore``),
   ties to the lowest domain index (Volcano breaks them by the job's tasks already there,
   none for a new gang, then map order).
2. Soft mode (only a preferred level, or none): the same walk with no bound; a gang no
   single HyperNode holds is placed over the whole cluster.
3. Nodes, one pod at a time, by HyperNode bin-packing (``batchNodeOrderFnForNormalPods``):
   a node scores the mean over the tiers below the chosen HyperNode (all tiers on the whole
   cluster) of its HyperNode's ``(used + request) / allocatable`` after the pod, weighted
   by ``fading ** (tier - 1)`` (fading 0.8 by default); ties go to the fuller node, then the
   lowest index.

Slices are Volcano sub-groups with the slice level's tier required: each slice in turn goes
to the slice-level HyperNode with the highest bin-packing score among those with room, then
node by node as above.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs.baselines._domain_walk import (
    IntArray,
    nodes_of,
    slices_under,
    unit_capacity,
    units_needed,
)
from wlmap.placement.gangs.baselines._fill import Scratch, slice_domains, totals
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement

__all__ = ["VolcanoPolicy"]

FloatArray = npt.NDArray[np.float64]


class VolcanoPolicy:
    """Lowest feasible tier, then HyperNode bin-packing (see the module docstring).

    Args:
        fading: the weight of tier ``t`` is ``fading ** (t - 1)``; Volcano's default is 0.8.
    """

    name = "volcano"

    def __init__(self, fading: float = 0.8) -> None:
        self.fading = fading

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        topology = capacity.topology
        node_level = len(topology.levels)
        need = units_needed(gang)
        required = gang.required_level
        top = 0 if required is None else required
        scratch = Scratch(capacity, gang)
        level, domain = -1, -1
        for tier_level in range(max(node_level - 1, top), top - 1, -1):
            fits = np.flatnonzero(unit_capacity(capacity, gang, tier_level) >= need)
            if len(fits):
                level, domain = tier_level, _best_packed(scratch, tier_level, fits, gang.gpus)
                break
        if level < 0 and (
            required is not None or int(unit_capacity(capacity, gang, 0).sum()) < need
        ):
            return None
        below = node_level if level < 0 else level
        sliced = slices_under(gang, level)
        if sliced is None:
            nodes = (
                np.arange(len(topology.nodes), dtype=np.int64)
                if level < 0
                else nodes_of(topology, level, domain)
            )
            if not self._pods(scratch, nodes, gang.pods, below):
                return None
        else:
            size, slice_level = sliced
            inner = slice_domains(scratch, level, domain, slice_level)
            for _ in range(gang.pods // size):
                room = inner[scratch.domain_slots(slice_level, inner) >= size]
                if len(room) == 0:
                    return None
                home = _best_packed(scratch, slice_level, room, size * gang.gpus_per_pod)
                inside = nodes_of(topology, slice_level, home)
                if not self._pods(scratch, inside, size, below):
                    return None
        where = "the cluster" if level < 0 else topology.domain_name(level, domain)
        tier = "none" if level < 0 else str(node_level - level)
        return scratch.placement(gang, f"lowest feasible tier ({tier}): {where}")

    def _pods(self, scratch: Scratch, nodes: IntArray, pods: int, below: int) -> bool:
        """Place ``pods`` pods one at a time on the best-scoring node of ``nodes``."""
        for _ in range(pods):
            node = self._next_node(scratch, nodes, below)
            if node < 0:
                return False
            scratch.take(node, 1)
        return True

    def _next_node(self, scratch: Scratch, nodes: IntArray, below: int) -> int:
        """The best node with room for one more pod, or -1."""
        topology = scratch.capacity.topology
        node_level = len(topology.levels)
        room = nodes[scratch.slots(nodes) > 0]
        if len(room) == 0:
            return -1
        request = scratch.gpus_per_pod
        score = np.zeros(len(room), dtype=np.float64)
        weight = 0.0
        for level in range(below, node_level):
            w = self.fading ** (node_level - level - 1)
            score += w * _packing(scratch, level, topology.node_domain[level][room], request)
            weight += w
        if weight > 0:
            score /= weight
        own = _packing(scratch, node_level, room, request)
        return int(room[np.lexsort((room, -own, -score))[0]])


def _packing(scratch: Scratch, level: int, domains: IntArray, request: int) -> FloatArray:
    """``(used + request) / allocatable`` of ``domains`` on the scratch copy; 0 when over."""
    total, free = totals(scratch, level)
    total, free = total[domains], free[domains]
    after = total - free + request
    result: FloatArray = np.where(after <= total, after / np.maximum(total, 1), 0.0)
    return result


def _best_packed(scratch: Scratch, level: int, domains: IntArray, request: int) -> int:
    """The domain of ``domains`` with the highest bin-packing score for ``request`` GPUs."""
    score = _packing(scratch, level, domains, request)
    return int(domains[np.lexsort((domains, -score))[0]])
