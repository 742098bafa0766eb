"""Nodes bucketed by their free-device counts, with a lower bound on the planner's cost.

The planner scores each node a pod could go to by whole groups broken and free devices
stranded. Both are bounded from below by counts alone: the node's free and total devices
decide whether the node's own group is broken; the free and total devices of its finest
groups bound how many whole groups must be broken and how many free devices stranded
(any set of touched groups holds at least the devices the pod takes, and leaves the rest
of their free devices stranded). Selectors and constraints only remove choices, so the
bound holds whatever they say.

Nodes with equal counts share a bound, so the nodes are kept in buckets by counts,
updated as devices are taken and released; a pod's search visits the buckets in order of
bound and stops once no bucket left can beat the best node found (ties go to the lower
rank). The bound is exact for the node level and counts-only for the others, so the
planner chooses the same node as a scan of every node would.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from itertools import combinations
from typing import Any

_Signature = tuple[int, int, tuple[tuple[int, int], ...]]
_MAX_GROUPS = 6  # finest groups per node above which the bound falls back to zero


class NodeBounds:
    """Buckets of nodes by free counts, over counters the planner keeps.

    Args:
        node_groups: per node, its node-level group key and its finest group keys.
        free: free devices per group (the planner's dict, read live).
        total: devices per group.
        middle_levels: group levels between the node and the finest one (their bound
            is zero).
        fine: whether there are finer groups than the node (else the node is finest).
    """

    def __init__(
        self,
        node_groups: Mapping[str, tuple[Hashable, tuple[Hashable, ...]]],
        free: Mapping[Any, int],
        total: Mapping[Any, int],
        middle_levels: int,
        *,
        fine: bool,
    ) -> None:
        self._groups = node_groups
        self._free, self._total = free, total
        self._middle, self._fine = middle_levels, fine
        self._of: dict[str, _Signature] = {}
        # each bucket sorted by the nodes' order in the input, which every domain keeps
        self._order = {node: i for i, node in enumerate(node_groups)}
        self._buckets: dict[_Signature, list[tuple[int, str]]] = {}
        self._bounds: dict[tuple[_Signature, int], tuple[int, ...] | None] = {}
        for node in node_groups:
            self.update(node)

    def update(self, node: str) -> None:
        """Move the node to the bucket of its current counts."""
        group, finest = self._groups[node]
        free = self._free
        signature = (
            free.get(group, 0),
            self._total[group],
            tuple(sorted((free.get(g, 0), self._total[g]) for g in finest if free.get(g, 0))),
        )
        old = self._of.get(node)
        if old == signature:
            return
        entry = (self._order[node], node)
        if old is not None:
            bucket = self._buckets[old]
            del bucket[bisect.bisect_left(bucket, entry)]
            if not bucket:
                del self._buckets[old]
        self._of[node] = signature
        bisect.insort(self._buckets.setdefault(signature, []), entry)

    def tiers(
        self, need: int, rank: Mapping[str, int]
    ) -> Iterator[tuple[tuple[int, ...], Iterator[str]]]:
        """The nodes of ``rank`` that could hold ``need`` devices, grouped by lower bound
        (the cost from the node level on), lowest bound first, each tier in rank order
        (``rank`` must follow the nodes' input order, as a domain's nodes do)."""
        found: dict[tuple[int, ...], list[_Signature]] = {}
        for signature in self._buckets:
            bound = self._bound(signature, need)
            if bound is not None:
                found.setdefault(bound, []).append(signature)
        whole = len(rank) == len(self._of)  # the domain is every node: no filter needed
        for bound in sorted(found):
            merged = heapq.merge(*(self._buckets[s] for s in found[bound]))
            yield bound, (n for _, n in merged if whole or n in rank)

    def _bound(self, signature: _Signature, need: int) -> tuple[int, ...] | None:
        key = (signature, need)
        if key not in self._bounds:
            self._bounds[key] = self._compute(signature, need)
        return self._bounds[key]

    def _compute(self, signature: _Signature, need: int) -> tuple[int, ...] | None:
        node_free, node_total, groups = signature
        if node_free < need:
            return None
        node_broken = int(node_free == node_total and need < node_free)
        if not self._fine:
            return (node_broken, node_free - need)
        return (node_broken, *(0,) * self._middle, *_finest(groups, need))


def _finest(groups: Sequence[tuple[int, int]], need: int) -> tuple[int, int]:
    """The least (whole groups broken, free devices stranded) over the sets of finest
    groups that hold ``need`` free devices."""
    if len(groups) > _MAX_GROUPS:
        return (0, 0)
    best: tuple[int, int] | None = None
    for size in range(1, len(groups) + 1):
        for chosen in combinations(groups, size):
            held = sum(free for free, _ in chosen)
            if held < need:
                continue
            broken = int(held > need and all(free == total for free, total in chosen))
            candidate = (broken, held - need)
            if best is None or candidate < best:
                best = candidate
    return best or (0, 0)


def nodes_of(
    devices: Iterable[tuple[str | None, Hashable, Hashable]],
) -> dict[str, tuple[Hashable, tuple[Hashable, ...]]]:
    """Per node, from ``(node, node group, finest group)`` per device: the node group and
    its distinct finest groups in order."""
    found: dict[str, tuple[Hashable, dict[Hashable, None]]] = {}
    for node, group, finest in devices:
        if node is not None:
            found.setdefault(node, (group, {}))[1][finest] = None
    return {node: (group, tuple(finest)) for node, (group, finest) in found.items()}
