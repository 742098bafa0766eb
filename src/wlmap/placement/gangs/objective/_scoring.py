"""Scoring candidates: packed ones term by term, finest-level ones all at once.

A packed candidate's terms come from :class:`~._terms.TermMeter`. Most candidates, though, put the whole gang inside one finest domain (a rack, an NVLink domain).
Their terms need no packing: every pod pair shares the domain, so the cost depends only on
the same-node pairs of the fill (the roomiest nodes whole, the rest on one node), which the
domain's histogram gives, column by column from most free GPUs down; the other terms read
the domain's (or its ancestor's) free GPUs before and after the gang's GPUs. So a decision
reads no node to rank these candidates; only the winner and the runner-up are packed.
The values are the ones :class:`~._terms.TermMeter` measures on the packed candidate (a
test compares both on random clusters).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang
from wlmap.placement.gangs.objective._candidates import ROOT, Candidate
from wlmap.placement.gangs.objective._choice import Scored, tie_breaks
from wlmap.placement.gangs.objective._domains import DomainIndex, GangRoom, IntArray
from wlmap.placement.gangs.objective._objective import Objective, TermName
from wlmap.placement.gangs.objective._table import FinestTable
from wlmap.placement.gangs.objective._terms import TermMeter

__all__ = ["fill_shape", "finest_scored", "finest_table", "node_fit", "parent_left", "scored"]

FloatArray = npt.NDArray[np.float64]


def fill_shape(room: GangRoom, pods: int, domains: IntArray) -> tuple[IntArray, IntArray]:
    """Same-node pod pairs and nodes used when ``pods`` pods fill each finest domain."""
    if pods == 1:  # a single pod: one node, no pairs, wherever it goes
        return np.zeros(len(domains), dtype=np.int64), np.ones(len(domains), dtype=np.int64)
    capacity = room.capacity
    topology = capacity.topology
    cells = capacity.histogram[len(topology.levels) - 1][domains][:, ::-1]
    free = np.arange(cells.shape[1] - 1, -1, -1, dtype=np.int64)
    if room.slice_level == len(topology.levels):
        rooms = (free // (room.per_pod * room.unit)) * room.unit
    else:
        rooms = free // room.per_pod
    reach = np.cumsum(cells * rooms, axis=1)
    paired = np.cumsum(cells * (rooms * (rooms - 1) // 2), axis=1)
    counted = np.cumsum(cells, axis=1)
    column = np.argmax(reach >= pods, axis=1)
    rows = np.arange(len(domains))
    earlier = column > 0
    before = np.where(earlier, reach[rows, column - 1], 0)
    size = np.maximum(rooms[column], 1)
    whole, left = np.divmod(pods - before, size)
    same = np.where(earlier, paired[rows, column - 1], 0) + whole * (size * (size - 1) // 2)
    same += left * (left - 1) // 2
    nodes = np.where(earlier, counted[rows, column - 1], 0) + whole + (left > 0)
    return same, nodes


def node_fit(cells: IntArray, gpus_per_pod: int) -> IntArray:
    """Per histogram row, the GPUs its tightest node that holds one pod keeps free after it.

    ``cells`` are per-domain histograms of nodes by free GPUs; a row with no such node gets
    the number of columns (worse than any node).
    """
    fits = cells[:, gpus_per_pod:] > 0
    found = fits.any(axis=1)
    left: IntArray = np.where(found, np.argmax(fits, axis=1), cells.shape[1]).astype(np.int64)
    return left


def parent_left(capacity: FreeCapacity, level: int, domains: IntArray, gpus: int) -> IntArray:
    """Free GPUs the parent of each of ``domains`` (of ``level``) keeps after ``gpus`` more.

    The parent of a top-level domain, and of the whole cluster (``ROOT``), is the cluster.
    """
    if level <= 0:
        total = int(capacity.domain_free[0].sum())
        return np.full(len(domains), total - gpus, dtype=np.int64)
    parents = capacity.topology.parent[level][domains]
    left: IntArray = capacity.domain_free[level - 1][parents].astype(np.int64) - gpus
    return left


def finest_table(
    objective: Objective,
    meter: TermMeter,
    index: DomainIndex,
    room: GangRoom,
    gang: Gang,
    domains: IntArray,
) -> FinestTable:
    """The candidates packing ``gang`` inside each of the finest ``domains`` (ascending)."""
    capacity = room.capacity
    finest = len(meter.topology.levels) - 1
    picked = np.asarray(domains, dtype=np.int64)
    same, nodes = fill_shape(room, gang.pods, picked)
    pairs = gang.pods * (gang.pods - 1) // 2
    cost = np.zeros(len(picked))
    if pairs:
        weights = meter.weights
        cost = (weights.levels[finest] * (pairs - same) + weights.node * same) / pairs
    values: dict[TermName, FloatArray] = {}
    for term in objective.used_terms():
        if term == "communication":
            values[term] = cost
        elif term == "priority":
            values[term] = cost * max(gang.priority, 0) / meter.priority_scale
        elif term == "wholeFreeDomains":
            up = meter.up(finest, meter.whole_level)[picked]
            level = meter.whole_level
            whole = capacity.domain_free[level][up] == capacity.capacity(level)[up]
            values[term] = whole.astype(np.float64)
        elif term == "spareCapacity":
            up = meter.up(finest, meter.spare_level)[picked]
            before = capacity.domain_free[meter.spare_level][up]
            keep = meter.spare[up]
            short = np.maximum(keep - (before - gang.gpus), 0) - np.maximum(keep - before, 0)
            values[term] = short.astype(np.float64)
        else:
            up = meter.up(finest, meter.balance_level)[picked]
            after = capacity.domain_free[meter.balance_level][up] - gang.gpus
            size = np.maximum(capacity.capacity(meter.balance_level)[up], 1)
            values[term] = 1.0 - after / size
    parts: dict[TermName, FloatArray] = {}
    score = np.zeros(len(picked))
    if objective.weights is not None:
        for t, v in values.items():
            parts[t] = objective.weights.of(t) * meter.normalised(t, v, gang, capacity)
            score = score + parts[t]
    keys: dict[str, IntArray] = {}
    for rule in tie_breaks(objective):
        if rule == "fewerSlotsLeft":
            keys[rule] = capacity.pod_slots(finest, gang.gpus_per_pod)[picked] - gang.pods
        elif rule == "tighterFit":
            keys[rule] = capacity.domain_free[finest][picked] - gang.gpus
        elif rule == "tighterNode":
            keys[rule] = node_fit(capacity.histogram[finest][picked], gang.gpus_per_pod)
        elif rule == "tighterParent":
            keys[rule] = parent_left(capacity, finest, picked, gang.gpus)
        elif rule == "fewerNodes":
            keys[rule] = nodes
        elif rule == "fewerDomains":
            keys[rule] = np.ones(len(picked), dtype=np.int64)
    return FinestTable(finest, picked, values, parts, score, keys)


def finest_scored(
    objective: Objective,
    meter: TermMeter,
    index: DomainIndex,
    room: GangRoom,
    gang: Gang,
    domains: list[int],
) -> list[Scored]:
    """The scored candidates packing ``gang`` inside each of the finest ``domains``."""
    if not domains:
        return []
    table = finest_table(objective, meter, index, room, gang, np.array(domains, dtype=np.int64))
    return [table.row(objective, i) for i in range(len(table))]


def scored(
    objective: Objective,
    meter: TermMeter,
    capacity: FreeCapacity,
    gang: Gang,
    candidate: Candidate,
) -> Scored:
    """A packed candidate with its terms measured."""
    nodes = np.fromiter((n for n, _ in candidate.nodes), dtype=np.int64)
    pods = np.fromiter((p for _, p in candidate.nodes), dtype=np.int64)
    terms = objective.used_terms()
    cost = meter.cost(gang, candidate.nodes) if terms else 0.0
    raw = {t: meter.raw(t, capacity, gang, nodes, pods, cost) for t in terms}
    parts: dict[TermName, float] = {}
    if objective.weights is not None:
        weights = objective.weights
        parts = {t: weights.of(t) * meter.normalised(t, v, gang, capacity) for t, v in raw.items()}
    topology = meter.topology
    finest = np.unique(topology.node_domain[len(topology.levels) - 1][nodes])
    if candidate.level == ROOT:
        left = int(capacity.node_free.sum()) - gang.gpus
        slots = int(capacity.pod_slots(0, gang.gpus_per_pod).sum()) - gang.pods
        cells = capacity.histogram[0].sum(axis=0, keepdims=True)
    else:
        level, domain = candidate.level, candidate.domain
        left = int(capacity.domain_free[level][domain]) - gang.gpus
        slots = int(capacity.pod_slots(level, gang.gpus_per_pod)[domain]) - gang.pods
        cells = capacity.histogram[level][domain : domain + 1]
    keys: list[object] = []
    for rule in tie_breaks(objective):
        if rule == "fewerSlotsLeft":
            keys.append(slots)
        elif rule == "tighterFit":
            keys.append(left)
        elif rule == "tighterNode":
            keys.append(int(node_fit(cells, gang.gpus_per_pod)[0]))
        elif rule == "tighterParent":
            at = np.array([candidate.domain], dtype=np.int64)
            keys.append(int(parent_left(capacity, candidate.level, at, gang.gpus)[0]))
        elif rule == "fewerNodes":
            keys.append(len(candidate.nodes))
        elif rule == "fewerDomains":
            keys.append(len(finest))
        elif len(finest) == 1:
            keys.append(((int(finest[0]),), ()))
        else:
            keys.append((tuple(finest.tolist()), tuple(n for n, _ in candidate.nodes)))
    return Scored(
        candidate.level, candidate.domain, candidate, raw, parts, sum(parts.values()), tuple(keys)
    )
