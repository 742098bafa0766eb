"""KAI's two-level rule on the example of its topology docs, and slices as segments."""

from __future__ import annotations

from tests.unit.placement.gangs.baselines._world import busy, by_name, cluster
from wlmap.placement.gangs import BASELINES, FreeCapacity, Gang

ZONE, RACK, NODE = 0, 1, 2


def test_the_fuller_zone_then_its_emptiest_rack_first() -> None:
    # docs/topology/README.md: zone A = rack A1 of two 1-GPU nodes, racks A2-A4 of one;
    # zone B = three racks of two 1-GPU nodes. 3 one-GPU pods, required zone, preferred rack.
    # No rack holds 3, zone A (5 free) is fuller than B (6): A. Inside A the racks sort by
    # free GPUs (A2, A3, A4 at 1, A1 at 2) and score by position, the last highest: A1 (10)
    # takes 2 pods, then A4 (7), the last of the 1-GPU racks on KAI's id tie-break, takes 1.
    topology = cluster(
        {
            "a": {"a1": [1, 1], "a2": [1], "a3": [1], "a4": [1]},
            "b": {"b1": [1, 1], "b2": [1, 1], "b3": [1, 1]},
        }
    )
    gang = Gang("g", 3, 1, required_level=ZONE, preferred_level=RACK)
    placement = BASELINES["kai"]().place(FreeCapacity(topology), gang)
    assert by_name(topology, placement) == {"a-a1-n0": 1, "a-a1-n1": 1, "a-a4-n0": 1}


def test_candidates_follow_the_sorted_tree_parents_first() -> None:
    # Racks b1/r1 (8 free), b1/r2 (2 + 2 free), b2/r1 (6 free); 4 one-GPU pods, preferred
    # rack: every rack fits. KAI visits racks in its sorted tree's breadth-first order, so
    # the blocks sort first: b2 (6 free) before b1 (12). b2/r1 wins although b1/r2 has
    # fewer free GPUs.
    topology = cluster({"b1": {"r1": [8], "r2": [4, 4]}, "b2": {"r1": [8]}})
    capacity = busy(topology, {"b1-r2-n0": 2, "b1-r2-n1": 2, "b2-r1-n0": 2})
    placement = BASELINES["kai"]().place(capacity, Gang("g", 4, 1, preferred_level=RACK))
    assert by_name(topology, placement) == {"b2-r1-n0": 4}
    # Inside one block, the rack with fewer free GPUs wins, and its fullest node fills first.
    topology = cluster({"b1": {"r1": [8], "r2": [4, 4]}})
    capacity = busy(topology, {"b1-r2-n0": 1})
    placement = BASELINES["kai"]().place(capacity, Gang("g", 4, 1, preferred_level=RACK))
    assert by_name(topology, placement) == {"b1-r2-n0": 3, "b1-r2-n1": 1}


def test_segments_go_to_the_fullest_slice_domain_with_room() -> None:
    # Required block b1 (the only block), slices of 2 pods per node. Nodes have 2, 4, 8
    # free; KAI's order puts the fuller nodes first: slice 1 on the 2, slice 2 on the 4.
    topology = cluster({"b1": {"r1": [8, 8, 8]}})
    capacity = busy(topology, {"b1-r1-n0": 6, "b1-r1-n1": 4})
    gang = Gang("g", 4, 1, required_level=ZONE, slice_size=2, slice_level=NODE)
    placement = BASELINES["kai"]().place(capacity, gang)
    assert by_name(topology, placement) == {"b1-r1-n0": 2, "b1-r1-n1": 2}


def test_none_when_no_domain_of_the_required_level_fits() -> None:
    topology = cluster({"a": {"a1": [2]}, "b": {"b1": [2]}})
    gang = Gang("g", 3, 1, required_level=ZONE)
    assert BASELINES["kai"]().place(FreeCapacity(topology), gang) is None
