"""Every placement of a gang on a tiny cluster, for checking policies and the optimum.

Nothing here shares code with the policy or the solver: a placement is a vector of pods per
node, checked against the gang's rules as ``GangPolicy.place`` states them.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from wlmap.placement.gangs import FreeCapacity, Gang, GangPlacement, build_topology
from wlmap.placement.nodes import Node


def tiny_cluster(rng: np.random.Generator, racks: int = 2, nodes: int = 2) -> FreeCapacity:
    """Two blocks of ``racks`` racks of ``nodes`` 4-GPU nodes, each node partly used."""
    made = [
        Node(
            f"b{b}-r{r}-n{n}",
            64_000,
            262_144,
            4,
            "H100",
            labels={"block": f"b{b}", "rack": f"r{r}"},
        )
        for b in range(2)
        for r in range(racks)
        for n in range(nodes)
    ]
    capacity = FreeCapacity(build_topology(["block", "rack"], made))
    for node in range(len(made)):
        capacity.take(node, int(rng.integers(0, 5)))
    return capacity


def valid(capacity: FreeCapacity, gang: Gang, counts: tuple[int, ...]) -> bool:
    """Whether pods per node ``counts`` is a placement the gang accepts."""
    topology = capacity.topology
    node_level = len(topology.levels)
    used = [n for n, c in enumerate(counts) if c]
    if sum(counts) != gang.pods:
        return False
    if any(c * gang.gpus_per_pod > int(capacity.node_free[n]) for n, c in enumerate(counts)):
        return False
    if gang.required_level is not None:
        if gang.required_level == node_level:
            if len(used) != 1:
                return False
        elif len({int(topology.node_domain[gang.required_level][n]) for n in used}) != 1:
            return False
    if gang.slice_size and gang.slice_level is not None:
        per: dict[int, int] = {}
        for n in used:
            domain = (
                n
                if gang.slice_level == node_level
                else int(topology.node_domain[gang.slice_level][n])
            )
            per[domain] = per.get(domain, 0) + counts[n]
        if any(v % gang.slice_size for v in per.values()):
            return False
    return True


def placements(capacity: FreeCapacity, gang: Gang) -> Iterator[GangPlacement]:
    """Every valid placement of ``gang``."""
    rooms = [int(f) // gang.gpus_per_pod for f in capacity.node_free]

    def spread(node: int, left: int) -> Iterator[tuple[int, ...]]:
        if node == len(rooms):
            if left == 0:
                yield ()
            return
        for take in range(min(left, rooms[node]) + 1):
            for rest in spread(node + 1, left - take):
                yield (take, *rest)

    for counts in spread(0, gang.pods):
        if valid(capacity, gang, counts):
            yield GangPlacement(gang, tuple((n, c) for n, c in enumerate(counts) if c))


def random_gang(rng: np.random.Generator, name: str) -> Gang:
    """A small gang with a random required level, preferred level, slice and priority."""
    pods = int(rng.integers(1, 7))
    per_pod = int(rng.choice([1, 2, 4]))
    required = [None, 0, 1, 2][int(rng.integers(0, 4))]
    slice_size = int(rng.choice([0, 2])) if pods % 2 == 0 else 0
    slice_level = None
    if slice_size:
        floor = 0 if required is None else required
        slice_level = int(rng.integers(floor, 3))
    return Gang(
        name,
        pods=pods,
        gpus_per_pod=per_pod,
        required_level=required,
        preferred_level=None if rng.random() < 0.5 else int(rng.integers(0, 3)),
        slice_size=slice_size,
        slice_level=slice_level,
        priority=int(rng.integers(0, 200)),
    )
