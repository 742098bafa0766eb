"""Slurm-block-like: best-fit blocks, power-of-two aggregates, segments inside blocks."""

from __future__ import annotations

from tests.unit.placement.gangs.baselines._world import busy, by_name, cluster
from wlmap.placement.gangs import BASELINES, FreeCapacity, Gang


def _capacity() -> FreeCapacity:
    # Slurm blocks = racks (the finest level), two 4-GPU nodes each. Free GPUs:
    # b1/r1 0 + 4, b1/r2 4 + 4, b2/r1 2 + 4, b2/r2 4 + 4.
    topology = cluster({"b1": {"r1": [4, 4], "r2": [4, 4]}, "b2": {"r1": [4, 4], "r2": [4, 4]}})
    return busy(topology, {"b1-r1-n0": 4, "b2-r1-n0": 2})


def test_a_gang_that_fits_one_block_takes_the_tightest_block() -> None:
    capacity = _capacity()
    # 2 pods of 2 GPUs: every block holds them; pod slots 2, 4, 3, 4: b1/r1 (2) is the
    # best fit, and its one node with room takes both.
    placement = BASELINES["slurm-block"]().place(capacity, Gang("g", 2, 2))
    assert by_name(capacity.topology, placement) == {"b1-r1-n1": 2}


def test_a_larger_gang_takes_the_tightest_aggregate_of_two_blocks() -> None:
    capacity = _capacity()
    # 6 pods of 2: no block holds 6 (4 at most). Pairs (aligned): b1/r1+b1/r2 hold 6 with
    # 6 slots, b2/r1+b2/r2 hold 7: the first. The block with most slots first (b1/r2: 4, on
    # n0 by index as both nodes tie), then b1/r1 holds exactly the last 2.
    placement = BASELINES["slurm-block"]().place(capacity, Gang("g", 6, 2))
    assert by_name(capacity.topology, placement) == {"b1-r1-n1": 2, "b1-r2-n0": 2, "b1-r2-n1": 2}


def test_segments_stay_inside_their_slice_domain() -> None:
    capacity = _capacity()
    # 4 pods of 2 GPUs in segments of 2 pods per node: segments per block 1, 2, 1, 2; the
    # blocks that hold both are b1/r2 and b2/r2 with 4 slots each: the first, one segment
    # per node.
    gang = Gang("g", 4, 2, slice_size=2, slice_level=2)
    placement = BASELINES["slurm-block"]().place(capacity, gang)
    assert by_name(capacity.topology, placement) == {"b1-r2-n0": 2, "b1-r2-n1": 2}


def test_required_level_bounds_the_aggregates() -> None:
    capacity = _capacity()
    # 8 pods of 2: the whole b2 (7 slots) cannot, b1 (6) cannot: required block gives None,
    # while without a required level the four blocks together (13 slots) hold them.
    assert BASELINES["slurm-block"]().place(capacity, Gang("g", 8, 2, required_level=0)) is None
    # Required block level itself (rack): 6 pods fit no single block, never two of them.
    assert BASELINES["slurm-block"]().place(capacity, Gang("g", 6, 2, required_level=1)) is None
    placement = BASELINES["slurm-block"]().place(capacity, Gang("g", 8, 2))
    assert placement is not None and placement.reason.startswith("aggregated block of 4")
