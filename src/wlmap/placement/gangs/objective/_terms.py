"""The objective's terms, measured on one candidate placement (lower is better for each).

- ``communication``: the gang's mean pod-pair cost, exactly as ``quality.measure`` computes it;
- ``wholeFreeDomains``: domains of the term's level that were entirely free and that the
  placement touches (each is a whole free domain lost: fragmentation at domain level, the
  figure reference section 9a reports);
- ``spareCapacity``: GPUs the placement takes out of each touched domain's spare (``gpus``
  or ``percent`` of the domain kept free for re-placing pods after a failure, the spare-pool
  reaction of reference section 9c); what a domain lacked before is not counted again;
- ``balance``: the used share, after placement, of the domains of the term's level the gang
  touches, weighted by its pods there (spreading load as LeastAllocated does);
- ``priority``: communication cost times ``priority / scale`` (zero for priority 0), so a
  tier or weight on it makes important gangs pay more for spread pods.

Weighted objectives add normalised values: cost over the ``across`` weight, broken domains
over the fewest domains the gang needs, spare GPUs used over the gang's GPUs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from wlmap.errors import Problem
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement
from wlmap.placement.gangs.objective._objective import Objective, TermName
from wlmap.placement.gangs.quality import TierWeights, default_weights, measure
from wlmap.placement.gangs.tree import Topology, TopologyError

__all__ = ["TermMeter", "resolve"]

Value = TypeVar("Value", float, npt.NDArray[np.float64])


@dataclass(frozen=True, eq=False)
class TermMeter:
    """An objective's terms resolved against one topology.

    Attributes:
        topology: the topology.
        weights: pair weights of the communication term.
        whole_level: level whose whole free domains count.
        spare_level: level whose domains keep a spare.
        spare: GPUs kept free per domain of ``spare_level``.
        balance_level: level whose load the balance term reads.
        priority_scale: gang priority that doubles the priority term's cost.
    """

    topology: Topology
    weights: TierWeights
    whole_level: int
    spare_level: int
    spare: np.ndarray
    balance_level: int
    priority_scale: float
    _up: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)

    def up(self, fine: int, coarse: int) -> np.ndarray:
        """For each domain of level ``fine``, its ancestor at level ``coarse`` (kept once made)."""
        key = (fine, coarse)
        if key not in self._up:
            out = np.arange(self.topology.domain_count(fine), dtype=np.int64)
            for level in range(fine, coarse, -1):
                out = self.topology.parent[level][out]
            self._up[key] = out
        return self._up[key]

    def raw(
        self,
        term: TermName,
        capacity: FreeCapacity,
        gang: Gang,
        nodes: np.ndarray,
        pods: np.ndarray,
        cost: float,
    ) -> float:
        """The term's value for a placement of ``pods`` pods on ``nodes`` costing ``cost``."""
        if term == "communication":
            return cost
        if term == "priority":
            return cost * max(gang.priority, 0) / self.priority_scale
        if term == "wholeFreeDomains":
            touched = self.topology.node_domain[self.whole_level][nodes]
            if len(nodes) > 1:
                touched = np.unique(touched)
            free = capacity.domain_free[self.whole_level][touched]
            return float(np.count_nonzero(free == capacity.capacity(self.whole_level)[touched]))
        level = self.spare_level if term == "spareCapacity" else self.balance_level
        of_node = self.topology.node_domain[level][nodes]
        if len(nodes) == 1:  # one node: no need to sort out its domains
            touched, where = of_node, np.zeros(1, dtype=np.int64)
        else:
            touched, where = np.unique(of_node, return_inverse=True)
        used = np.bincount(where, weights=pods * gang.gpus_per_pod).astype(np.int64)
        before = capacity.domain_free[level][touched]
        after = before - used
        if term == "spareCapacity":
            keep = self.spare[touched]
            short = np.maximum(keep - after, 0) - np.maximum(keep - before, 0)
            return float(short.sum())
        size = capacity.capacity(level)[touched]
        share = 1.0 - after / np.maximum(size, 1)
        counts = np.bincount(where, weights=pods)
        return float((share * counts).sum() / gang.pods)

    def cost(self, gang: Gang, nodes: tuple[tuple[int, int], ...]) -> float:
        """The gang's communication cost on ``nodes``."""
        if len(nodes) == 1:  # every pair on one node, the sum ``measure`` makes
            pairs = nodes[0][1] * (nodes[0][1] - 1) // 2
            return self.weights.node * pairs / pairs if pairs else 0.0
        return measure(GangPlacement(gang, nodes), self.topology, self.weights).cost

    def normalised(self, term: TermName, value: Value, gang: Gang, capacity: FreeCapacity) -> Value:
        """``value`` on a scale where 1 is about as bad as the term gets for this gang."""
        if term in ("communication", "priority"):
            return value / self.weights.across if self.weights.across > 0 else value
        if term == "wholeFreeDomains":
            largest = int(capacity.capacity(self.whole_level).max(initial=1))
            return value / max(1, math.ceil(gang.gpus / max(largest, 1)))
        if term == "spareCapacity":
            return value / gang.gpus
        return value


def resolve(
    objective: Objective, topology: Topology, origin: str, weights: TierWeights | None = None
) -> TermMeter:
    """Resolve the objective's levels and weights against ``topology``.

    The communication term's pair weights are the objective's ``tierWeights`` when it sets
    them, else ``weights`` (the scenario's, which its cost is measured with), else
    :func:`~wlmap.placement.gangs.quality.default_weights`.

    Raises:
        ObjectiveError: a term names a level the topology lacks, or the pair weights name
            another number of levels.
        ValueError: ``weights`` name another number of levels than the topology has.
    """
    from wlmap.placement.gangs.objective.loading import ObjectiveError  # noqa: PLC0415 - start-up cost

    problems: list[Problem] = []
    terms = objective.terms
    finest = len(topology.levels) - 1

    def level(path: str, key: str | None, default: int) -> int:
        if key is None:
            return default
        try:
            found = topology.level_index(key)
        except TopologyError as exc:
            problems.append(Problem(origin, path, str(exc)))
            return default
        if found > finest:
            problems.append(Problem(origin, path, "expected a domain level, not the node level"))
            return default
        return found

    whole = level("terms.wholeFreeDomains.level", terms.whole_free_domains.level, finest)
    spare_level = level("terms.spareCapacity.level", terms.spare_capacity.level, finest)
    balance = level("terms.balance.level", terms.balance.level, 0)
    spec = terms.communication.tier_weights
    if weights is not None and len(weights.levels) != len(topology.levels):
        raise ValueError(
            f"tier weights name {len(weights.levels)} levels, the topology has "
            f"{len(topology.levels)} ({', '.join(topology.levels)})"
        )
    weights = weights or default_weights(len(topology.levels))
    if spec is not None:
        if len(spec.levels) != len(topology.levels):
            problems.append(
                Problem(
                    origin,
                    "terms.communication.tierWeights.levels",
                    f"expected {len(topology.levels)} weights, one per level "
                    f"({', '.join(topology.levels)}); got {len(spec.levels)}",
                )
            )
        else:
            weights = TierWeights(across=spec.across, levels=spec.levels, node=spec.node)
    if problems:
        raise ObjectiveError(problems)
    size = topology.domain_count(spare_level)
    sizes = np.bincount(topology.node_domain[spare_level], weights=topology.gpus, minlength=size)
    if terms.spare_capacity.gpus is not None:
        spare = np.minimum(np.full(size, terms.spare_capacity.gpus), sizes).astype(np.int64)
    else:
        percent = terms.spare_capacity.percent or 0.0
        spare = np.ceil(sizes * percent / 100.0 - 1e-9).astype(np.int64)
    return TermMeter(topology, weights, whole, spare_level, spare, balance, terms.priority.scale)
