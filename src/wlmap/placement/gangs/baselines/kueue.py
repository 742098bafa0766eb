"""Kueue topology-aware scheduling: BestFit, LeastFreeCapacity and BalancedPlacement.

Follows KEP 2724 "Computing the assignment" and ``pkg/cache/scheduler/tas_flavor_snapshot.go``
(``findTopologyAssignment``, ``findLevelWithFitDomains``, ``updateCountsToMinimumGeneric``,
``sortedDomains``) of kubernetes-sigs/kueue, without leaders, affinity scores or
multi-layer slices. Counts and orders: :mod:`._kueue_counts`.

Which algorithm a gang gets (the KEP's "Selecting the algorithm" table since v0.15):

- ``kueue-bestfit``: the default ``TASProfileMixed``: BestFit for required and preferred
  gangs, LeastFreeCapacity for gangs with no level;
- ``kueue-least-free``: the former ``TASProfileLeastFreeCapacity``: LeastFreeCapacity for all;
- ``kueue-balanced``: ``TASBalancedPlacement``: BalancedPlacement for preferred gangs
  (:mod:`._kueue_balanced`, BestFit when it does not apply), BestFit for required ones,
  LeastFreeCapacity for gangs with no level.

Phase 1 counts pods and slices per domain. Phase 2a picks the level and domains: at the
requested level (the preferred one, else the required one) take the domains in order;
BestFit picks, if the first domain holds every slice, the first domain with the fewest
slices that still holds them all; LeastFreeCapacity the first in ascending order that holds
them all. If none does, a required gang fails at its required level; a preferred one tries
the level above, and at the top level spreads over several domains taken in order (BestFit
optimising the last one). A gang with no level starts at the node level (at the top level
when it only asks for slices) and spreads at once, never walking up. Phase 2b descends:
above the slice level the children of every chosen domain are pooled, ordered and filled
in whole slices; from the slice level down, each chosen domain spreads its own pods over
its children, which below the slice level have no slice count and so are ordered by free
pods ascending.

This model's additions, stated: a gang with both a required and a preferred level starts
at the preferred level and walks up no further than the required one (Kueue takes one or
the other); a slice level finer than the preferred level bounds the start at the slice
level (Kueue rejects that request); a slice level at or above the required level is
implied by it and ignored. Nodes are ordered by index where Kueue compares hostnames.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from wlmap.placement.gangs.baselines._domain_walk import tree_index
from wlmap.placement.gangs.baselines._kueue_balanced import balanced_domains
from wlmap.placement.gangs.baselines._kueue_counts import Counts, counts, distribute, ordered
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement
from wlmap.placement.gangs.tree import Topology

__all__ = ["Algorithm", "KueuePolicy", "kueue_balanced", "kueue_best_fit", "kueue_least_free"]

Algorithm = Literal["best-fit", "least-free", "balanced"]

_NAMES: dict[str, str] = {
    "best-fit": "kueue-bestfit",
    "least-free": "kueue-least-free",
    "balanced": "kueue-balanced",
}


class KueuePolicy:
    """Kueue's TAS assignment under one profile (see the module docstring)."""

    def __init__(self, algorithm: Algorithm = "best-fit") -> None:
        self.algorithm = algorithm
        self.name = _NAMES[algorithm]

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        topology = capacity.topology
        node_level = len(topology.levels)
        c = counts(capacity, gang)
        need = gang.pods // c.slice_size
        required, preferred = gang.required_level, gang.preferred_level
        loose = required is None and preferred is None
        least_free = loose or self.algorithm == "least-free"
        start = 0 if c.slice_size > 1 else node_level
        if preferred is not None:
            start = min(max(preferred, required or 0), c.slice_level)
        elif required is not None:
            start = min(required, c.slice_level)
        picks: list[tuple[int, int]] | None = None
        level = start
        pooled = True
        how = ""
        below_required = preferred is not None and (required is None or required < preferred)
        if self.algorithm == "balanced" and preferred is not None and below_required:
            found = balanced_domains(capacity, c, preferred, need)
            if found is not None:
                level, picks = found
                pooled = False
                how = "balanced placement"
        if picks is None:
            fit = self._fit_level(c, start, required, need, least_free, loose)
            if fit is None:
                return None
            level, units = fit
            picks = [(d, u * c.slice_size) for d, u in units]
            how = "least free capacity" if least_free else "best fit"
        first = ", ".join(topology.domain_name(level, d) for d, _ in picks[:3])
        nodes = _descend(topology, c, picks, level, least_free, pooled)
        reason = f"{how} at {_level_name(topology.levels, level)}: {first}"
        return GangPlacement(gang, tuple(sorted(nodes)), reason)

    def _fit_level(
        self,
        c: Counts,
        level: int,
        required: int | None,
        need: int,
        least_free: bool,
        loose: bool,
    ) -> tuple[int, list[tuple[int, int]]] | None:
        while True:
            domains = np.arange(len(c.pods[level]), dtype=np.int64)
            order = ordered(domains, c.slices[level], c.pods[level], least_free)
            amounts = c.slices[level][order]
            if least_free:
                fits = np.flatnonzero(amounts >= need)
                if len(fits):
                    return level, [(int(order[fits[0]]), need)]
            elif len(order) and amounts[0] >= need:
                masked = np.where(amounts >= need, amounts, np.iinfo(np.int64).max)
                return level, [(int(order[int(np.argmin(masked))]), need)]
            if required is not None and level <= required:
                return None
            if level > 0 and not loose:
                level -= 1
                continue
            spread = distribute(order, amounts, need, best_fit=not least_free)
            return None if spread is None else (level, spread)


def _descend(
    topology: Topology,
    c: Counts,
    picks: list[tuple[int, int]],
    level: int,
    least_free: bool,
    pooled: bool,
) -> list[tuple[int, int]]:
    """Phase 2b: from the chosen domains down to pods per node."""
    node_level = len(topology.levels)
    children = tree_index(topology).children
    current = picks
    size = c.slice_size
    while pooled and level < min(node_level, c.slice_level):
        kids = np.concatenate([children[level][d] for d, _ in current])
        order = ordered(kids, c.slices[level + 1], c.pods[level + 1], least_free)
        total = sum(p for _, p in current) // size
        units = distribute(order, c.slices[level + 1][order], total, not least_free)
        assert units is not None
        current = [(d, u * size) for d, u in units]
        level += 1
    while level < node_level:
        step = size if level < c.slice_level else 1
        amounts = c.slices[level + 1] if step > 1 else c.pods[level + 1]
        following: list[tuple[int, int]] = []
        for domain, pods in current:
            order = ordered(
                children[level][domain], c.slices[level + 1], c.pods[level + 1], least_free
            )
            units = distribute(order, amounts[order], pods // step, not least_free)
            assert units is not None
            following.extend((d, u * step) for d, u in units)
        current = following
        level += 1
    return current


def _level_name(levels: tuple[str, ...], level: int) -> str:
    return levels[level] if level < len(levels) else "kubernetes.io/hostname"


def kueue_best_fit() -> KueuePolicy:
    """Kueue's default profile: BestFit, LeastFreeCapacity for gangs with no level."""
    return KueuePolicy("best-fit")


def kueue_least_free() -> KueuePolicy:
    """Kueue's former LeastFreeCapacity profile."""
    return KueuePolicy("least-free")


def kueue_balanced() -> KueuePolicy:
    """Kueue's BalancedPlacement for preferred gangs (alpha feature gate)."""
    return KueuePolicy("balanced")
