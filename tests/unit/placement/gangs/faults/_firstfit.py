"""A simple topology-aware first-fit: the placement the hand-worked fault tests reason with.

The recovery simulator takes any registered :class:`GangPolicy`; the tests use this one
because its choices can be worked out by hand in a few lines. The rule:

1. Levels to try: from the gang's preferred level (else its required level, else the
   finest level) up to its required level (else the coarsest level); with no required
   level, the whole cluster as a last resort.
2. At each level, the first domain in index order whose pod slots
   (:meth:`FreeCapacity.pod_slots`) hold the whole gang, or, for a sliced gang, whose
   slice-level sub-domains hold enough whole slices.
3. Inside it, nodes in index order, each filled with as many pods as fit (a sliced gang
   fills one slice-level sub-domain after another with whole slices).

It is deliberately plain: no scoring, no tight fit, no spread.
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.gangs import FreeCapacity, Gang, GangPlacement, Topology

__all__ = ["TopologyFirstFit"]


def _fill(
    capacity: FreeCapacity, nodes: np.ndarray, gang: Gang, pods: int
) -> list[tuple[int, int]]:
    slots = capacity.node_free[nodes] // gang.gpus_per_pod
    taken: list[tuple[int, int]] = []
    for node, room in zip(nodes.tolist(), slots.tolist(), strict=True):
        if pods == 0:
            break
        if room > 0:
            count = min(room, pods)
            taken.append((int(node), int(count)))
            pods -= count
    return taken


def _members(topology: Topology, level: int, domain: int) -> np.ndarray:
    if level < 0:
        return np.arange(len(topology.nodes), dtype=np.int64)
    if level == len(topology.levels):
        return np.array([domain], dtype=np.int64)
    return topology.members[level][domain]


def _sliced(capacity: FreeCapacity, gang: Gang, level: int, domain: int) -> list[tuple[int, int]]:
    topology = capacity.topology
    assert gang.slice_level is not None
    inner = gang.slice_level
    slots = capacity.pod_slots(inner, gang.gpus_per_pod)
    needed = gang.pods // gang.slice_size
    taken: list[tuple[int, int]] = []
    node_level = len(topology.levels)
    if inner == node_level:
        subdomains = _members(topology, level, domain).tolist()
    else:
        firsts = [int(m[0]) for m in topology.members[inner]]
        above = topology.node_domain[level][firsts] if level >= 0 else np.zeros(len(firsts))
        subdomains = np.flatnonzero(above == domain).tolist()
    for sub in subdomains:
        if needed == 0:
            break
        whole = int(slots[sub]) // gang.slice_size
        if whole <= 0:
            continue
        use = min(whole, needed)
        needed -= use
        nodes = np.array([sub]) if inner == node_level else topology.members[inner][sub]
        taken.extend(_fill(capacity, nodes, gang, use * gang.slice_size))
    return taken if needed == 0 else []


class TopologyFirstFit:
    """First domain that fits, from the preferred level up; nodes in index order."""

    name = "topology-first-fit"

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        """Where each pod of ``gang`` goes, or None when it does not fit whole."""
        topology = capacity.topology
        finest = len(topology.levels) - 1
        low = gang.preferred_level if gang.preferred_level is not None else gang.required_level
        start = min(finest if low is None else low, len(topology.levels))
        stop = gang.required_level if gang.required_level is not None else -1
        for level in range(start, stop - 1, -1):
            for domain in self._candidates(capacity, gang, level):
                if gang.slice_size:
                    taken = _sliced(capacity, gang, level, domain)
                else:
                    taken = _fill(capacity, _members(topology, level, domain), gang, gang.pods)
                if sum(p for _, p in taken) == gang.pods:
                    where = "cluster" if level < 0 else topology.domain_name(level, domain)
                    return GangPlacement(gang, tuple(sorted(taken)), f"first fit in {where}")
        return None

    @staticmethod
    def _candidates(capacity: FreeCapacity, gang: Gang, level: int) -> list[int]:
        if level < 0:
            free = int(capacity.node_free.sum()) // gang.gpus_per_pod
            return [0] if free >= gang.pods else []
        slots = capacity.pod_slots(level, gang.gpus_per_pod)
        return np.flatnonzero(slots >= gang.pods).tolist()
