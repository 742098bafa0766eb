"""Volcano: the lowest tier that fits, the most-packed HyperNode, nodes by fading scores."""

from __future__ import annotations

from tests.unit.placement.gangs.baselines._world import busy, by_name, cluster
from wlmap.placement.gangs import BASELINES, FreeCapacity, Gang


def _capacity() -> FreeCapacity:
    # Racks (tier 1) of two 8-GPU nodes; blocks are tier 2. b1/r1 has 8 GPUs used on n0.
    topology = cluster({"b1": {"r1": [8, 8], "r2": [8, 8]}, "b2": {"r1": [8, 8]}})
    return busy(topology, {"b1-r1-n0": 8})


def test_the_most_packed_rack_that_holds_the_gang_wins() -> None:
    capacity = _capacity()
    # 2 pods of 4 GPUs, required block: tier 1 fits (every rack). Scores (used + 8) / 16:
    # b1/r1 1.0, the others 0.5: b1/r1, whose only node with room takes both.
    placement = BASELINES["volcano"]().place(capacity, Gang("g", 2, 4, required_level=0))
    assert by_name(capacity.topology, placement) == {"b1-r1-n1": 2}


def test_a_gang_no_rack_holds_goes_one_tier_up_and_packs_racks() -> None:
    capacity = _capacity()
    # 6 pods of 4 GPUs: no rack holds 6 (4 at most); block b1 has 24 free, b2 16: b1.
    # Pods one by one, scored by their rack's (used + 4) / 16: n1 of b1/r1 first (0.75),
    # again (1.0); then b1/r2 (0.25, 0.5, ...) whose nodes tie on the rack and go by their
    # own packing: n0 twice (0.5 then 1.0), then n1 twice.
    placement = BASELINES["volcano"]().place(capacity, Gang("g", 6, 4, required_level=0))
    assert by_name(capacity.topology, placement) == {"b1-r1-n1": 2, "b1-r2-n0": 2, "b1-r2-n1": 2}


def test_required_tier_bounds_the_walk() -> None:
    capacity = _capacity()
    # 6 pods of 4 need a block; required rack stops at tier 1: nothing.
    assert BASELINES["volcano"]().place(capacity, Gang("g", 6, 4, required_level=1)) is None


def test_slices_count_whole_slices_per_hypernode() -> None:
    capacity = _capacity()
    # 4 pods of 4 GPUs in slices of 2 pods per node (8 GPUs): a node with 8 free holds one
    # slice. Tier 1: b1/r1 holds one slice, b1/r2 and b2/r1 two; both score
    # (used + 16) / 16 = 1.0, the lower index wins: b1/r2, one slice per node.
    gang = Gang("g", 4, 4, required_level=0, slice_size=2, slice_level=2)
    placement = BASELINES["volcano"]().place(capacity, gang)
    assert by_name(capacity.topology, placement) == {"b1-r2-n0": 2, "b1-r2-n1": 2}
    # Pods of 2 GPUs instead (a slice is 4 GPUs, a free node holds two): every rack holds
    # both slices; b1/r1 packs best ((8 + 8) / 16 = 1.0 against 0.5) and its one node with
    # room takes both slices.
    gang = Gang("g", 4, 2, required_level=0, slice_size=2, slice_level=2)
    placement = BASELINES["volcano"]().place(capacity, gang)
    assert by_name(capacity.topology, placement) == {"b1-r1-n1": 4}


def test_a_rack_holding_every_pod_keeps_a_block_level_slice_whole() -> None:
    capacity = _capacity()
    # Slices of 2 pods per block: a rack that holds both pods holds the slice, so tier 1
    # still answers, as for the gang without slices: b1/r1, the most packed.
    gang = Gang("g", 2, 4, slice_size=2, slice_level=0)
    placement = BASELINES["volcano"]().place(capacity, gang)
    assert by_name(capacity.topology, placement) == {"b1-r1-n1": 2}
