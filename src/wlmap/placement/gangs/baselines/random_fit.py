"""Random: a uniformly random feasible placement, the floor every policy should beat.

The rule, drawn from a ``numpy`` generator seeded at construction (the same seed and the
same calls give the same placements):

1. The domain: one domain drawn uniformly among the domains of the gang's required level
   that can hold the whole gang (every pod, and every slice whole); the whole cluster when
   the gang has no required level. No domain with room: None.
2. Without slices, the pods take a uniformly random set of the domain's free pod slots (a
   node with room for three pods is three slots), so busier nodes are drawn less often.
3. With slices, each slice in turn draws one slice-level domain uniformly among those
   inside the chosen domain with room for a whole slice, then random slots inside it.

Preferred levels are ignored: Random knows nothing of locality beyond what is required.
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.gangs.baselines._domain_walk import (
    IntArray,
    effective_slice,
    nodes_of,
    subdomains,
    unit_capacity,
    units_needed,
)
from wlmap.placement.gangs.baselines._fill import Scratch
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement

__all__ = ["RandomGangPolicy"]


class RandomGangPolicy:
    """A uniformly random feasible placement (see the module docstring)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = np.random.default_rng(seed)

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        topology = capacity.topology
        scratch = Scratch(capacity, gang)
        sliced = effective_slice(gang)
        need = units_needed(gang)
        if gang.required_level is None:
            level, domain = -1, -1
            nodes = np.arange(len(topology.nodes), dtype=np.int64)
            if int(unit_capacity(capacity, gang, 0).sum()) < need:
                return None
        else:
            level = gang.required_level
            feasible = np.flatnonzero(unit_capacity(capacity, gang, level) >= need)
            if len(feasible) == 0:
                return None
            domain = int(feasible[self._rng.integers(len(feasible))])
            nodes = nodes_of(topology, level, domain)
        if sliced is None:
            self._draw(scratch, nodes, gang.pods)
        else:
            size, slice_level = sliced
            inner = _slice_domains(capacity, level, domain, slice_level)
            slots = capacity.pod_slots(slice_level, gang.gpus_per_pod)[inner]
            for _ in range(gang.pods // size):
                where = np.flatnonzero(slots >= size)
                pick = int(where[self._rng.integers(len(where))])
                self._draw(scratch, nodes_of(topology, slice_level, int(inner[pick])), size)
                slots[pick] -= size
        where_text = "the cluster" if domain < 0 else topology.domain_name(level, domain)
        return scratch.placement(gang, f"random feasible placement in {where_text}")

    def _draw(self, scratch: Scratch, nodes: IntArray, pods: int) -> None:
        slots = np.repeat(nodes, scratch.slots(nodes))
        chosen = self._rng.choice(slots, size=pods, replace=False)
        picked, counts = np.unique(chosen, return_counts=True)
        for node, count in zip(picked.tolist(), counts.tolist(), strict=True):
            scratch.take(int(node), int(count))


def _slice_domains(capacity: FreeCapacity, level: int, domain: int, slice_level: int) -> IntArray:
    topology = capacity.topology
    if level < 0:
        count = (
            len(topology.nodes)
            if slice_level == len(topology.levels)
            else topology.domain_count(slice_level)
        )
        return np.arange(count, dtype=np.int64)
    return subdomains(topology, level, domain, slice_level)
