"""The exact reference for one fault's re-placement: fewest pods moved, then least cost.

A gang that lost pods to a fault keeps its healthy pods (the survivors) where they are; the
lost pods must go somewhere. :func:`optimal_recovery` finds, with the capacity the reaction
saw, the placement of the whole gang that moves the fewest pods (every lost pod moves; a
survivor moves when it does not keep its node) and, among those, has the least
communication cost (``quality.measure``). Required levels and whole slices are kept, as
for any placement; the whole cluster may be used, so a gang whose domain has no room left
is moved whole to another domain when nothing cheaper in movement exists.

It is solved like :func:`~wlmap.placement.gangs.exact.optimal_placement` (see
:mod:`.solver`), over the final pod count of every domain, with one change: a survivor
that leaves its node costs ``M`` per pod, ``M`` larger than any difference of pair gains,
so the single objective ``pair gains - M x survivors moved`` is the lexicographic one.

- Per node, the table of its value for each final count ``c``: ``a_node x C(c, 2) - M x
  max(0, s - c)`` (``s`` survivors on it, ``c`` at most ``s`` plus its room). Nodes without
  survivors of the gang are filled roomiest first (the majorisation argument of
  :mod:`.solver`), so they form one table per finest domain;
- a domain's table is the max-plus convolution of its parts' tables plus its own level's
  ``a_l x C(t, 2)``, with the counts that would split a slice or a required level removed;
- CP-SAT chooses the totals of the first level with more than one domain (a multiple-choice
  knapsack, as in :mod:`.solver`), and the choice is unfolded down to nodes.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.exact._count_pick import choose_counts
from wlmap.placement.gangs.exact._tables import NONE, convolve, most_pairs
from wlmap.placement.gangs.exact.solver import DEFAULT_TIME_LIMIT, _index, _ladder, _scaled
from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.objective._domains import DomainIndex
from wlmap.placement.gangs.quality import TierWeights, default_weights, measure

__all__ = ["OptimalRecovery", "optimal_recovery", "pods_moved"]

Pairs = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class OptimalRecovery:
    """The re-placement with the fewest pods moved and, among those, the least cost.

    Attributes:
        placement: the gang's whole placement after recovery.
        moved: pods that run on another node than before the fault (lost ones included).
        cost: its communication cost under the weights asked for.
        proven: CP-SAT proved it optimal; False when the time limit was hit.
        seconds: wall time of the tables and the solve.
    """

    placement: GangPlacement
    moved: int
    cost: float
    proven: bool
    seconds: float


def pods_moved(survivors: GangPlacement, after: GangPlacement) -> int:
    """Pods of ``after`` that are not survivors kept on their node."""
    kept = dict(survivors.nodes)
    stay = sum(min(pods, kept.get(node, 0)) for node, pods in after.nodes)
    return sum(p for _, p in after.nodes) - stay


def optimal_recovery(
    capacity: FreeCapacity,
    survivors: GangPlacement,
    weights: TierWeights | None = None,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    workers: int = 1,
) -> OptimalRecovery | None:
    """The least-movement, then cheapest, placement of the gang whose healthy pods are
    ``survivors``; None when the gang fits nowhere even with its survivors moved.

    Args:
        capacity: free capacity as the reaction sees it: the survivors hold their GPUs,
            the lost pods hold none (not changed).
        survivors: the gang's healthy pods, on their nodes.
        weights: pair weights; the fabric defaults when absent.
        time_limit: seconds CP-SAT may search; when hit, the result is not ``proven``.
        workers: CP-SAT search workers (1 keeps the answer deterministic).

    Raises:
        ValueError: the gang's request is malformed for the topology.
        RuntimeError: CP-SAT found no placement and no proof of infeasibility in time.
    """
    start = time.perf_counter()
    topology = capacity.topology
    gang = survivors.gang
    problem = gang.problem(topology)
    if problem:
        raise ValueError(f"gang {gang.name}: {problem}")
    weights = weights or default_weights(len(topology.levels))
    index = _index(topology)
    tables = _Tables(index, capacity, survivors, weights)
    finest = len(topology.levels) - 1
    split = next((lv for lv in range(finest + 1) if topology.domain_count(lv) > 1), finest)
    for level in range(finest, split - 1, -1):
        tables.build(level)
    solved = choose_counts(tables.value[split], gang.pods, time_limit, workers, "recovery")
    if solved is None:
        return None
    chosen, proven = solved
    counts: dict[int, int] = {}
    for domain, count in chosen.items():
        tables.unfold(split, domain, count, counts)
    nodes = tuple(sorted((n, c) for n, c in counts.items() if c))
    state = "optimal" if proven else "best found before the time limit"
    placement = GangPlacement(gang, nodes, f"CP-SAT recovery: {state}")
    cost = measure(placement, topology, weights).cost
    moved = pods_moved(survivors, placement)
    return OptimalRecovery(placement, moved, cost, proven, time.perf_counter() - start)


class _Tables:
    """Each domain's best value for every final pod count of the gang in it."""

    def __init__(
        self,
        index: DomainIndex,
        capacity: FreeCapacity,
        survivors: GangPlacement,
        weights: TierWeights,
    ) -> None:
        self.index = index
        gang = survivors.gang
        self.gang = gang
        topology = index.topology
        self.node_level = len(topology.levels)
        self.unit = gang.slice_size or 1
        self.slice_level = gang.slice_level if gang.slice_level is not None else self.node_level
        self.gains = [_scaled(a - b) for a, b in _ladder(weights)]
        pods = gang.pods
        # Moving one survivor must outweigh every possible difference in pair gains.
        self.penalty = sum(self.gains) * math.comb(pods, 2) + 1
        self.kept = dict(survivors.nodes)
        self.room = capacity.node_free // gang.gpus_per_pod
        self.value: dict[int, dict[int, np.ndarray]] = {}
        self.choices: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}
        self.spread: dict[int, np.ndarray] = {}  # finest domain -> its nodes without survivors

    def _limit(self, counts: np.ndarray, table: np.ndarray, level: int) -> np.ndarray:
        if self.unit > 1 and level <= self.slice_level:
            table = np.where(counts % self.unit == 0, table, NONE)
        if level == self.gang.required_level:
            table = np.where((counts == 0) | (counts == self.gang.pods), table, NONE)
        return table

    def _node(self, node: int) -> np.ndarray:
        s = self.kept[node]
        top = min(self.gang.pods, s + int(self.room[node]))
        counts = np.arange(top + 1, dtype=np.int64)
        table = self.gains[-1] * (counts * (counts - 1) // 2) - self.penalty * np.maximum(
            0, s - counts
        )
        return self._limit(counts, table, self.node_level)

    def _free_nodes(self, domain: int) -> np.ndarray:
        members = self.index.topology.members[self.node_level - 1][domain]
        free = np.array([n for n in members.tolist() if n not in self.kept], dtype=np.int64)
        self.spread[domain] = free
        rooms = self.room[free] if len(free) else np.zeros(0, dtype=np.int64)
        if self.node_level in (self.slice_level, self.gang.required_level):
            rooms = (rooms // self.unit) * self.unit
            if self.gang.required_level == self.node_level:
                rooms = np.where(rooms >= self.gang.pods, self.gang.pods, 0)
        top = min(self.gang.pods, int(rooms.sum()))
        table = self.gains[-1] * np.array(most_pairs(rooms, top), dtype=np.int64)
        if self.gang.required_level == self.node_level:
            counts = np.arange(top + 1)
            table = np.where((counts == 0) | (counts == self.gang.pods), table, NONE)
        return table

    def build(self, level: int) -> None:
        """Tables of every domain of ``level``, the finer levels built already."""
        topology = self.index.topology
        finest = self.node_level - 1
        pods = self.gang.pods
        out: dict[int, np.ndarray] = {}
        for domain in range(topology.domain_count(level)):
            steps: list[tuple[int, np.ndarray]] = []
            if level == finest:
                table = self._free_nodes(domain)
                parts = [
                    (n, self._node(n))
                    for n in topology.members[finest][domain].tolist()
                    if n in self.kept
                ]
            else:
                table = np.zeros(1, dtype=np.int64)
                parts = [
                    (int(c), self.value[level + 1][int(c)])
                    for c in self.index.children[level][domain]
                ]
            for part, right in parts:
                table, arg = convolve(table, right, pods)
                steps.append((part, arg))
            self.choices[(level, domain)] = steps
            counts = np.arange(len(table), dtype=np.int64)
            table = np.where(
                table > NONE, table + self.gains[level] * (counts * (counts - 1) // 2), NONE
            )
            out[domain] = self._limit(counts, table, level)
        self.value[level] = out

    def unfold(self, level: int, domain: int, count: int, out: dict[int, int]) -> None:
        """Spread ``count`` pods of ``domain`` over nodes as the tables chose."""
        for part, arg in reversed(self.choices[(level, domain)]):
            take = int(arg[count]) if count < len(arg) else 0
            if take:
                if level == self.node_level - 1:
                    out[part] = take
                else:
                    self.unfold(level + 1, part, take, out)
            count -= take
        if level == self.node_level - 1 and count:
            self._fill(domain, count, out)

    def _fill(self, domain: int, count: int, out: dict[int, int]) -> None:
        free = self.spread[domain]
        rooms = self.room[free]
        if self.slice_level == self.node_level:
            rooms = (rooms // self.unit) * self.unit
        for position in np.argsort(-rooms, kind="stable"):
            take = min(count, int(rooms[position]))
            if take:
                out[int(free[position])] = take
                count -= take
            if not count:
                break
