"""The ``tighterParent`` tie-break, worked by hand: small gangs fill the fuller block first.

Clusters as in ``test_policy_choices``: two levels (block > rack), 4-GPU nodes, each rack
written as the free GPUs of its nodes.
"""

from __future__ import annotations

from tests.unit.placement.gangs.objective.test_policy_choices import cluster, racks_of
from wlmap.placement.gangs import Gang, apply, make_wlmap_gang_policy, parse_objective

SLOTS_FIRST = """
kind: GangObjective
tiers: [{term: communication}, {term: wholeFreeDomains}]
tieBreaks: [tighterNode, fewerSlotsLeft, lowerIndex]
"""

PARENT_FIRST = """
kind: GangObjective
tiers: [{term: communication}, {term: wholeFreeDomains}]
tieBreaks: [tighterNode, tighterParent, fewerSlotsLeft, lowerIndex]
"""

# Block b1: one rack with two free nodes (8 GPUs free in the block). Block b2: a rack with
# one free node and a whole free rack (20 GPUs free). A pod of one whole node costs 0
# anywhere and must not break b2/r2, the only whole rack; b1/r1 and b2/r1 tie on
# tighterNode (the pod fills a whole node in both).
BLOCKS = {"b1/r1": [4, 4, 0, 0], "b2/r1": [4, 0, 0, 0], "b2/r2": [4, 4, 4, 4]}
WHOLE_NODE = Gang("small", pods=1, gpus_per_pod=4)
FIVE_NODES = Gang("large", pods=5, gpus_per_pod=4, preferred_level=0)


def test_fewer_slots_left_takes_the_last_node_of_the_emptier_block() -> None:
    # b2/r1 keeps 0 pods of room against b1/r1's 1, so fewerSlotsLeft takes it, and block
    # b2 drops to 16 free GPUs: a gang of five whole nodes no longer fits in one block.
    capacity = cluster(BLOCKS)
    decision = make_wlmap_gang_policy(parse_objective(SLOTS_FIRST)).decide(capacity, WHOLE_NODE)
    assert decision is not None
    assert racks_of(capacity, decision.placement.nodes) == {"b2/r1"}
    apply(capacity, decision.placement)
    after = make_wlmap_gang_policy(parse_objective(SLOTS_FIRST)).place(capacity, FIVE_NODES)
    assert after is not None
    assert {name.split("/")[0] for name in racks_of(capacity, after.nodes)} == {"b1", "b2"}


def test_tighter_parent_takes_the_fuller_block_and_keeps_the_emptier_one_for_a_large_gang() -> None:
    # Block b1 keeps 4 free GPUs after the pod, b2 would keep 16: tighterParent takes
    # b1/r1, and block b2 keeps the 20 GPUs five whole nodes need.
    capacity = cluster(BLOCKS)
    policy = make_wlmap_gang_policy(parse_objective(PARENT_FIRST))
    decision = policy.decide(capacity, WHOLE_NODE)
    assert decision is not None
    assert racks_of(capacity, decision.placement.nodes) == {"b1/r1"}
    assert decision.explanation.decided_by == "tighterParent"
    apply(capacity, decision.placement)
    after = policy.place(capacity, FIVE_NODES)
    assert after is not None
    assert racks_of(capacity, after.nodes) == {"b2/r1", "b2/r2"}


def test_tighter_parent_ties_inside_one_block() -> None:
    # Both racks are in block b1, so the key ties and the next
    # tie-break decides as it did without it.
    capacity = cluster({"b1/r1": [4, 4, 0], "b1/r2": [4, 0, 0]})
    decision = make_wlmap_gang_policy(parse_objective(PARENT_FIRST)).decide(capacity, WHOLE_NODE)
    assert decision is not None
    assert racks_of(capacity, decision.placement.nodes) == {"b1/r2"}
    assert decision.explanation.decided_by == "fewerSlotsLeft"
