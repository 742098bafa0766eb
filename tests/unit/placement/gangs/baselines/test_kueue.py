"""Kueue's TAS algorithms on the worked examples of KEP 2724 and a few of our own.

Topologies are block > rack > node, one GPU per pod, so a node's GPUs are the pods it
fits; the expected assignments are the KEP's (keps/2724-topology-aware-scheduling).
"""

from __future__ import annotations

import pytest

from tests.unit.placement.gangs.baselines._world import busy, by_name, cluster
from wlmap.placement.gangs import BASELINES, FreeCapacity, Gang

RACK, NODE = 1, 2


def test_best_fit_fills_the_largest_nodes_and_fits_the_last_one_tightly() -> None:
    # KEP "Computing the assignment": a rack of nodes fitting 3, 3, 2 and 1 pods, 7 pods.
    # BestFit takes the two 3s, then the node that holds exactly the last pod.
    topology = cluster({"b1": {"r1": [3, 3, 2, 1]}})
    placement = BASELINES["kueue-bestfit"]().place(FreeCapacity(topology), Gang("g", 7, 1, RACK))
    assert by_name(topology, placement) == {"b1-r1-n0": 3, "b1-r1-n1": 3, "b1-r1-n3": 1}


def test_least_free_starts_from_the_emptiest_nodes() -> None:
    # Same rack: 1, 2, then the two 3s (n0 before n1 on the tie), only 1 pod on the last.
    topology = cluster({"b1": {"r1": [3, 3, 2, 1]}})
    placement = BASELINES["kueue-least-free"]().place(FreeCapacity(topology), Gang("g", 7, 1, RACK))
    assert by_name(topology, placement) == {
        "b1-r1-n3": 1,
        "b1-r1-n2": 2,
        "b1-r1-n0": 3,
        "b1-r1-n1": 1,
    }


def test_slices_count_whole_slices_per_node() -> None:
    # KEP: nodes of 6, 5, 4, 3, 2 pods, slices of 2 on the node. BestFit, 12 pods (6 slices):
    # nodes by slices 3, 2, 2, 1, 1 (pods ascending on ties: 4 before 5, 2 before 3):
    # 6 takes 3 slices, 4 takes 2, then the first 1-slice node, the 2: 6, 4, 2.
    topology = cluster({"b1": {"r1": [6, 5, 4, 3, 2]}})
    gang = Gang("g", 12, 1, RACK, slice_size=2, slice_level=NODE)
    placement = BASELINES["kueue-bestfit"]().place(FreeCapacity(topology), gang)
    assert by_name(topology, placement) == {"b1-r1-n0": 6, "b1-r1-n2": 4, "b1-r1-n4": 2}
    # LeastFreeCapacity, 10 pods: ascending 2, 3, 4, 5: 2 + 2 + 4 + 2.
    gang = Gang("g", 10, 1, RACK, slice_size=2, slice_level=NODE)
    placement = BASELINES["kueue-least-free"]().place(FreeCapacity(topology), gang)
    assert by_name(topology, placement) == {
        "b1-r1-n4": 2,
        "b1-r1-n3": 2,
        "b1-r1-n2": 4,
        "b1-r1-n1": 2,
    }


def test_required_level_waits_and_preferred_walks_up() -> None:
    # Racks of 4 and 4 free pods in one block: 6 pods fit no rack. Required rack: nothing.
    # Preferred rack: the block holds them, the fuller rack is filled first (tie: r1), the
    # other holds exactly the rest.
    topology = cluster({"b1": {"r1": [4], "r2": [4]}, "b2": {"r1": [2]}})
    for name in ("kueue-bestfit", "kueue-least-free", "kueue-balanced"):
        policy = BASELINES[name]()
        assert policy.place(FreeCapacity(topology), Gang("g", 6, 1, RACK)) is None
    placement = BASELINES["kueue-bestfit"]().place(
        FreeCapacity(topology), Gang("g", 6, 1, preferred_level=RACK)
    )
    assert by_name(topology, placement) == {"b1-r1-n0": 4, "b1-r2-n0": 2}


def test_best_fit_picks_the_tightest_domain_that_holds_the_gang() -> None:
    # Racks b1/r1 (8 free), b1/r2 (3 free after 5 taken), b2/r1 (4 free). Required rack,
    # 3 pods: the top rack (8) fits, so the rack with the fewest slots that fits wins: b1/r2.
    topology = cluster({"b1": {"r1": [8], "r2": [8]}, "b2": {"r1": [4]}})
    capacity = busy(topology, {"b1-r2-n0": 5})
    placement = BASELINES["kueue-bestfit"]().place(capacity, Gang("g", 3, 1, RACK))
    assert by_name(topology, placement) == {"b1-r2-n0": 3}


def test_a_gang_with_no_level_takes_the_least_free_nodes() -> None:
    # Unconstrained: LeastFreeCapacity over all nodes: the first (ascending) that holds all.
    topology = cluster({"b1": {"r1": [8], "r2": [8]}, "b2": {"r1": [4]}})
    capacity = busy(topology, {"b1-r2-n0": 5})
    placement = BASELINES["kueue-bestfit"]().place(capacity, Gang("g", 4, 1))
    assert by_name(topology, placement) == {"b2-r1-n0": 4}


@pytest.mark.parametrize(
    ("spec", "pods", "slice_size", "expected"),
    [
        # The KEP's BalancedPlacement table, preferred = rack.
        ({"b1": {"r1": [15], "r2": [15]}}, 25, 0, {"b1-r1-n0": 13, "b1-r2-n0": 12}),
        ({"b1": {"r1": [15, 13, 10]}}, 23, 0, {"b1-r1-n0": 12, "b1-r1-n1": 11}),
        ({"b1": {"r1": [20, 10], "r2": [15, 15]}}, 22, 0, {"b1-r2-n0": 11, "b1-r2-n1": 11}),
        ({"b1": {"r1": [20, 10], "r2": [15, 15]}}, 20, 0, {"b1-r1-n0": 20}),
        (
            {"b1": {"r1": [10, 5], "r2": [5, 5, 5]}},
            15,
            0,
            {"b1-r2-n0": 5, "b1-r2-n1": 5, "b1-r2-n2": 5},
        ),
        (
            {"b1": {"r1": [15], "r2": [15]}, "b2": {"r1": [15, 15]}},
            25,
            0,
            {"b2-r1-n0": 13, "b2-r1-n1": 12},
        ),
        ({"b1": {"r1": [15], "r2": [15], "r3": [15, 15]}}, 25, 5, {"b1-r3-n0": 15, "b1-r3-n1": 10}),
    ],
)
def test_balanced_placement_matches_the_kep_table(
    spec: dict[str, dict[str, list[int]]], pods: int, slice_size: int, expected: dict[str, int]
) -> None:
    topology = cluster(spec)
    gang = Gang(
        "g",
        pods,
        1,
        preferred_level=RACK,
        slice_size=slice_size,
        slice_level=NODE if slice_size else None,
    )
    placement = BASELINES["kueue-balanced"]().place(FreeCapacity(topology), gang)
    assert by_name(topology, placement) == expected
    assert placement is not None and placement.reason.startswith("balanced placement")


def test_balanced_falls_back_to_best_fit_when_no_parent_holds_the_gang() -> None:
    # 30 pods over two blocks of 20: no block holds them, so BestFit spreads at the top.
    topology = cluster({"b1": {"r1": [20]}, "b2": {"r1": [20]}})
    placement = BASELINES["kueue-balanced"]().place(
        FreeCapacity(topology), Gang("g", 30, 1, preferred_level=RACK)
    )
    assert by_name(topology, placement) == {"b1-r1-n0": 20, "b2-r1-n0": 10}
    assert placement is not None and placement.reason.startswith("best fit")


def test_a_gang_with_only_slices_spreads_least_free_from_the_top() -> None:
    # Slices only (2 pods per rack): Kueue treats it as unconstrained at the top level with
    # LeastFreeCapacity. 4 pods = 2 slices; blocks ascending by slices: b2 (3 pods, 1 slice)
    # cannot hold both, b1 (1 + 2 slices) can. Inside b1, racks ascending: r1 gives its one
    # slice, r2 the other (no best-fit swap under LeastFreeCapacity).
    topology = cluster({"b1": {"r1": [2], "r2": [4]}, "b2": {"r1": [3]}})
    gang = Gang("g", 4, 1, slice_size=2, slice_level=RACK)
    placement = BASELINES["kueue-bestfit"]().place(FreeCapacity(topology), gang)
    assert by_name(topology, placement) == {"b1-r1-n0": 2, "b1-r2-n0": 2}
