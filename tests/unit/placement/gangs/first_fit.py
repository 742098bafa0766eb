"""A first-fit gang policy for tests and the engine's speed benchmark (not a product policy).

The scope is the whole cluster, or the first domain of the required level (by index) that
can take every pod; inside it, whole slices go to the slice level's domains in index order
and pods to nodes in index order. It keeps the GangPolicy promises, so the simulator's
verify mode must accept every placement it makes.
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.gangs import FreeCapacity, Gang, GangPlacement


class FirstFit:
    """Fill the first domain (and nodes) that fit, in index order."""

    name = "first-fit"

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        topology = capacity.topology
        node_level = len(topology.levels)
        level = gang.required_level
        if level is None:
            scopes = [np.arange(len(topology.nodes))]
        elif level == node_level:
            fits = np.flatnonzero(capacity.node_free // gang.gpus_per_pod >= gang.pods)
            scopes = [fits[:1]]
        else:
            slots = capacity.pod_slots(level, gang.gpus_per_pod)
            scopes = [topology.members[level][d] for d in np.flatnonzero(slots >= gang.pods)]
        for members in scopes:
            found = self._fill(capacity, gang, members)
            if found is not None:
                return GangPlacement(gang, found, "first fit")
        return None

    def _fill(
        self, capacity: FreeCapacity, gang: Gang, members: np.ndarray
    ) -> tuple[tuple[int, int], ...] | None:
        per_node = capacity.node_free[members] // gang.gpus_per_pod
        if not gang.slice_size or gang.slice_level is None:
            return _take(members, per_node, gang.pods)
        topology = capacity.topology
        if gang.slice_level == len(topology.levels):
            groups = [
                (np.array([n]), np.array([k])) for n, k in zip(members, per_node, strict=True)
            ]
        else:
            of_node = topology.node_domain[gang.slice_level][members]
            groups = [(members[of_node == d], per_node[of_node == d]) for d in np.unique(of_node)]
        left = gang.pods
        chosen: list[tuple[int, int]] = []
        for nodes, room in groups:
            slices = min(int(room.sum()) // gang.slice_size, left // gang.slice_size)
            if slices:
                taken = _take(nodes, room, slices * gang.slice_size)
                assert taken is not None
                chosen.extend(taken)
                left -= slices * gang.slice_size
            if not left:
                return tuple(sorted(chosen))
        return None


def _take(members: np.ndarray, room: np.ndarray, pods: int) -> tuple[tuple[int, int], ...] | None:
    """``pods`` pods on the first nodes with room, in order."""
    filled = np.cumsum(room)
    if not len(filled) or filled[-1] < pods:
        return None
    last = int(np.searchsorted(filled, pods))
    counts = room[: last + 1].copy()
    counts[last] -= int(filled[last]) - pods
    return tuple(
        (int(n), int(c)) for n, c in zip(members[: last + 1], counts, strict=True) if c > 0
    )
