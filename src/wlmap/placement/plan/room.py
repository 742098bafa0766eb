"""How many pods of a gang each domain can take now, slices kept whole.

A domain of the required level can take a gang when its nodes have room for every pod
(``free // gpus_per_pod`` per node, summed) and, with slices, when its domains of the slice
level hold enough whole slices: each slice-level domain takes ``room // slice_size``
slices. A slice level at or above the required level adds nothing, since the gang's one
domain then lies inside one slice-level domain. Without a required level the cluster is
the one domain. These are the conditions Kueue's TAS checks (KEP 2724 "two-level
topology": slices first, then the podset), and the policies' candidates obey them too.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs import HOSTNAME_LABEL, FreeCapacity, Gang, Topology

__all__ = ["CLUSTER", "ancestors", "domain_room", "level_key", "level_word"]

IntArray = npt.NDArray[np.int64]
CLUSTER = -1  # the level of the whole cluster, for a gang without a required level


def level_key(topology: Topology, level: int) -> str:
    """A level's label key; the node level is ``kubernetes.io/hostname``."""
    return topology.levels[level] if level < len(topology.levels) else HOSTNAME_LABEL


def level_word(topology: Topology, level: int) -> str:
    """A level as a word: ``rack`` for ``cloud.provider.com/topology-rack``; ``node``."""
    if level == CLUSTER:
        return "cluster"
    if level >= len(topology.levels):
        return "node"
    return topology.levels[level].rsplit("/", 1)[-1].rsplit("-", 1)[-1] or topology.levels[level]


def ancestors(topology: Topology, level: int, finer: int) -> IntArray:
    """For each domain of ``finer`` (each node at the node level), its domain at ``level``."""
    if level == CLUSTER:
        size = (
            len(topology.nodes) if finer == len(topology.levels) else topology.domain_count(finer)
        )
        return np.zeros(size, dtype=np.int64)
    if finer == len(topology.levels):
        return topology.node_domain[level]
    first = np.array([int(m[0]) for m in topology.members[finer]], dtype=np.int64)
    return topology.node_domain[level][first]


def domain_room(capacity: FreeCapacity, gang: Gang, level: int) -> IntArray:
    """Pods of ``gang`` each domain of ``level`` can take now (one value for ``CLUSTER``)."""
    topology = capacity.topology
    node_level = len(topology.levels)
    per = gang.gpus_per_pod
    count = 1 if level == CLUSTER else (len(topology.nodes) if level == node_level else None)
    if count is None:
        count = topology.domain_count(level)
    slice_level = gang.slice_level
    if gang.slice_size and slice_level is not None and (level == CLUSTER or slice_level > level):
        slots = capacity.pod_slots(slice_level, per)
        whole = (slots // gang.slice_size) * gang.slice_size
        return np.bincount(
            ancestors(topology, level, slice_level), weights=whole, minlength=count
        ).astype(np.int64)
    if level == CLUSTER:
        return np.array([int(capacity.pod_slots(node_level, per).sum())], dtype=np.int64)
    return capacity.pod_slots(level, per)
