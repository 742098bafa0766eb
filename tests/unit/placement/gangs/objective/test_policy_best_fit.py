"""Best fit on GPUs inside a domain, and the ``tighterNode`` tie-break, worked by hand.

Clusters as in ``test_policy_choices``: two levels (block > rack), 4-GPU nodes, each rack
written as the free GPUs of its nodes.
"""

from __future__ import annotations

from tests.unit.placement.gangs.objective.test_policy_choices import cluster
from wlmap.placement.gangs import Gang, make_wlmap_gang_policy, parse_objective

SLOTS_FIRST = """
kind: GangObjective
tiers: [{term: communication}]
tieBreaks: [fewerSlotsLeft, lowerIndex]
"""

NODE_FIRST = """
kind: GangObjective
tiers: [{term: communication}]
tieBreaks: [tighterNode, fewerSlotsLeft, lowerIndex]
"""


def test_a_pod_goes_to_the_node_with_the_fewest_free_gpus_that_holds_it() -> None:
    # One rack, nodes with 4 and 3 free GPUs. A 3-GPU pod fits once on either, so counted
    # in pods the two nodes tie and the lower index (4 free) would take it, leaving 1 GPU
    # there and a whole node broken; on GPUs the node with 3 free fits exactly.
    capacity = cluster({"b1/r1": [4, 3]})
    policy = make_wlmap_gang_policy(parse_objective(SLOTS_FIRST))
    placement = policy.place(capacity, Gang("g", pods=1, gpus_per_pod=3))
    assert placement is not None
    assert placement.nodes == ((1, 1),)


def test_pods_spread_over_nodes_take_the_tighter_of_equally_roomy_nodes_first() -> None:
    # Nodes with 4, 2 and 3 free GPUs take 2, 1 and 1 pods of 2 GPUs. A gang of three: the
    # roomiest node (4 free) takes two, the last pod goes to the node that holds one pod
    # with the fewest free GPUs: 2 free (node 1), not 3 free (node 2), although both hold
    # exactly one pod.
    capacity = cluster({"b1/r1": [4, 2, 3]})
    policy = make_wlmap_gang_policy(parse_objective(SLOTS_FIRST))
    placement = policy.place(capacity, Gang("g", pods=3, gpus_per_pod=2))
    assert placement is not None
    assert placement.nodes == ((0, 2), (1, 1))


# r1: two whole nodes (8 free GPUs, room for four 2-GPU pods). r2: nodes with 2, 4, 4, 4
# free (14 GPUs, room for seven). A 2-GPU pod costs 0 in either rack.
SPLIT = {"b1/r1": [4, 4, 0], "b1/r2": [2, 4, 4, 4]}


def test_fewer_slots_left_takes_the_fuller_rack_and_breaks_a_whole_node() -> None:
    # r1 would keep 3 pods of room, r2 6: fewerSlotsLeft takes r1, where every node that
    # fits is whole: its tightest node keeps 2 GPUs free.
    capacity = cluster(SPLIT)
    decision = make_wlmap_gang_policy(parse_objective(SLOTS_FIRST)).decide(
        capacity, Gang("g", pods=1, gpus_per_pod=2)
    )
    assert decision is not None
    assert decision.placement.nodes == ((0, 1),)
    assert decision.explanation.decided_by == "fewerSlotsLeft"


def test_tighter_node_takes_the_rack_whose_best_node_fits_exactly() -> None:
    # r2's node with 2 free GPUs takes the pod and keeps 0 free; r1's best keeps 2. With
    # tighterNode first the pod fills that node, and every whole node stays whole.
    capacity = cluster(SPLIT)
    decision = make_wlmap_gang_policy(parse_objective(NODE_FIRST)).decide(
        capacity, Gang("g", pods=1, gpus_per_pod=2)
    )
    assert decision is not None
    assert decision.placement.nodes == ((3, 1),)  # b1-r2-0
    assert decision.explanation.decided_by == "tighterNode"
    assert decision.placement.reason == (
        "rack b1/r2: ties b1/r1 on every term, tighterNode decides; leaves 0 whole racks free"
    )


def test_tighter_node_ties_for_pods_of_whole_nodes() -> None:
    # 4-GPU pods: every rack that holds one has a whole free node that fits exactly, so
    # tighterNode ties (0 GPUs kept everywhere) and fewerSlotsLeft decides: r1, with room
    # for two such pods against r2's three.
    capacity = cluster(SPLIT)
    decision = make_wlmap_gang_policy(parse_objective(NODE_FIRST)).decide(
        capacity, Gang("g", pods=1, gpus_per_pod=4)
    )
    assert decision is not None
    assert decision.placement.nodes == ((0, 1),)
    assert decision.explanation.decided_by == "fewerSlotsLeft"
