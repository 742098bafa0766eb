"""The independent checks catch what a faulty reaction would leave behind."""

from __future__ import annotations

from wlmap.placement.gangs import (
    FreeCapacity,
    Gang,
    GangPlacement,
    accounting_problems,
    constraint_problems,
)

from ._cluster import cluster, running


def test_a_gang_spread_over_two_blocks_breaks_its_required_level() -> None:
    topology = cluster()
    gang = Gang("g", 2, 4, required_level=0)
    assert constraint_problems(GangPlacement(gang, ((3, 1), (4, 1))), topology) == []
    assert constraint_problems(GangPlacement(gang, ((4, 1), (5, 1))), topology) == [
        "g: required level block spans 2 domains: b1, b2"
    ]
    assert constraint_problems(GangPlacement(gang, ((4, 1),)), topology) == [
        "g: 1 pods placed, the gang has 2"
    ]


def test_a_slice_split_across_racks_is_reported_with_its_rack() -> None:
    topology = cluster()
    sliced = Gang("s", 4, 1, required_level=0, slice_size=2, slice_level=1)
    assert constraint_problems(GangPlacement(sliced, ((0, 2), (3, 2))), topology) == []
    assert constraint_problems(GangPlacement(sliced, ((0, 3), (3, 1))), topology) == [
        "s: slices of 2 pods split across rack domains: b1/r1 (3), b1/r2 (1)"
    ]


def test_gpus_taken_but_not_owned_by_any_placement_are_reported() -> None:
    gang = Gang("g", 2, 2)
    capacity, placement = running(gang, {0: 2})
    assert accounting_problems(capacity, [placement], {}) == []
    capacity.take(1, 3)  # GPUs leaked by a reaction that forgot to release them
    assert accounting_problems(capacity, [placement], {}) == [
        "node n1: 1 GPUs free, expected 4 (0 used of 4 in service)"
    ]
    assert accounting_problems(capacity, [placement], {1: 3}) == []  # held as a spare
    fresh = FreeCapacity(cluster())
    fresh.remove(2, 4)  # n2 out of service, yet a placement still counts a pod on it
    assert accounting_problems(fresh, [GangPlacement(gang, ((2, 1),))], {}) == [
        "node n2: 0 GPUs free, expected -2 (2 used of 0 in service)"
    ]
