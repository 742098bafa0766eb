"""Every baseline on many random states: valid when it places, None only when nothing fits.

Each state is a random cluster of one to three levels with random GPUs already taken, and a
random gang (size, GPUs per pod, required and preferred levels, slices). A placement must
put exactly the gang's pods on nodes with room, inside one domain of its required level,
with every slice domain holding whole slices; a policy answers None only when no domain of
the required level can hold every slice (counted here node by node, independently of the
policies' aggregates).
"""

from __future__ import annotations

import random

import pytest

from tests.unit.placement.gangs.baselines._world import busy, problems
from wlmap.placement.gangs import BASELINES, FreeCapacity, Gang, Topology, apply, build_topology
from wlmap.placement.nodes import Node

_STATES = 120


def _tree(rng: random.Random) -> Topology:
    """One to three levels, one to three domains under each parent, one to four nodes."""
    keys = ["spine", "block", "rack"][3 - rng.randint(1, 3) :]
    paths: list[tuple[str, ...]] = [()]
    for key in keys:
        paths = [(*p, f"{key[0]}{i}") for p in paths for i in range(rng.randint(1, 3))]
    nodes = [
        Node(
            f"{'-'.join(p)}-n{i}",
            1,
            1,
            rng.choice((4, 8)),
            "H100",
            labels=dict(zip(keys, p, strict=True)),
        )
        for p in paths
        for i in range(rng.randint(1, 4))
    ]
    return build_topology(keys, nodes)


def _state(rng: random.Random) -> tuple[FreeCapacity, list[Gang]]:
    topology = _tree(rng)
    node_level = len(topology.levels)
    used = {node.name: rng.randint(0, node.gpus) for node in topology.nodes if rng.random() < 0.6}
    capacity = busy(topology, used)
    gangs = []
    for _ in range(4):
        pods = rng.choice((1, 2, 3, 4, 6, 8, 12))
        size = rng.choice([s for s in (0, 2, 3, 4) if s == 0 or pods % s == 0])
        gangs.append(
            Gang(
                "g",
                pods,
                rng.choice((1, 2, 4)),
                required_level=rng.choice((None, None, *range(node_level + 1))),
                preferred_level=rng.choice((None, *range(node_level + 1))),
                slice_size=size,
                slice_level=rng.randint(0, node_level) if size else None,
            )
        )
    return capacity, gangs


def _feasible(capacity: FreeCapacity, gang: Gang) -> bool:
    topology = capacity.topology
    node_level = len(topology.levels)

    def group(level: int | None, node: int) -> int:
        if level is None:
            return 0
        return node if level == node_level else int(topology.node_domain[level][node])

    size = gang.slice_size or 1
    slice_level = gang.slice_level if gang.slice_size else node_level
    holds: dict[int, dict[int, int]] = {}
    for node in range(len(topology.nodes)):
        pods = int(capacity.node_free[node]) // gang.gpus_per_pod
        inner = holds.setdefault(group(gang.required_level, node), {})
        key = group(slice_level, node)
        inner[key] = inner.get(key, 0) + pods
    for inner in holds.values():
        if (
            gang.required_level is not None
            and slice_level is not None
            and slice_level <= gang.required_level
        ):
            total = sum(inner.values())
            if total >= gang.pods:
                return True
        elif sum(p // size for p in inner.values()) >= gang.pods // size:
            return True
    return False


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_placements_are_valid_and_none_means_nothing_fits(name: str) -> None:
    rng = random.Random(f"baselines:{name}")
    policy = BASELINES[name]()
    placed = 0
    for _ in range(_STATES):
        capacity, gangs = _state(rng)
        for gang in gangs:
            assert gang.problem(capacity.topology) is None
            before = capacity.node_free.copy()
            placement = policy.place(capacity, gang)
            assert (capacity.node_free == before).all(), "place() changed the capacity"
            if placement is None:
                if name == "slurm-block" and gang.slice_size:
                    continue  # a segment must fit in one block: stricter than the slice level
                assert not _feasible(capacity, gang), f"{name} found nothing for a feasible {gang}"
                continue
            assert problems(capacity, gang, placement) == [], (gang, placement)
            apply(capacity, placement)
            placed += 1
    assert placed > _STATES  # the states are not all hopeless


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_the_same_state_gives_the_same_placement(name: str) -> None:
    rng = random.Random("determinism")
    capacity, gangs = _state(rng)
    first = [BASELINES[name]().place(capacity, gang) for gang in gangs]
    again = [BASELINES[name]().place(capacity, gang) for gang in gangs]
    assert first == again
