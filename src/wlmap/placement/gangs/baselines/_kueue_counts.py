"""The counts and greedy steps Kueue's topology-aware scheduling builds its choices from.

Kueue (``pkg/cache/scheduler/tas_flavor_snapshot.go``, ``fillInCounts``) first counts per
domain how many pods of the request fit (``podCount``: the sum over nodes of
``free // request``) and how many whole slices (``sliceCount``: ``podCount // sliceSize``
at the slice level, summed above it, 0 below it). Without slices a slice is one pod at
the node level, so ``sliceCount == podCount`` everywhere. Domains are then ordered by
``sortedDomains``: BestFit by sliceCount descending, LeastFreeCapacity ascending; both then
by podCount ascending and by label values (domain index here; node index for nodes).

``distribute`` is ``updateCountsToMinimumGeneric`` without leaders: walk the ordered
domains taking each whole until one can hold the rest; BestFit then swaps that last one
for the first domain (in order) with the smallest count that still holds the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wlmap.placement.gangs.baselines._domain_walk import IntArray, effective_slice, tree_index
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang


@dataclass(frozen=True)
class Counts:
    """Per level (node level last): pods and whole slices each domain can take.

    Attributes:
        pods: ``podCount`` per domain, per level.
        slices: ``sliceCount`` per domain, per level.
        slice_size: pods per slice (1 without slices).
        slice_level: the slice level (the node level without slices).
    """

    pods: tuple[IntArray, ...]
    slices: tuple[IntArray, ...]
    slice_size: int
    slice_level: int


def counts(capacity: FreeCapacity, gang: Gang) -> Counts:
    """Kueue's ``fillInCounts`` for ``gang`` on the current free capacity."""
    topology = capacity.topology
    node_level = len(topology.levels)
    pods = tuple(capacity.pod_slots(level, gang.gpus_per_pod) for level in range(node_level + 1))
    sliced = effective_slice(gang)
    size, slice_level = (1, node_level) if sliced is None else sliced
    if sliced is None:
        return Counts(pods, pods, 1, node_level)
    up = tree_index(topology).ancestor[slice_level]
    at_slice = pods[slice_level] // size
    slices: list[IntArray] = []
    for level in range(node_level + 1):
        if level < slice_level:
            slices.append(
                np.bincount(up[level], weights=at_slice, minlength=len(pods[level])).astype(
                    np.int64
                )
            )
        elif level == slice_level:
            slices.append(at_slice)
        else:
            slices.append(np.zeros(len(pods[level]), dtype=np.int64))
    return Counts(pods, tuple(slices), size, slice_level)


def ordered(domains: IntArray, slices: IntArray, pods: IntArray, least_free: bool) -> IntArray:
    """``sortedDomains``: slices descending (ascending for LeastFreeCapacity), pods ascending."""
    key = slices[domains] if least_free else -slices[domains]
    order = np.lexsort((domains, pods[domains], key))
    result: IntArray = domains[order]
    return result


def distribute(
    domains: IntArray, amounts: IntArray, need: int, best_fit: bool
) -> list[tuple[int, int]] | None:
    """Take ``need`` units from ``domains`` in their order (``amounts`` aligned with them).

    Returns (domain, units) pairs, or None when all of them together hold too little.
    """
    remaining = need
    taken: list[tuple[int, int]] = []
    for i in range(len(domains)):
        at = i
        if best_fit and amounts[i] >= remaining:
            rest = amounts[i:]
            masked = np.where(rest >= remaining, rest, np.iinfo(np.int64).max)
            at = i + int(np.argmin(masked))
        have = int(amounts[at])
        if have >= remaining:
            taken.append((int(domains[at]), remaining))
            return taken
        if have > 0:
            taken.append((int(domains[at]), have))
            remaining -= have
    return None


def greedy_count(
    domains: IntArray, slices: IntArray, pods: IntArray, need: int
) -> tuple[int, int] | None:
    """``evaluateGreedyAssignment``: (domains used, the last one's slices) in BestFit order."""
    remaining = need
    used = 0
    last = 0
    for domain in ordered(domains, slices, pods, least_free=False).tolist():
        have = int(slices[domain])
        if remaining <= 0 or have <= 0:
            break
        used += 1
        last = have
        remaining -= have
    if remaining > 0:
        return None
    return used, last
