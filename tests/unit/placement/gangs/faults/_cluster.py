"""A seven-node cluster small enough to work every recovery out by hand.

block b1: rack r1 = n0 n1 n2, rack r2 = n3 n4; block b2: rack r3 = n5 n6; 4 GPUs each.
Levels: 0 = block, 1 = rack, 2 = node.
"""

from __future__ import annotations

from wlmap.placement.gangs import FreeCapacity, Gang, GangPlacement, Topology, apply, build_topology
from wlmap.placement.nodes import Node

RACKS = (
    ("b1", "r1"),
    ("b1", "r1"),
    ("b1", "r1"),
    ("b1", "r2"),
    ("b1", "r2"),
    ("b2", "r3"),
    ("b2", "r3"),
)


def cluster() -> Topology:
    nodes = [
        Node(f"n{i}", 1_000, 1_024, 4, "G", labels={"block": block, "rack": rack})
        for i, (block, rack) in enumerate(RACKS)
    ]
    return build_topology(["block", "rack"], nodes)


def running(
    gang: Gang, nodes: dict[int, int], busy: dict[int, int] | None = None
) -> tuple[FreeCapacity, GangPlacement]:
    """Capacity with ``gang`` on ``nodes`` (node -> pods) and other work on ``busy`` (GPUs)."""
    capacity = FreeCapacity(cluster())
    placement = GangPlacement(gang, tuple(sorted(nodes.items())))
    apply(capacity, placement)
    for node, gpus in (busy or {}).items():
        capacity.take(node, gpus)
    return capacity, placement


def fail(
    capacity: FreeCapacity, placement: GangPlacement, nodes: list[int]
) -> tuple[GangPlacement, tuple[tuple[int, int], ...]]:
    """Fail ``nodes`` whole: their pods are lost; return the survivors and the lost pods."""
    per_pod = placement.gang.gpus_per_pod
    lost = tuple((n, p) for n, p in placement.nodes if n in nodes)
    for node, pods in lost:
        capacity.give(node, pods * per_pod)
    for node in nodes:
        capacity.remove(node, int(capacity.node_free[node]))
    kept = tuple((n, p) for n, p in placement.nodes if n not in nodes)
    return GangPlacement(placement.gang, kept), lost
