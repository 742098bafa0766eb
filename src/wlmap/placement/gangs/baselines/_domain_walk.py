"""Per-topology lookups the baselines share: children, ancestors, and slice capacity.

A :class:`Topology` knows each node's domain per level and each domain's parent. The
baselines also walk down (a domain's children) and up from a domain (its ancestor at a
coarser level); both are built once per topology and kept while the topology lives.

Levels are indices: ``0`` is the coarsest, ``len(levels)`` the node level, where a
"domain" is a node.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang
from wlmap.placement.gangs.tree import Topology

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class TreeIndex:
    """Downward and upward links of a topology's domains.

    Attributes:
        children: per level ``l`` below the node level, the domains of level ``l + 1`` (nodes
            when ``l + 1`` is the node level) inside each domain of ``l``, ascending.
        ancestor: ``ancestor[l][a]`` maps each domain of level ``l`` to its domain at the
            coarser level ``a <= l``; the node level is ``node_domain``.
    """

    children: tuple[tuple[IntArray, ...], ...]
    ancestor: tuple[tuple[IntArray, ...], ...]


_CACHE: weakref.WeakKeyDictionary[Topology, TreeIndex] = weakref.WeakKeyDictionary()


def tree_index(topology: Topology) -> TreeIndex:
    """The (cached) children and ancestor links of ``topology``."""
    found = _CACHE.get(topology)
    if found is None:
        found = _build(topology)
        _CACHE[topology] = found
    return found


def _build(topology: Topology) -> TreeIndex:
    node_level = len(topology.levels)
    children: list[tuple[IntArray, ...]] = []
    for level in range(node_level):
        if level + 1 == node_level:
            children.append(topology.members[level])
            continue
        up = topology.parent[level + 1]
        order = np.argsort(up, kind="stable").astype(np.int64)
        bounds = np.searchsorted(up[order], np.arange(topology.domain_count(level) + 1))
        children.append(
            tuple(order[bounds[i] : bounds[i + 1]] for i in range(topology.domain_count(level)))
        )
    ancestor: list[tuple[IntArray, ...]] = []
    for level in range(node_level + 1):
        if level == node_level:
            ancestor.append(tuple(topology.node_domain))
            continue
        first = np.array([int(m[0]) for m in topology.members[level]], dtype=np.int64)
        ancestor.append(tuple(topology.node_domain[a][first] for a in range(level + 1)))
    return TreeIndex(tuple(children), tuple(ancestor))


def effective_slice(gang: Gang) -> tuple[int, int] | None:
    """The gang's (slice size, slice level), or None when slices add no constraint.

    A slice level at or above the required level is implied by the required level: every
    slice lies in the one required domain, which lies in one slice-level domain.
    """
    if not gang.slice_size or gang.slice_level is None:
        return None
    if gang.required_level is not None and gang.slice_level <= gang.required_level:
        return None
    if gang.slice_size == 1:
        return None
    return gang.slice_size, gang.slice_level


def slices_under(gang: Gang, level: int) -> tuple[int, int] | None:
    """The gang's slices once it is inside one domain of ``level`` (-1: the cluster).

    None when the gang has no slices or when that domain lies inside one slice domain.
    """
    sliced = effective_slice(gang)
    if sliced is None or (level >= 0 and level >= sliced[1]):
        return None
    return sliced


def unit_capacity(capacity: FreeCapacity, gang: Gang, level: int) -> IntArray:
    """Per domain of ``level``: how many of the gang's units (whole slices, else pods) fit.

    Slices are counted at their slice level and summed upwards. A domain finer than the
    slice level either holds every pod, and then every slice (they all sit in the one slice
    domain around it), or is counted as holding none.
    """
    sliced = effective_slice(gang)
    if sliced is None:
        return capacity.pod_slots(level, gang.gpus_per_pod)
    size, slice_level = sliced
    if level > slice_level:
        whole = capacity.pod_slots(level, gang.gpus_per_pod) >= gang.pods
        return np.where(whole, gang.pods // size, 0).astype(np.int64)
    per_slice_domain = capacity.pod_slots(slice_level, gang.gpus_per_pod) // size
    if level == slice_level:
        return per_slice_domain
    up = tree_index(capacity.topology).ancestor[slice_level][level]
    return np.bincount(
        up, weights=per_slice_domain, minlength=_count(capacity.topology, level)
    ).astype(np.int64)


def units_needed(gang: Gang) -> int:
    """How many units the gang is: its slices, or its pods when it has none."""
    sliced = effective_slice(gang)
    return gang.pods if sliced is None else gang.pods // sliced[0]


def _count(topology: Topology, level: int) -> int:
    return len(topology.nodes) if level == len(topology.levels) else topology.domain_count(level)


def domain_count(topology: Topology, level: int) -> int:
    """Domains of ``level``; nodes at the node level."""
    return _count(topology, level)


def nodes_of(topology: Topology, level: int, domain: int) -> IntArray:
    """The nodes of one domain, ascending; the node itself at the node level."""
    if level == len(topology.levels):
        return np.array([domain], dtype=np.int64)
    return topology.members[level][domain]


def subdomains(topology: Topology, level: int, domain: int, finer: int) -> IntArray:
    """The domains of level ``finer`` inside ``domain`` of ``level``, ascending."""
    if finer == level:
        return np.array([domain], dtype=np.int64)
    if finer == len(topology.levels):
        return nodes_of(topology, level, domain)
    up = tree_index(topology).ancestor[finer][level]
    return np.flatnonzero(up == domain).astype(np.int64)
