"""Independent checks of placements after recovery: constraints and GPU accounting.

These checks do not trust any reaction: they recount from the placements themselves. The
request itself is checked by :func:`wlmap.placement.gangs.validity.request_problems`,
the same check the gang simulator runs on every policy.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.tree import Topology
from wlmap.placement.gangs.validity import request_problems

__all__ = ["accounting_problems", "constraint_problems"]


def constraint_problems(placement: GangPlacement, topology: Topology) -> list[str]:
    """What ``placement`` breaks of its gang's request (pod count, required level, slices),
    each problem led by the gang's name."""
    name = placement.gang.name
    return [f"{name}: {problem}" for problem in request_problems(placement, topology)]


def accounting_problems(
    capacity: FreeCapacity, placements: Iterable[GangPlacement], reserved: dict[int, int]
) -> list[str]:
    """Nodes whose free GPUs differ from usable minus the pods on them and ``reserved``."""
    used = np.zeros(len(capacity.topology.nodes), dtype=np.int64)
    for placement in placements:
        for node, pods in placement.nodes:
            used[node] += pods * placement.gang.gpus_per_pod
    for node, gpus in reserved.items():
        used[node] += gpus
    problems = []
    wrong = (capacity.usable - used != capacity.node_free) | (used > capacity.usable)
    for bad in np.flatnonzero(wrong).tolist():
        node = int(bad)
        name = capacity.topology.nodes[node].name
        problems.append(
            f"node {name}: {int(capacity.node_free[node])} GPUs free, expected "
            f"{int(capacity.usable[node] - used[node])} ({int(used[node])} used of "
            f"{int(capacity.usable[node])} in service)"
        )
    return problems
