"""Candidate placements of one gang: the best packing inside each feasible domain.

Which domains are candidates (Kueue's walk up the levels, KEP 2724 "Computing the
assignment"; Volcano's lowest feasible tier):

- under a required level, only domains inside one domain of that level; with a preferred
  level that some domain can hold, only domains inside one preferred-level domain;
- every domain of the finest level that can hold the whole gang, then every coarser domain
  (up to the required or preferred level, or the whole cluster without one) that can hold
  it although none of its children can: a coarser domain whose child holds the gang would
  only repeat that child's candidate.

The packing inside a domain follows Kueue's BestFit: when one child holds the rest, take the
tightest such child; otherwise take children by most room first (which concentrates pods,
and so pod pairs, in as few children as the room allows) and the last one as the tightest
that holds what is left. Ties go to the lower domain or node index. Rooms come from the
per-domain histograms (``FreeCapacity.pod_slots``); only the nodes of the domains a packing
enters are read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wlmap.placement.gangs.gang import Gang
from wlmap.placement.gangs.objective._domains import DomainIndex, GangRoom, IntArray

__all__ = [
    "ROOT",
    "Candidate",
    "build",
    "candidate_domains",
    "candidate_split",
    "candidates",
    "fill",
]

ROOT = -1


@dataclass(frozen=True, slots=True)
class Candidate:
    """One way to place the gang: the domain it stays in and the pods per node.

    Attributes:
        level: the domain's level; ``ROOT`` for the whole cluster.
        domain: the domain's index at that level (0 for the whole cluster).
        nodes: (node, pods) pairs, nodes ascending.
    """

    level: int
    domain: int
    nodes: tuple[tuple[int, int], ...]


def candidates(index: DomainIndex, room: GangRoom, gang: Gang) -> list[Candidate]:
    """Every candidate placement of ``gang``; empty when it does not fit whole."""
    return [build(index, room, lv, d, gang.pods) for lv, d in candidate_domains(index, room, gang)]


def candidate_domains(index: DomainIndex, room: GangRoom, gang: Gang) -> list[tuple[int, int]]:
    """The (level, domain) of every candidate, finest level first, indices ascending."""
    finest, coarser = candidate_split(index, room, gang)
    level = len(index.topology.levels) - 1
    return [(level, int(d)) for d in finest] + coarser


def candidate_split(
    index: DomainIndex, room: GangRoom, gang: Gang
) -> tuple[IntArray, list[tuple[int, int]]]:
    """The candidates' finest-level domains (ascending), and the (level, domain) of the rest."""
    topology = index.topology
    node_level = len(topology.levels)
    finest = node_level - 1
    pods = gang.pods
    if node_level in (gang.required_level, gang.preferred_level):
        one_node = _one_node_domains(room, gang)
        if gang.required_level == node_level or len(one_node):
            return one_node, []
    top = gang.required_level if gang.required_level is not None else ROOT
    preferred = gang.preferred_level
    if (
        preferred is not None
        and top < preferred < node_level
        and np.any(room.levels[preferred] >= pods)
    ):
        top = preferred
    fine = np.flatnonzero(room.levels[finest] >= pods)
    found: list[tuple[int, int]] = []
    for level in range(finest - 1, max(top, 0) - 1, -1):
        feasible = room.levels[level] >= pods
        if not feasible.any():
            continue
        child_best = np.zeros(len(feasible), dtype=np.int64)
        np.maximum.at(child_best, topology.parent[level + 1], room.levels[level + 1])
        feasible &= child_best < pods
        found.extend((level, int(d)) for d in np.flatnonzero(feasible))
    if top == ROOT and not len(fine) and not found and int(room.levels[0].sum()) >= pods:
        found.append((ROOT, 0))
    return fine, found


def _one_node_domains(room: GangRoom, gang: Gang) -> IntArray:
    """Finest domains with a node that holds the whole gang."""
    capacity = room.capacity
    finest = len(capacity.topology.levels) - 1
    need = gang.pods * gang.gpus_per_pod
    cells = capacity.histogram[finest]
    if need >= cells.shape[1]:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(cells[:, need:].sum(axis=1) > 0)


def build(index: DomainIndex, room: GangRoom, level: int, domain: int, pods: int) -> Candidate:
    """The candidate packing ``pods`` pods inside ``domain`` of ``level``."""
    out: list[tuple[int, int]] = []
    fill(index, room, level, domain, pods, out)
    return Candidate(level, domain, tuple(sorted(out)))


def fill(
    index: DomainIndex,
    room: GangRoom,
    level: int,
    domain: int,
    pods: int,
    out: list[tuple[int, int]],
) -> None:
    """Append to ``out`` the (node, pods) pairs of ``pods`` pods packed inside ``domain``.

    The caller makes sure the domain has room for them.
    """
    if level == len(index.topology.levels):
        out.append((domain, pods))
        return
    kids = index.children[level][domain]
    rooms = room.of(level + 1, kids)
    free = room.free(level + 1, kids)
    tight = _tightest(kids, rooms, free, pods)
    if tight >= 0:
        fill(index, room, level + 1, int(kids[tight]), pods, out)
        return
    order = np.lexsort((free, -rooms))
    left = pods
    for position, child in enumerate(order):
        take = int(rooms[child])
        if take >= left:
            rest = order[position:]
            last = rest[_tightest(kids[rest], rooms[rest], free[rest], left)]
            fill(index, room, level + 1, int(kids[last]), left, out)
            return
        fill(index, room, level + 1, int(kids[child]), take, out)
        left -= take
    raise ValueError(f"domain {domain} of level {level} has no room for {pods} pods")


def _tightest(kids: IntArray, rooms: IntArray, free: IntArray, pods: int) -> int:
    """Position of the child with the least room that still holds ``pods``, or -1.

    Among children with the same room, the one with the fewest free GPUs: a pod of 4 GPUs
    goes to a node with 4 free rather than one with 5, as a best fit on GPUs does (rooms
    count pods, so they tie there).
    """
    fits = np.flatnonzero(rooms >= pods)
    if not len(fits):
        return -1
    return int(fits[np.lexsort((kids[fits], free[fits], rooms[fits]))[0]])
