"""Filling nodes in a given order, on a scratch copy of the free GPUs.

A policy decides in which order it wants nodes (or slice domains); these helpers turn the
order into pod counts without touching the real :class:`FreeCapacity`: every ``place``
works on a :class:`Scratch` copy of the per-node free GPUs, which costs one array copy per
gang, never a walk over every node per pod.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from wlmap.placement.gangs.baselines._domain_walk import (
    IntArray,
    domain_count,
    nodes_of,
    subdomains,
)
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement


class Scratch:
    """A scratch copy of the free GPUs per node, and the pods taken from it so far.

    Attributes:
        capacity: the real capacity (read only).
        free: free GPUs per node, lowered as pods are taken.
        domain_free: free GPUs per domain, per level, lowered with ``free``.
        gpus_per_pod: the gang's GPUs per pod.
        taken: pods taken per node.
    """

    def __init__(self, capacity: FreeCapacity, gang: Gang) -> None:
        self.capacity = capacity
        self.free = capacity.node_free.copy()
        self.domain_free = [free.copy() for free in capacity.domain_free]
        self.gpus_per_pod = gang.gpus_per_pod
        self.taken: dict[int, int] = {}

    def slots(self, nodes: IntArray) -> IntArray:
        """Pods of the gang's size each of ``nodes`` can still take."""
        result: IntArray = self.free[nodes] // self.gpus_per_pod
        return result

    def take(self, node: int, pods: int) -> None:
        """Take ``pods`` pods on ``node``."""
        if pods <= 0:
            return
        gpus = pods * self.gpus_per_pod
        self.free[node] -= gpus
        for level, of_node in enumerate(self.capacity.topology.node_domain):
            self.domain_free[level][of_node[node]] -= gpus
        self.taken[node] = self.taken.get(node, 0) + pods

    def fill(self, ordered: IntArray, pods: int) -> int:
        """Fill ``ordered`` nodes in turn, each as far as it goes; returns pods left over."""
        if pods <= 0 or len(ordered) == 0:
            return pods
        room = self.slots(ordered)
        before = np.cumsum(room) - room
        give = np.clip(pods - before, 0, room)
        for node, count in zip(ordered[give > 0].tolist(), give[give > 0].tolist(), strict=True):
            self.take(int(node), int(count))
        return pods - int(give.sum())

    def domain_slots(self, level: int, domains: IntArray) -> IntArray:
        """Pods each of ``domains`` (of ``level``) can still take, from the scratch copy."""
        topology = self.capacity.topology
        if level == len(topology.levels):
            return self.slots(domains)
        if not self.taken:
            fresh: IntArray = self.capacity.pod_slots(level, self.gpus_per_pod)[domains]
            return fresh
        return np.array(
            [int(self.slots(nodes_of(topology, level, int(d))).sum()) for d in domains],
            dtype=np.int64,
        )

    def placement(self, gang: Gang, reason: str) -> GangPlacement:
        """The pods taken so far as a placement of ``gang``."""
        return GangPlacement(gang, tuple(sorted(self.taken.items())), reason)


NodeOrder = Callable[[Scratch, IntArray], IntArray]
"""Orders candidate nodes (of one domain) the way a policy fills them."""


def pack_nodes(scratch: Scratch, nodes: IntArray) -> IntArray:
    """Nodes with room, fewest free GPUs first (bin packing), ties by node index."""
    room = nodes[scratch.slots(nodes) > 0]
    result: IntArray = room[np.lexsort((room, scratch.free[room]))]
    return result


def place_slices(
    scratch: Scratch,
    gang: Gang,
    inner: IntArray,
    slice_size: int,
    slice_level: int,
    pick: Callable[[IntArray, IntArray], int],
    node_order: NodeOrder,
) -> bool:
    """Place every slice of ``gang`` inside one of the ``slice_level`` domains ``inner``.

    ``pick(candidates, slots)`` chooses, among the slice domains with room for one slice
    and their free pod slots, the position of the one the next slice goes to. Returns False
    when a slice finds no domain (the caller checked capacity, so it means a bug).
    """
    slots = scratch.domain_slots(slice_level, inner)
    for _ in range(gang.pods // slice_size):
        fits = slots >= slice_size
        if not fits.any():
            return False
        where = np.flatnonzero(fits)
        chosen = int(where[pick(inner[where], slots[where])])
        nodes = nodes_of(scratch.capacity.topology, slice_level, int(inner[chosen]))
        left = scratch.fill(node_order(scratch, nodes), slice_size)
        if left:
            return False
        slots[chosen] -= slice_size
    return True


def slice_domains(scratch: Scratch, level: int, domain: int, slice_level: int) -> IntArray:
    """The ``slice_level`` domains inside ``domain`` of ``level``; all of them when ``domain < 0``."""
    topology = scratch.capacity.topology
    if domain < 0:
        return np.arange(domain_count(topology, slice_level), dtype=np.int64)
    return subdomains(topology, level, domain, slice_level)


def totals(scratch: Scratch, level: int) -> tuple[IntArray, IntArray]:
    """All GPUs and free GPUs (scratch copy) per domain of ``level``; per node at the node level."""
    capacity = scratch.capacity
    if level == len(capacity.topology.levels):
        return capacity.topology.gpus, scratch.free
    return capacity.capacity(level), scratch.domain_free[level]
