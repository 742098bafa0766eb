"""wlmap's gang policy never breaks a rule and places a gang whenever it can be placed.

Checked on seeded random tiny clusters against every placement enumerated by brute force.
"""

from __future__ import annotations

import numpy as np

from tests.unit.placement.gangs.exact.brute_force import (
    placements,
    random_gang,
    tiny_cluster,
    valid,
)
from wlmap.placement.gangs import apply, default_objective, make_wlmap_gang_policy


def test_placements_keep_required_levels_and_slices_and_exist_whenever_one_does() -> None:
    rng = np.random.default_rng(11)
    policy = make_wlmap_gang_policy(default_objective())
    placed = refused = 0
    for round_ in range(60):
        capacity = tiny_cluster(rng)
        for index in range(4):
            gang = random_gang(rng, f"g{round_}.{index}")
            placement = policy.place(capacity, gang)
            possible = next(placements(capacity, gang), None)
            if placement is None:
                assert possible is None, f"{gang} fits as {possible} but was refused"
                refused += 1
                continue
            counts = [0] * len(capacity.node_free)
            for node, pods in placement.nodes:
                counts[node] = pods
            assert valid(capacity, gang, tuple(counts)), f"{gang} broke a rule: {placement}"
            apply(capacity, placement)
            placed += 1
    # Both outcomes occur, so neither half of the check is vacuous.
    assert placed > 50
    assert refused > 10
