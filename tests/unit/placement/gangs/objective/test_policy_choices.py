"""wlmap's gang policy on hand-made clusters, each choice worked out by hand in comments.

Every cluster has two levels (block > rack) and 4-GPU nodes; a rack is written as the free
GPUs of its nodes. Pair weights are the defaults for two levels: 0 on one node, 1 in a
rack, 10 in a block, 36 across blocks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.placement.gangs.objective.test_objective_file import EXAMPLE
from wlmap.placement.gangs import (
    FreeCapacity,
    Gang,
    GangPolicy,
    ObjectiveError,
    build_topology,
    default_objective,
    load_objective,
    make_wlmap_gang_policy,
    parse_objective,
)
from wlmap.placement.nodes import Node


def cluster(racks: dict[str, list[int]]) -> FreeCapacity:
    """Racks keyed ``block/rack``, each a list of the free GPUs of its 4-GPU nodes."""
    nodes: list[Node] = []
    free: list[int] = []
    for path, frees in racks.items():
        block, rack = path.split("/")
        for i, gpus in enumerate(frees):
            labels = {"block": block, "rack": rack}
            nodes.append(Node(f"{block}-{rack}-{i}", 64_000, 262_144, 4, "GB200", labels=labels))
            free.append(gpus)
    capacity = FreeCapacity(build_topology(["block", "rack"], nodes))
    for node, gpus in enumerate(free):
        capacity.take(node, 4 - gpus)
    return capacity


def racks_of(capacity: FreeCapacity, nodes: tuple[tuple[int, int], ...]) -> set[str]:
    topology = capacity.topology
    return {topology.domain_name(1, int(topology.node_domain[1][n])) for n, _ in nodes}


# b1/r1 is a whole free rack of four nodes; block b2 has two racks with two free nodes each.
COST_CASE = {"b1/r1": [4, 4, 4, 4], "b2/r1": [4, 4, 0, 0], "b2/r2": [4, 4, 0, 0]}


def test_communication_cost_decides_under_the_default_objective() -> None:
    capacity = cluster(COST_CASE)
    # Four 4-GPU pods. Rack b1/r1 takes them on four nodes: 6 pairs, all in one rack: 1.0.
    # No rack of b2 holds four, block b2 does, two per rack: 2 pairs in a rack (1 each) and
    # 4 pairs across racks (10 each): 42 / 6 = 7.0. Cost is the first tier: b1/r1.
    # It breaks the only whole rack (1 vs 0).
    decision = make_wlmap_gang_policy().decide(capacity, Gang("g", pods=4, gpus_per_pod=4))
    assert decision is not None
    assert racks_of(capacity, decision.placement.nodes) == {"b1/r1"}
    assert decision.placement.reason == (
        "rack b1/r1: cost 1.0 vs 7.0 for block b2 (also whole racks broken 1 vs 0); "
        "leaves 0 whole racks free"
    )
    explanation = decision.explanation
    assert (explanation.chosen, explanation.runner_up) == ("rack b1/r1", "block b2")
    assert explanation.decided_by == "communication"
    assert [(t.term, t.chosen, t.runner_up) for t in explanation.terms] == [
        ("communication", 1.0, 7.0),
        ("wholeFreeDomains", 1.0, 0.0),
    ]


def test_the_weighted_example_keeps_the_whole_rack_and_pays_in_cost() -> None:
    capacity = cluster(COST_CASE)
    # The example weighs cost (over across = 72) 1, whole racks broken 0.5, spare GPUs used
    # (4 per rack, over the gang's 16 GPUs) 0.25.
    # b1/r1: 1/72 + 0.5 * 1 + 0.25 * 4/16 = 0.576; block b2: 7/72 + 0 + 0.25 * 8/16 = 0.222.
    policy = make_wlmap_gang_policy(EXAMPLE)
    decision = policy.decide(capacity, Gang("g", pods=4, gpus_per_pod=4))
    assert decision is not None
    assert racks_of(capacity, decision.placement.nodes) == {"b2/r1", "b2/r2"}
    assert decision.explanation.decided_by == "wholeFreeDomains"
    assert decision.placement.reason.startswith(
        "block b2: score 0.222 vs 0.576 (whole racks broken 0 vs 1) for rack b1/r1"
    )


def test_whole_free_domains_decide_between_racks_of_equal_cost() -> None:
    # Two 4-GPU pods cost 1.0 in either rack (two nodes of one rack). r1 is whole (two free
    # nodes); r2 has a busy node. r1 is the tighter fit and the lower index, but it would
    # break the one whole rack: the second tier sends the gang to r2.
    capacity = cluster({"b1/r1": [4, 4], "b1/r2": [4, 4, 4, 4, 0]})
    decision = make_wlmap_gang_policy().decide(capacity, Gang("g", pods=2, gpus_per_pod=4))
    assert decision is not None
    assert racks_of(capacity, decision.placement.nodes) == {"b1/r2"}
    assert decision.placement.reason == (
        "rack b1/r2: whole racks broken 0 vs 1 for b1/r1; leaves 1 whole rack free"
    )


SPARE = """
kind: GangObjective
tiers: [{term: communication}, {term: spareCapacity}]
terms: {spareCapacity: {gpus: 4}}
"""


def test_spare_capacity_keeps_a_node_free_in_each_rack_when_it_can() -> None:
    # Both racks hold two 4-GPU pods at cost 1.0 and neither is whole. r1 has 8 GPUs free
    # and would keep 0, 4 under its spare of 4; r2 has 12 free and keeps 4. The tighter fit
    # is r1, but the spare tier comes first: r2.
    capacity = cluster({"b1/r1": [4, 4, 0], "b1/r2": [4, 4, 4, 0]})
    gang = Gang("g", pods=2, gpus_per_pod=4)
    decision = make_wlmap_gang_policy(parse_objective(SPARE)).decide(capacity, gang)
    assert decision is not None
    assert racks_of(capacity, decision.placement.nodes) == {"b1/r2"}
    assert decision.explanation.decided_by == "spareCapacity"
    # Without the spare tier, the tighter fit wins.
    cost_only = parse_objective("kind: GangObjective\ntiers: [{term: communication}]\n")
    plain = make_wlmap_gang_policy(cost_only).decide(capacity, gang)
    assert plain is not None
    assert racks_of(capacity, plain.placement.nodes) == {"b1/r1"}
    assert plain.explanation.decided_by == "tighterFit"


def test_identical_racks_go_to_the_lower_index_and_say_so() -> None:
    capacity = cluster({"b1/r1": [4, 4, 0], "b1/r2": [4, 4, 0]})
    decision = make_wlmap_gang_policy().decide(capacity, Gang("g", pods=2, gpus_per_pod=4))
    assert decision is not None
    assert decision.placement.nodes == ((0, 1), (1, 1))
    assert decision.placement.reason == (
        "rack b1/r1: ties b1/r2 on every term, lowerIndex decides; leaves 0 whole racks free"
    )


PRIORITY = """
kind: GangObjective
tiers: [{term: priority}, {term: wholeFreeDomains}, {term: communication}]
"""


def test_priority_buys_locality_and_leaves_low_priority_gangs_to_keep_racks_whole() -> None:
    capacity = cluster(COST_CASE)
    policy = make_wlmap_gang_policy(parse_objective(PRIORITY))
    # Priority 0: the priority term is 0 everywhere; whole racks decide: block b2 (0 broken).
    low = policy.decide(capacity, Gang("low", pods=4, gpus_per_pod=4, priority=0))
    # Priority 100 (the scale): the term is the cost, 1.0 in b1/r1 against 7.0.
    high = policy.decide(capacity, Gang("high", pods=4, gpus_per_pod=4, priority=100))
    assert low is not None
    assert high is not None
    assert racks_of(capacity, low.placement.nodes) == {"b2/r1", "b2/r2"}
    assert racks_of(capacity, high.placement.nodes) == {"b1/r1"}


def test_balance_sends_the_gang_to_the_emptier_block() -> None:
    # Two 4-GPU pods cost 1.0 in either rack. After placing, block b1 (16 GPUs) would be
    # fully used (share 1.0), block b2 half used (0.5): balance picks b2. The default
    # objective instead keeps b2/r1 whole and picks b1.
    capacity = cluster({"b1/r1": [4, 4, 0, 0], "b2/r1": [4, 4, 4, 4]})
    gang = Gang("g", pods=2, gpus_per_pod=4)
    balance = make_wlmap_gang_policy(
        parse_objective("kind: GangObjective\nweights: {balance: 1}\n")
    )
    spread = balance.decide(capacity, gang)
    packed = make_wlmap_gang_policy().decide(capacity, gang)
    assert spread is not None
    assert packed is not None
    assert racks_of(capacity, spread.placement.nodes) == {"b2/r1"}
    assert racks_of(capacity, packed.placement.nodes) == {"b1/r1"}


def test_a_required_rack_that_no_rack_holds_places_nothing_while_preferred_spreads() -> None:
    capacity = cluster({"b1/r1": [4, 4, 0], "b1/r2": [4, 4, 0]})
    policy = make_wlmap_gang_policy()
    assert policy.place(capacity, Gang("g", pods=4, gpus_per_pod=4, required_level=1)) is None
    spread = policy.place(capacity, Gang("g", pods=4, gpus_per_pod=4, preferred_level=1))
    assert spread is not None
    assert racks_of(capacity, spread.nodes) == {"b1/r1", "b1/r2"}


def test_slices_stay_whole_inside_their_rack() -> None:
    # Slices of two 1-GPU pods per rack. r1 has 3 free GPUs, r2 has 3: six pods would fit
    # as 3 + 3 pods, but only one whole slice fits in each rack (2 + 2 = 4 pods), so a gang
    # of six does not fit; a gang of four goes two by two.
    capacity = cluster({"b1/r1": [3, 0], "b1/r2": [3, 0]})
    policy = make_wlmap_gang_policy()
    assert (
        policy.place(capacity, Gang("g", pods=6, gpus_per_pod=1, slice_size=2, slice_level=1))
        is None
    )
    four = policy.place(capacity, Gang("g", pods=4, gpus_per_pod=1, slice_size=2, slice_level=1))
    assert four is not None
    assert four.nodes == ((0, 2), (2, 2))


def test_a_level_the_topology_lacks_is_a_located_objective_error(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "kind: GangObjective\nweights: {wholeFreeDomains: 1}\n"
        "terms: {wholeFreeDomains: {level: zone}}\n"
    )
    with pytest.raises(ObjectiveError) as caught:
        make_wlmap_gang_policy(path).place(cluster(COST_CASE), Gang("g", 1, 1))
    [problem] = caught.value.problems
    assert (problem.definition, problem.path) == (str(path), "terms.wholeFreeDomains.level")
    assert "level 'zone' is not in the topology" in problem.message


def test_deciding_leaves_the_capacity_untouched_and_repeats_itself() -> None:
    capacity = cluster(COST_CASE)
    before = capacity.node_free.copy()
    policy: GangPolicy = make_wlmap_gang_policy(default_objective())
    assert policy.name == "wlmap"
    first = policy.place(capacity, Gang("g", pods=3, gpus_per_pod=2))
    second = policy.place(capacity, Gang("g", pods=3, gpus_per_pod=2))
    assert first == second
    assert capacity.node_free.tolist() == before.tolist()
    assert load_objective(EXAMPLE).name == "keep-racks-whole"


def test_inside_a_rack_the_gang_packs_as_kueue_best_fit() -> None:
    # Kueue's KEP 2724 example: nodes that take 3, 3, 2 and 1 pods, a gang of 7: the two
    # roomiest nodes whole, then the node that holds exactly the last pod.
    capacity = cluster({"b1/r1": [3, 3, 2, 1]})
    placement = make_wlmap_gang_policy().place(capacity, Gang("g", pods=7, gpus_per_pod=1))
    assert placement is not None
    assert placement.nodes == ((0, 3), (1, 3), (3, 1))


def test_the_rack_with_fewer_pods_of_the_gangs_size_left_wins_a_tie() -> None:
    # A 2-GPU pod costs 0 anywhere and breaks no whole rack. Each rack has a node with
    # exactly 2 free GPUs, so tighterNode ties (0 GPUs left on the node either way). r1's
    # two half-free nodes hold two such pods, r2's 2 + 1 only one: r2 is left with none,
    # r1 keeps room for the next 2-GPU pod.
    capacity = cluster({"b1/r1": [2, 2], "b1/r2": [2, 1]})
    decision = make_wlmap_gang_policy().decide(capacity, Gang("g", pods=1, gpus_per_pod=2))
    assert decision is not None
    assert decision.placement.nodes == ((2, 1),)  # b1-r2-0, the node with 2 free GPUs
    assert decision.placement.reason == (
        "rack b1/r2: ties b1/r1 on every term, fewerSlotsLeft decides; leaves 0 whole racks free"
    )


def test_a_small_pod_fills_a_partly_used_node_before_a_fuller_rack_breaks_a_whole_one() -> None:
    # A 1-GPU pod. r1 has 4 free GPUs, all on one whole node: fewer pods left (3 against
    # r2's 6), but its only node would be broken. r2's node with 1 free GPU fits exactly:
    # the default's first tie-break, tighterNode, takes r2 and keeps r1's node whole.
    capacity = cluster({"b1/r1": [4, 0], "b1/r2": [1, 4, 2]})
    decision = make_wlmap_gang_policy().decide(capacity, Gang("g", pods=1, gpus_per_pod=1))
    assert decision is not None
    assert decision.placement.nodes == ((2, 1),)  # b1-r2-0
    assert decision.explanation.decided_by == "tighterNode"
