"""The per-fault reference: fewest pods moved, then least cost, on hand-worked failures and
against brute force on tiny clusters."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.placement.gangs.exact.brute_force import (
    placements,
    random_gang,
    tiny_cluster,
)
from tests.unit.placement.gangs.faults._cluster import fail, running
from wlmap.placement.gangs import (
    FreeCapacity,
    Gang,
    GangPlacement,
    WlmapReplacement,
    apply,
    constraint_problems,
    default_weights,
    make_gang_policy,
    measure,
    optimal_recovery,
    pods_moved,
    release,
)

WEIGHTS = default_weights(2)


def test_the_lost_pods_of_a_split_gang_take_the_only_room_and_the_healthy_pod_stays() -> None:
    # 3 pods of 2 GPUs required in block b1: n0 (2 pods, fails) and n1 (1 pod). Room in
    # b1: n1 one pod, n2 one pod; n3, n4 full. Only {n1: 2, n2: 1} keeps the healthy pod.
    trio = Gang("trio", 3, 2, required_level=0, preferred_level=1)
    capacity, placement = running(trio, {0: 2, 1: 1}, busy={2: 2, 3: 4, 4: 4})
    survivors, lost = fail(capacity, placement, [0])
    found = optimal_recovery(capacity, survivors, WEIGHTS)
    assert found is not None
    assert found.placement.nodes == ((1, 2), (2, 1))
    assert found.moved == 2
    assert found.proven
    # wlmap's reaction finds the same placement: its cost is the optimum's
    recovery = WlmapReplacement().recover(
        capacity, survivors, lost, make_gang_policy("wlmap"), None
    )
    assert recovery.placement is not None
    assert recovery.placement.nodes == found.placement.nodes


def test_a_cut_slice_moves_with_its_survivors_to_the_nearest_rack_with_room() -> None:
    # 8 pods of 1 GPU in slices of 4 per rack: n0 2 + n1 2 (rack r1), n3 4 (rack r2).
    # n0 fails; r1 has no room (n1 and n2 full), so the slice's 2 survivors on n1 move too
    # (4 moved, the fewest); r2's n4 (same block) beats r3 (other block) on cost.
    gang = Gang("tp", 8, 1, slice_size=4, slice_level=1)
    capacity, placement = running(gang, {0: 2, 1: 2, 3: 4}, busy={1: 2, 2: 4})
    survivors, _ = fail(capacity, placement, [0])
    found = optimal_recovery(capacity, survivors, WEIGHTS)
    assert found is not None
    assert found.placement.nodes == ((3, 4), (4, 4))
    assert found.moved == 4
    assert constraint_problems(found.placement, capacity.topology) == []


def test_a_gang_whose_block_is_full_moves_whole_to_the_other_block() -> None:
    # trio required in one block; b1 has no room once n0 fails: all 3 pods go to b2.
    trio = Gang("trio", 3, 2, required_level=0)
    capacity, placement = running(trio, {0: 2, 1: 1}, busy={1: 2, 2: 4, 3: 4, 4: 4})
    survivors, _ = fail(capacity, placement, [0])
    found = optimal_recovery(capacity, survivors, WEIGHTS)
    assert found is not None
    assert found.moved == 3
    assert {n for n, _ in found.placement.nodes} <= {5, 6}
    assert found.placement.nodes == ((5, 2), (6, 1))


def test_no_recovery_when_the_gang_fits_nowhere() -> None:
    trio = Gang("trio", 3, 2, required_level=1)
    capacity, placement = running(trio, {0: 2, 1: 1}, busy={1: 2, 2: 4, 3: 4, 4: 4, 5: 4, 6: 4})
    survivors, _ = fail(capacity, placement, [0])
    assert optimal_recovery(capacity, survivors, WEIGHTS) is None


def _brute(capacity: FreeCapacity, survivors: GangPlacement) -> tuple[int, float] | None:
    """Fewest moved, then least cost, over every placement with the survivors' GPUs free."""
    release(capacity, survivors)
    try:
        every = list(placements(capacity, survivors.gang))
    finally:
        apply(capacity, survivors)
    keys = [
        (pods_moved(survivors, p), round(measure(p, capacity.topology, WEIGHTS).cost, 9))
        for p in every
    ]
    return min(keys, default=None)


def test_the_reference_matches_brute_force_on_tiny_clusters() -> None:
    rng = np.random.default_rng(11)
    compared = moved_survivors = 0
    for round_ in range(120):
        capacity = tiny_cluster(rng, racks=2, nodes=2)
        gang = random_gang(rng, f"g{round_}")
        choices = list(placements(capacity, gang))
        if not choices:
            continue
        placement = choices[int(rng.integers(len(choices)))]
        apply(capacity, placement)
        failed = int(rng.choice([n for n, _ in placement.nodes]))
        survivors, _ = fail(capacity, placement, [failed])
        expected = _brute(capacity, survivors)
        found = optimal_recovery(capacity, survivors, WEIGHTS)
        if expected is None:
            assert found is None
            continue
        assert found is not None, f"{gang} from {placement.nodes}: brute force found {expected}"
        assert found.proven
        assert found.moved == expected[0]
        assert found.cost == pytest.approx(expected[1])
        assert constraint_problems(found.placement, capacity.topology) == []
        release(capacity, survivors)
        assert all(
            p * gang.gpus_per_pod <= int(capacity.node_free[n]) for n, p in found.placement.nodes
        )
        compared += 1
        moved_survivors += found.moved > sum(p for n, p in placement.nodes if n == failed)
    assert compared > 40
    assert moved_survivors > 3
