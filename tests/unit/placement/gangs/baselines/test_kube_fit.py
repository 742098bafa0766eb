"""LeastAllocated and MostAllocated: kube-scheduler's scores, pod by pod, worked by hand."""

from __future__ import annotations

from tests.unit.placement.gangs.baselines._world import busy, by_name, cluster
from wlmap.placement.gangs import BASELINES, FreeCapacity, Gang


def _capacity() -> FreeCapacity:
    # Three 8-GPU nodes: b1/r1 all free, b1/r2 2 free, b2/r1 6 free.
    topology = cluster({"b1": {"r1": [8], "r2": [8]}, "b2": {"r1": [8]}})
    return busy(topology, {"b1-r2-n0": 6, "b2-r1-n0": 2})


def test_least_allocated_spreads_to_the_emptiest_node() -> None:
    capacity = _capacity()
    # Pods of 2 GPUs. Scores (free - 2) * 100 // 8: b1/r1 75, b1/r2 0, b2/r1 50. Pod 1 to
    # b1/r1 (now 6 free: 50); pod 2 ties b1/r1 and b2/r1 at 50: the lower index, b1/r1.
    placement = BASELINES["least-allocated"]().place(capacity, Gang("g", 2, 2))
    assert by_name(capacity.topology, placement) == {"b1-r1-n0": 2}


def test_most_allocated_packs_the_fullest_node_with_room() -> None:
    capacity = _capacity()
    # Scores (8 - free + 2) * 100 // 8: b1/r1 25, b1/r2 100, b2/r1 50. Pod 1 fills b1/r2;
    # pod 2 goes to b2/r1 (50 beats 25).
    placement = BASELINES["most-allocated"]().place(capacity, Gang("g", 2, 2))
    assert by_name(capacity.topology, placement) == {"b1-r2-n0": 1, "b2-r1-n0": 1}


def test_a_required_level_is_kept_by_pod_affinity_to_the_first_pod() -> None:
    capacity = _capacity()
    # Required block: pod 1 goes to the best node (b1/r2, 100) and pins block b1; pod 2
    # then takes b1/r1, the only b1 node with room.
    placement = BASELINES["most-allocated"]().place(capacity, Gang("g", 2, 2, required_level=0))
    assert by_name(capacity.topology, placement) == {"b1-r1-n0": 1, "b1-r2-n0": 1}
    # Required rack: b1/r2 holds only one pod, so pod 1 chooses among racks that hold both:
    # b2/r1 (50) over b1/r1 (25), and pod 2 follows it.
    placement = BASELINES["most-allocated"]().place(capacity, Gang("g", 2, 2, required_level=1))
    assert by_name(capacity.topology, placement) == {"b2-r1-n0": 2}


def test_nothing_fits_means_no_pod_is_placed() -> None:
    capacity = _capacity()
    # 16 free GPUs, 9 pods of 2: the eighth and ninth pods would find no node.
    for name in ("least-allocated", "most-allocated"):
        assert BASELINES[name]().place(capacity, Gang("g", 9, 2)) is None


def test_each_slice_follows_its_first_pod() -> None:
    # Four 4-GPU nodes in two racks, one pod of b1/r1/n0 taken (1 GPU): slices of 2 one-GPU
    # pods per rack, 4 pods. MostAllocated: the first pod takes the fullest node, n0
    # (3 free), the second pod stays in its rack and n0 is still fullest. The next slice's
    # first pod: b1/r1 has 4 + 1 = 5 slots left (room for a slice), n0 now has 1 free and
    # scores highest, so it goes there and its mate to n1, the only other b1/r1 node.
    topology = cluster({"b1": {"r1": [4, 4], "r2": [4, 4]}})
    capacity = busy(topology, {"b1-r1-n0": 1})
    gang = Gang("g", 4, 1, slice_size=2, slice_level=1)
    placement = BASELINES["most-allocated"]().place(capacity, gang)
    assert by_name(topology, placement) == {"b1-r1-n0": 3, "b1-r1-n1": 1}
