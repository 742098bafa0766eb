"""Why a gang does not fit: the binding constraint, and whose finishing would make room.

The constraint is named per level and resource, from the free capacity alone:

- a pod larger than any node never fits;
- with a required level, the gang's GPUs must be free in one domain of it: the emptiest
  domain's free GPUs are reported, and when a domain has the GPUs but its free GPUs are
  split across nodes in pieces smaller than a pod, that is said instead;
- without one, the cluster as a whole;
- slices must each fit in one domain of the slice level.

Then, for each workload holding GPUs (largest first), its GPUs are given back on the
capacity, the domains that would then fit are counted, and they are taken again: the
workloads whose finishing alone makes room are listed, fewest GPUs first. When none does
alone, the workloads in the roomiest domain are added, largest first, until it fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs import FreeCapacity, Gang
from wlmap.placement.plan.occupancy import HeldGpus, Occupancy
from wlmap.placement.plan.room import CLUSTER, ancestors, domain_room, level_key, level_word

__all__ = ["Relief", "Shortfall", "shortfall"]

MAX_RELIEFS = 3
MAX_NAMED = 3  # workloads named in a reason; the data lists them all
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Relief:
    """Workloads whose pods, once finished, leave room for the gang.

    Attributes:
        workloads: the workloads (one, or several together).
        gpus: the GPUs they hold in the domains that would fit.
        domains: how many domains of the required level would fit (1 for the cluster).
        where: the names of the domains they hold GPUs in.
    """

    workloads: tuple[str, ...]
    gpus: int
    domains: int
    where: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Shortfall:
    """The binding constraint of a gang that does not fit.

    Attributes:
        level: the label key of the level one domain of which must hold the gang; None for
            the whole cluster.
        needed_gpus: GPUs the gang takes.
        best_domain: the domain with the most room, by name (``cluster`` without a level).
        best_free: free GPUs in the emptiest domain.
        best_room: pods the roomiest domain can take.
        fits_when_empty: domains that could hold the gang on an empty cluster.
        reliefs: workloads whose finishing would make room.
        text: the reason in one line.
    """

    level: str | None
    needed_gpus: int
    best_domain: str
    best_free: int
    best_room: int
    fits_when_empty: int
    reliefs: tuple[Relief, ...]
    text: str


def shortfall(occupancy: Occupancy, gang: Gang) -> Shortfall:
    """Why ``gang`` does not fit on ``occupancy`` now."""
    capacity, topology = occupancy.capacity, occupancy.topology
    level = CLUSTER if gang.required_level is None else gang.required_level
    word = level_word(topology, level)
    need = f"needs {gang.gpus} GPUs ({gang.pods} pods x {gang.gpus_per_pod})"
    where = (
        "" if level == CLUSTER else f" in one {word} (required level {level_key(topology, level)})"
    )
    if gang.slice_size and gang.slice_level is not None:
        where += (
            f", in slices of {gang.slice_size} pods per {level_word(topology, gang.slice_level)}"
        )
    key = None if level == CLUSTER else level_key(topology, level)
    largest = int(topology.gpus.max(initial=0))
    room = domain_room(capacity, gang, level)
    free = _free(capacity, level)
    best = int(np.argmax(room))
    emptiest = int(np.argmax(free))
    empty = _empty_fits(capacity, gang, level)

    def done(text: str, reliefs: tuple[Relief, ...] = ()) -> Shortfall:
        return Shortfall(
            level=key,
            needed_gpus=gang.gpus,
            best_domain=_name(occupancy, level, best),
            best_free=int(free[emptiest]),
            best_room=int(room[best]),
            fits_when_empty=empty,
            reliefs=reliefs,
            text=text,
        )

    if gang.gpus_per_pod > largest:
        return done(f"{need}; no node has {gang.gpus_per_pod} GPUs (the largest has {largest})")
    if empty == 0:
        most = int(domain_room(FreeCapacity(topology), gang, level).max(initial=0))
        return done(
            f"{need}{where}; no {word} could hold it even with every GPU free "
            f"(the roomiest takes {most} pods of {gang.gpus_per_pod})"
        )
    if level == CLUSTER:
        now = f"the cluster has {int(free[0])} free GPUs"
    else:
        now = f"the emptiest {word}, {_name(occupancy, level, emptiest)}, has {int(free[emptiest])} free"
    if int(free[emptiest]) >= gang.gpus or (level == CLUSTER and int(free[0]) >= gang.gpus):
        now += (
            f" but room for only {int(room[best])} pods of {gang.gpus_per_pod} "
            "(its free GPUs are split across nodes)"
        )
    reliefs = _reliefs(occupancy, gang, level)
    text = f"{need}{where}; {now}"
    if reliefs:
        text += "; " + "; ".join(_relief_text(r, word, level) for r in reliefs)
    else:
        text += "; no running workload's finishing would make room"
    return done(text, reliefs)


def _free(capacity: FreeCapacity, level: int) -> IntArray:
    if level == CLUSTER:
        return np.array([int(capacity.node_free.sum())], dtype=np.int64)
    if level == len(capacity.topology.levels):
        return capacity.node_free
    return capacity.domain_free[level]


def _empty_fits(capacity: FreeCapacity, gang: Gang, level: int) -> int:
    """Domains that could hold the gang with nothing running."""
    empty = FreeCapacity(capacity.topology)
    return int(np.count_nonzero(domain_room(empty, gang, level) >= gang.pods))


def _name(occupancy: Occupancy, level: int, domain: int) -> str:
    return "cluster" if level == CLUSTER else occupancy.topology.domain_name(level, domain)


def _reliefs(occupancy: Occupancy, gang: Gang, level: int) -> tuple[Relief, ...]:
    capacity = occupancy.capacity
    alone: list[Relief] = []
    for workload in occupancy.workloads():
        held = occupancy.held_by(workload)
        fits = _fits_without(occupancy, gang, level, held)
        if fits:
            alone.append(_relief(occupancy, (workload,), held, fits, level))
    if alone:
        return tuple(sorted(alone, key=lambda r: (r.gpus, -r.domains, r.workloads))[:MAX_RELIEFS])
    # none alone: add the holders of the roomiest domain, largest first, until it fits
    room = domain_room(capacity, gang, level)
    best = int(np.argmax(room))
    node_to_domain = ancestors(occupancy.topology, level, len(occupancy.topology.levels))
    inside = [h for h in occupancy.held if int(node_to_domain[h.node]) == best]
    totals: dict[str, int] = {}
    for h in inside:
        totals[h.workload] = totals.get(h.workload, 0) + h.gpus
    chosen: list[str] = []
    for workload in sorted(totals, key=lambda w: (-totals[w], w)):
        chosen.append(workload)
        named = set(chosen)
        held = [h for h in inside if h.workload in named]
        fits = _fits_without(occupancy, gang, level, held)
        if fits:
            return (_relief(occupancy, tuple(chosen), held, fits, level),)
    return ()


def _fits_without(occupancy: Occupancy, gang: Gang, level: int, held: Sequence[HeldGpus]) -> int:
    """Domains that would fit were ``held`` given back (the capacity is left as it was)."""
    capacity = occupancy.capacity
    for h in held:
        capacity.give(h.node, h.gpus)
    try:
        return int(np.count_nonzero(domain_room(capacity, gang, level) >= gang.pods))
    finally:
        for h in held:
            capacity.take(h.node, h.gpus)


def _relief(
    occupancy: Occupancy,
    workloads: tuple[str, ...],
    held: Sequence[HeldGpus],
    domains: int,
    level: int,
) -> Relief:
    topology = occupancy.topology
    if level == CLUSTER:
        where: tuple[str, ...] = ()
    else:
        of_node = ancestors(topology, level, len(topology.levels))
        where = tuple(sorted({topology.domain_name(level, int(of_node[h.node])) for h in held}))
    return Relief(workloads, sum(h.gpus for h in held), domains, where)


def _relief_text(relief: Relief, word: str, level: int) -> str:
    names = " and ".join(relief.workloads)
    if len(relief.workloads) > MAX_NAMED:
        rest = len(relief.workloads) - MAX_NAMED
        names = ", ".join(relief.workloads[:MAX_NAMED]) + f" and {rest} more workloads"
    them = "it holds" if len(relief.workloads) == 1 else "they hold"
    plural = "s" if len(relief.where) > 1 else ""
    inside = f" in {word}{plural} {', '.join(relief.where)}" if relief.where else ""
    fits = (
        "it would fit"
        if level == CLUSTER
        else f"{relief.domains} {word}{'' if relief.domains == 1 else 's'} would fit"
    )
    return f"{fits} if the pods of {names} finished ({them} {relief.gpus} GPUs{inside})"
