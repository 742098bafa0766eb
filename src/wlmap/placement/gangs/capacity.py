"""Free whole GPUs per node and per domain, kept up to date one placement at a time.

Besides each node's free GPUs, every domain keeps a histogram: how many of its nodes have
0, 1, 2, ... free GPUs. A pod of ``g`` GPUs fits ``free // g`` times on a node, so the pods
of that size a whole domain can take is the histogram weighted by ``k // g``: one small
matrix product for every domain of a level, however many nodes there are. Taking or giving
back GPUs on one node changes one histogram cell pair per level, never a rescan of nodes.

A node can lose GPUs for a while (it failed, or one of its GPUs did): :meth:`FreeCapacity.remove`
takes free GPUs out of service and :meth:`FreeCapacity.restore` brings them back after repair.
A removed GPU is neither free nor usable, so every policy sees the smaller node at once.

Only whole GPUs are tracked here: gangs that span nodes use whole GPUs. Fractional GPU
sharing is :class:`wlmap.placement.packing.cluster_state.ClusterState`'s concern.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs.tree import Topology

__all__ = ["FreeCapacity"]

IntArray = npt.NDArray[np.int64]


class FreeCapacity:
    """Free GPUs of every node and domain of a topology; ``take``/``give`` change them.

    Attributes:
        topology: the topology the counts follow.
        node_free: free GPUs per node.
        usable: GPUs per node in service (the topology's count minus removed ones).
        domain_free: per level, free GPUs per domain.
        histogram: per level, shape (domains, most GPUs on a node + 1): how many nodes of
            the domain have each number of free GPUs.
    """

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.node_free: IntArray = topology.gpus.copy()
        self.usable: IntArray = topology.gpus.copy()
        width = int(topology.gpus.max(initial=0)) + 1
        self.domain_free: list[IntArray] = []
        self.histogram: list[IntArray] = []
        for level in range(len(topology.levels)):
            count = topology.domain_count(level)
            of_node = topology.node_domain[level]
            self.domain_free.append(
                np.bincount(of_node, weights=self.node_free, minlength=count).astype(np.int64)
            )
            cells = np.zeros((count, width), dtype=np.int64)
            np.add.at(cells, (of_node, self.node_free), 1)
            self.histogram.append(cells)
        self._capacity = [free.copy() for free in self.domain_free]

    def take(self, node: int, gpus: int) -> None:
        """Mark ``gpus`` GPUs of ``node`` as used.

        Raises:
            ValueError: the node has fewer free GPUs, or ``gpus`` is negative.
        """
        before = int(self.node_free[node])
        if gpus < 0 or gpus > before:
            raise ValueError(
                f"node {self.topology.nodes[node].name} has {before} free GPUs, cannot take {gpus}"
            )
        self._move(node, before, before - gpus)

    def give(self, node: int, gpus: int) -> None:
        """Give ``gpus`` GPUs of ``node`` back.

        Raises:
            ValueError: the node would have more free GPUs than it has, or ``gpus`` is negative.
        """
        before = int(self.node_free[node])
        if gpus < 0 or before + gpus > int(self.usable[node]):
            raise ValueError(
                f"node {self.topology.nodes[node].name} has {before} of {int(self.usable[node])} "
                f"GPUs free, cannot give back {gpus}"
            )
        self._move(node, before, before + gpus)

    def remove(self, node: int, gpus: int) -> None:
        """Take ``gpus`` free GPUs of ``node`` out of service (a failure; the pods are gone).

        Release the pods that ran on the lost GPUs first: only free GPUs can be removed.

        Raises:
            ValueError: the node has fewer free GPUs, or ``gpus`` is negative.
        """
        self.take(node, gpus)
        self.usable[node] -= gpus

    def restore(self, node: int, gpus: int) -> None:
        """Bring ``gpus`` removed GPUs of ``node`` back into service, free (a repair).

        Raises:
            ValueError: the node would have more GPUs than it was built with.
        """
        usable = int(self.usable[node])
        if gpus < 0 or usable + gpus > int(self.topology.gpus[node]):
            raise ValueError(
                f"node {self.topology.nodes[node].name} has {usable} of "
                f"{int(self.topology.gpus[node])} GPUs in service, cannot restore {gpus}"
            )
        self.usable[node] += gpus
        self.give(node, gpus)

    def _move(self, node: int, before: int, after: int) -> None:
        self.node_free[node] = after
        for level, of_node in enumerate(self.topology.node_domain):
            domain = int(of_node[node])
            cells = self.histogram[level]
            cells[domain, before] -= 1
            cells[domain, after] += 1
            self.domain_free[level][domain] += after - before

    def pod_slots(self, level: int, gpus_per_pod: int) -> IntArray:
        """How many pods of ``gpus_per_pod`` GPUs each domain of ``level`` can take.

        At the node level (``level == len(topology.levels)``) it is per node.
        """
        if gpus_per_pod < 1:
            raise ValueError(f"gpus_per_pod must be >= 1, got {gpus_per_pod}")
        if level == len(self.topology.levels):
            return self.node_free // gpus_per_pod
        fits = np.arange(self.histogram[level].shape[1], dtype=np.int64) // gpus_per_pod
        return self.histogram[level] @ fits

    def whole_free(self, level: int) -> int:
        """How many domains of ``level`` have every GPU free (fragmentation at domain level)."""
        free = self.domain_free[level]
        return int(np.count_nonzero((free == self._capacity[level]) & (free > 0)))

    def capacity(self, level: int) -> IntArray:
        """GPUs per domain of ``level`` when the cluster is empty."""
        return self._capacity[level]
