"""The CP-SAT optimum equals the cheapest placement found by brute force on tiny clusters."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.placement.gangs.exact.brute_force import (
    placements,
    random_gang,
    tiny_cluster,
    valid,
)
from wlmap.placement.gangs import Gang, TierWeights, default_weights, measure, optimal_placement


@pytest.mark.parametrize(
    "weights",
    [default_weights(2), TierWeights(across=5.0, levels=(2.5, 0.5), node=0.25)],
    ids=["fabric", "fractional"],
)
def test_the_optimum_matches_brute_force(weights: TierWeights) -> None:
    rng = np.random.default_rng(7)
    compared = infeasible = 0
    for round_ in range(60):
        capacity = tiny_cluster(rng, racks=2, nodes=3)
        gang = random_gang(rng, f"g{round_}")
        costs = [measure(p, capacity.topology, weights).cost for p in placements(capacity, gang)]
        found = optimal_placement(capacity, gang, weights)
        if not costs:
            assert found is None, f"{gang} has no placement, CP-SAT returned {found}"
            infeasible += 1
            continue
        assert found is not None, f"{gang} has placements, CP-SAT found none"
        counts = [0] * len(capacity.node_free)
        for node, pods in found.placement.nodes:
            counts[node] = pods
        assert valid(capacity, gang, tuple(counts))
        assert found.proven
        assert found.cost == pytest.approx(min(costs)), f"{gang} on {capacity.node_free}"
        compared += 1
    assert compared > 20
    assert infeasible > 3


def test_a_gang_split_over_racks_fills_the_roomiest_nodes_of_the_fewest_racks() -> None:
    rng = np.random.default_rng(3)
    capacity = tiny_cluster(rng, racks=2, nodes=3)
    for node in range(len(capacity.node_free)):
        capacity.give(node, 4 - int(capacity.node_free[node]))
    # Every node free (4 GPUs). Eight 1-GPU pods: two whole nodes of one rack, all pairs
    # in the rack; 2 x C(4, 2) = 12 same-node pairs of 28 cost 0, the other 16 cost 1.
    found = optimal_placement(capacity, Gang("g", pods=8, gpus_per_pod=1))
    assert found is not None
    assert found.placement.nodes == ((0, 4), (1, 4))
    assert found.cost == pytest.approx(16 / 28)


def test_a_gang_required_on_one_node_takes_the_first_node_that_holds_it() -> None:
    rng = np.random.default_rng(5)
    capacity = tiny_cluster(rng)
    gang = Gang("g", pods=2, gpus_per_pod=2, required_level=2)
    found = optimal_placement(capacity, gang)
    first = int(np.flatnonzero(capacity.node_free >= 4)[0])
    assert found is not None
    assert found.placement.nodes == ((first, 2),)
    assert found.cost == 0.0
