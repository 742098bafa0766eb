"""Independent checks of placements after recovery: constraints and GPU accounting.

These checks do not trust any reaction: they recount from the placements themselves.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from wlmap.placement.topology.capacity import FreeCapacity
from wlmap.placement.topology.gang import GangPlacement
from wlmap.placement.topology.tree import Topology

__all__ = ["accounting_problems", "constraint_problems"]


def constraint_problems(placement: GangPlacement, topology: Topology) -> list[str]:
    """What ``placement`` breaks of its gang's request: pod count, required level, slices."""
    gang = placement.gang
    problems: list[str] = []
    placed = sum(p for _, p in placement.nodes)
    if placed != gang.pods:
        problems.append(f"{gang.name}: {placed} pods placed, expected {gang.pods}")
    if gang.required_level is not None:
        domains = placement.domain_counts(topology, gang.required_level)
        if len(domains) > 1:
            problems.append(
                f"{gang.name}: spans {len(domains)} domains of required level "
                f"{gang.required_level}, expected 1"
            )
    if gang.slice_size and gang.slice_level is not None:
        for domain, count in placement.domain_counts(topology, gang.slice_level).items():
            if count % gang.slice_size:
                problems.append(
                    f"{gang.name}: {count} pods in {topology.domain_name(gang.slice_level, domain)}, "
                    f"expected a multiple of the slice size {gang.slice_size}"
                )
    return problems


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
