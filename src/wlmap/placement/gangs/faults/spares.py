"""Idle nodes held out of normal placement, lent to gangs that lost nodes.

``k`` percent of the nodes of every domain of a level (the finest by default) are spares.
A domain of ``n`` nodes holds ``k * n / 100`` spares, the fractions carried from one domain
to the next in index order so that the cluster holds ``round(k * N / 100)`` in all and
small domains are not each rounded up to a whole node; a domain's spares are its last
members. 5 % matches the over-provisioning the NCSA Delta study projects to absorb GPU
failures at scale.

Spare GPUs are held by taking them from :class:`FreeCapacity`, so no placement policy sees
them; :meth:`SparePool.lend` gives a spare's GPUs back just before a reaction takes them,
and :meth:`SparePool.refill` takes back what a spare node has free again (its borrower
finished, or it was repaired).
"""

from __future__ import annotations

from wlmap.placement.gangs.capacity import FreeCapacity

__all__ = ["SparePool"]


class SparePool:
    """The spare nodes of a topology and the GPUs they hold in reserve.

    Attributes:
        percent: the share of nodes per domain kept spare.
        nodes: the spare node indices, ascending.
        held: per spare node, GPUs currently held in reserve.
    """

    def __init__(self, capacity: FreeCapacity, percent: float, level: int | None = None) -> None:
        topology = capacity.topology
        at = len(topology.levels) - 1 if level is None else level
        chosen: list[int] = []
        carry = 0.0
        for members in topology.members[at]:
            want = percent * len(members) / 100.0 + carry
            count = min(int(want + 1e-9), len(members))
            carry = want - count
            chosen.extend(int(n) for n in members[len(members) - count :])
        self.percent = percent
        self.nodes: tuple[int, ...] = tuple(sorted(chosen))
        self.held: dict[int, int] = dict.fromkeys(self.nodes, 0)
        self.refill(capacity, self.nodes)

    def is_spare(self, node: int) -> bool:
        """Whether ``node`` is one of the spares."""
        return node in self.held

    def refill(self, capacity: FreeCapacity, nodes: tuple[int, ...] | list[int]) -> None:
        """Hold again every free GPU of the spare nodes among ``nodes``."""
        for node in nodes:
            if node in self.held:
                free = int(capacity.node_free[node])
                if free:
                    capacity.take(node, free)
                    self.held[node] += free

    def lend(self, capacity: FreeCapacity, node: int, gpus: int) -> None:
        """Free ``gpus`` held GPUs of spare ``node`` so a reaction can take them."""
        if gpus > self.held.get(node, 0):
            raise ValueError(f"spare node {node} holds {self.held.get(node, 0)} GPUs, not {gpus}")
        self.held[node] -= gpus
        capacity.give(node, gpus)

    def drop(self, capacity: FreeCapacity, node: int) -> None:
        """Free every held GPU of ``node`` (it failed: its GPUs leave service next)."""
        held = self.held.get(node, 0)
        if held:
            self.held[node] = 0
            capacity.give(node, held)
