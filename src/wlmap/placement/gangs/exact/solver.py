"""The per-decision optimum of a gang's communication cost, with OR-Tools CP-SAT.

The cost ``quality.measure`` computes is the mean pair weight. With ``t_d`` pods in domain
``d`` of level ``l``, the pairs whose finest shared domain is at level ``l`` are
``sum_d C(t_d, 2)`` minus the same sum one level finer, so for ``n`` pods

    pairs * cost = across * C(n, 2) - sum_l a_l * sum_d C(t_d, 2),   a_l = w_{l-1} - w_l >= 0

(``w_{-1}`` is ``across``; the node level's weight is ``node``). The cost needs only domain
totals (reference section 9a: "aggregate to domain-level counts"), and it is exact here,
not linearised:

- inside a finest domain holding ``t`` pods, ``sum C(x_node, 2)`` is largest when the nodes
  with most room are filled first: that split majorises every other split with the same
  bounds, and a sum of convex functions is Schur-convex. So each finest domain has one
  table: its best gain for every ``t``;
- a coarser domain's table is the max-plus convolution of its children's tables plus its
  own level's ``a_l * C(t, 2)`` (exact dynamic programming over the tree), with the counts a
  slice or a required level forbids removed;
- CP-SAT chooses the totals of the first level with more than one domain: one Boolean per
  (domain, count) with exactly one per domain, the counts adding up to the gang,
  maximising the tables' gains. That multiple-choice knapsack has a tight relaxation;
  the same choice written with integer totals and element constraints (``C(t, 2)`` looked
  up per domain) took seconds, because the relaxation of a convex gain is its chord.

Constraints kept: no domain takes more pods than its room (whole slices at and above the
slice level, and the slice level's totals a multiple of the slice size), and with a
required level the gang sits whole in one of its domains. Weights are scaled to integers in
thousandths; the returned cost is ``measure`` on the returned placement, exact for any
weights. The time limit (:data:`DEFAULT_TIME_LIMIT`) bounds the CP-SAT search; a result
found when it ran out is marked not ``proven``.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.exact._count_pick import choose_counts
from wlmap.placement.gangs.exact._tables import GainTables
from wlmap.placement.gangs.gang import Gang, GangPlacement
from wlmap.placement.gangs.objective._domains import DomainIndex, GangRoom, gang_room
from wlmap.placement.gangs.quality import TierWeights, default_weights, measure
from wlmap.placement.gangs.tree import Topology

__all__ = ["DEFAULT_TIME_LIMIT", "OptimalPlacement", "optimal_placement"]

DEFAULT_TIME_LIMIT = 5.0
_SCALE = 1000


@dataclass(frozen=True, slots=True)
class OptimalPlacement:
    """The cheapest placement CP-SAT found, and whether it proved it optimal.

    Attributes:
        placement: the placement (its reason says how it was found).
        cost: its communication cost under the weights asked for.
        proven: CP-SAT proved no placement is cheaper; False when the time limit was hit.
        seconds: wall time of the model build and the solve.
    """

    placement: GangPlacement
    cost: float
    proven: bool
    seconds: float


def optimal_placement(
    capacity: FreeCapacity,
    gang: Gang,
    weights: TierWeights | None = None,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    workers: int = 1,
) -> OptimalPlacement | None:
    """The placement of ``gang`` with the least communication cost, or None if none exists.

    Args:
        capacity: the free capacity (not changed).
        gang: the gang; its required level and slices are kept.
        weights: pair weights; the fabric defaults when absent.
        time_limit: seconds CP-SAT may search; when hit, the result is not ``proven``.
        workers: CP-SAT search workers (1 keeps the answer deterministic).

    Raises:
        ValueError: the gang's request is malformed for the topology.
        RuntimeError: CP-SAT found no placement and no proof of infeasibility in time.
    """
    start = time.perf_counter()
    topology = capacity.topology
    problem = gang.problem(topology)
    if problem:
        raise ValueError(f"gang {gang.name}: {problem}")
    weights = weights or default_weights(len(topology.levels))
    if len(weights.levels) != len(topology.levels):
        raise ValueError(
            f"weights name {len(weights.levels)} levels, the topology has {len(topology.levels)}"
        )
    if any(above < below for above, below in _ladder(weights)):
        raise ValueError("pair weights must not grow towards finer levels (across >= ... >= node)")
    index = _index(topology)
    room = gang_room(index, capacity, gang)
    node_level = len(topology.levels)
    if gang.required_level == node_level:
        fits = np.flatnonzero(capacity.node_free >= gang.gpus)
        if not len(fits):
            return None
        nodes: tuple[tuple[int, int], ...] = ((int(fits[0]), gang.pods),)
        return _result(gang, nodes, weights, index, True, start, "one node")
    solved = _solve(index, room, gang, weights, time_limit, workers)
    if solved is None:
        return None
    totals, proven = solved
    nodes = tuple(sorted(pair for r, t in totals.items() for pair in _nodes(index, room, r, t)))
    return _result(gang, nodes, weights, index, proven, start, "CP-SAT")


def _solve(
    index: DomainIndex,
    room: GangRoom,
    gang: Gang,
    weights: TierWeights,
    time_limit: float,
    workers: int,
) -> tuple[dict[int, int], bool] | None:
    topology = index.topology
    finest = len(topology.levels) - 1
    split = next((lv for lv in range(finest + 1) if topology.domain_count(lv) > 1), finest)
    gains = [_scaled(above - below) for above, below in _ladder(weights)]
    tables = GainTables(index, room, gang, gains)
    for level in range(finest, split - 1, -1):
        tables.build(level)
    found = choose_counts(
        tables.value[split], gang.pods, time_limit, workers, f"placement for gang {gang.name}"
    )
    if found is None:
        return None
    chosen, proven = found
    finest_totals: dict[int, int] = {}
    for domain, count in chosen.items():
        tables.unfold(split, domain, count, finest_totals)
    return {r: t for r, t in finest_totals.items() if t}, proven


def _nodes(index: DomainIndex, room: GangRoom, domain: int, pods: int) -> list[tuple[int, int]]:
    """Fill the nodes of a finest domain, roomiest first, lower index on ties."""
    members = index.topology.members[len(index.topology.levels) - 1][domain]
    rooms = room.nodes(members)
    out: list[tuple[int, int]] = []
    for position in np.argsort(-rooms, kind="stable"):
        if pods == 0:
            break
        take = min(pods, int(rooms[position]))
        if take:
            out.append((int(members[position]), take))
            pods -= take
    return out


def _ladder(weights: TierWeights) -> list[tuple[float, float]]:
    tiers = [weights.across, *weights.levels, weights.node]
    return list(itertools.pairwise(tiers))


def _scaled(value: float) -> int:
    return round(value * _SCALE)


_INDEXES: dict[int, DomainIndex] = {}


def _index(topology: Topology) -> DomainIndex:
    cached = _INDEXES.get(id(topology))
    if cached is None or cached.topology is not topology:
        cached = DomainIndex.build(topology)
        _INDEXES.clear()
        _INDEXES[id(topology)] = cached
    return cached


def _result(
    gang: Gang,
    nodes: tuple[tuple[int, int], ...],
    weights: TierWeights,
    index: DomainIndex,
    proven: bool,
    start: float,
    how: str,
) -> OptimalPlacement:
    state = "optimal" if proven else "best found before the time limit"
    placement = GangPlacement(gang, nodes, f"{how}: {state}")
    cost = measure(placement, index.topology, weights).cost
    return OptimalPlacement(placement, cost, proven, time.perf_counter() - start)
