"""Random: any feasible domain, any free slots, the same for the same seed."""

from __future__ import annotations

from tests.unit.placement.gangs.baselines._world import busy, by_name, cluster
from wlmap.placement.gangs import BASELINES, Gang


def test_only_the_domain_that_can_hold_the_gang_is_drawn() -> None:
    # Racks b1/r1 (2 free), b1/r2 (8 free: n0 4, n1 4), b2/r1 (3 free). A required-rack gang
    # of 4 one-GPU pods fits only b1/r2, whatever the seed.
    topology = cluster({"b1": {"r1": [4], "r2": [4, 4]}, "b2": {"r1": [4]}})
    capacity = busy(topology, {"b1-r1-n0": 2, "b2-r1-n0": 1})
    for seed in range(20):
        placement = BASELINES["random"](seed=seed).place(
            capacity, Gang("g", 4, 1, required_level=1)
        )
        placed = by_name(topology, placement)
        assert placed is not None and set(placed) <= {"b1-r2-n0", "b1-r2-n1"}
        assert sum(placed.values()) == 4


def test_a_seed_repeats_its_draws_and_other_seeds_differ() -> None:
    topology = cluster({"b1": {"r1": [8, 8], "r2": [8, 8]}, "b2": {"r1": [8, 8]}})
    capacity = busy(topology, {})
    gang = Gang("g", 3, 2, required_level=1)
    runs = {
        seed: [BASELINES["random"](seed=seed).place(capacity, gang) for _ in range(2)]
        for seed in range(12)
    }
    assert all(first == again for first, again in runs.values())
    assert len({str(by_name(topology, r[0])) for r in runs.values()}) > 3
    slices = Gang("g", 4, 2, required_level=0, slice_size=2, slice_level=2)
    placement = BASELINES["random"](seed=3).place(capacity, slices)
    assert placement is not None and all(pods % 2 == 0 for _, pods in placement.nodes)


def test_none_when_no_domain_holds_the_gang() -> None:
    topology = cluster({"b1": {"r1": [4], "r2": [4]}})
    assert (
        BASELINES["random"]().place(busy(topology, {}), Gang("g", 5, 1, required_level=1)) is None
    )
