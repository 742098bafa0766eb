"""Every reaction on hand-worked failures of the seven-node cluster in ``_cluster``."""

from __future__ import annotations

from wlmap.placement.gangs import (
    FreeCapacity,
    Gang,
    GangPlacement,
    KaiStaleGangEviction,
    KueueHotSwap,
    RestartFromScratch,
    SparePool,
    SparePoolSwap,
    WlmapReplacement,
    constraint_problems,
    default_weights,
    make_gang_policy,
    optimal_recovery,
)

from ._cluster import fail, running
from ._firstfit import TopologyFirstFit

FIRST_FIT = TopologyFirstFit()
# 3 pods of 2 GPUs, all in one block, preferably one rack.
TRIO = Gang("trio", 3, 2, required_level=0, preferred_level=1)


def _split_case() -> tuple[FreeCapacity, GangPlacement, tuple[tuple[int, int], ...]]:
    # trio: n0 runs 2 pods (full), n1 runs 1 pod (2 GPUs free). Other work: 2 GPUs on n2,
    # n3 and n4 full. n0 fails: its 2 pods are lost. Room for 2-GPU pods in block b1:
    # n1 1, n2 1, n3 0, n4 0. No single node takes both lost pods.
    capacity, placement = running(TRIO, {0: 2, 1: 1}, busy={2: 2, 3: 4, 4: 4})
    survivors, lost = fail(capacity, placement, [0])
    assert lost == ((0, 2),)
    return capacity, survivors, lost


def test_kueue_requeues_when_no_single_node_of_the_domain_takes_all_lost_pods() -> None:
    capacity, survivors, lost = _split_case()
    recovery = KueueHotSwap().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert recovery.kind == "requeue"
    assert recovery.evicted == 1  # the healthy pod on n1 goes too


def test_wlmap_splits_the_lost_pods_over_the_rack_keeping_the_healthy_pod() -> None:
    capacity, survivors, lost = _split_case()
    before = capacity.node_free.copy()
    recovery = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    # rack r1 first: n1 already runs the gang (1 pod of room), then n2 (1 pod of room)
    assert recovery.kind == "swap"
    assert recovery.moves == ((1, 1), (2, 1))
    assert recovery.evicted == 0
    assert recovery.placement is not None
    assert recovery.placement.nodes == ((1, 2), (2, 1))
    assert constraint_problems(recovery.placement, capacity.topology) == []
    assert (capacity.node_free == before).all()  # the reaction only answers


def test_kai_and_restart_evict_the_healthy_pod_and_place_the_gang_afresh() -> None:
    for reaction, grace in ((KaiStaleGangEviction(), 60.0), (RestartFromScratch(), 0.0)):
        capacity, survivors, lost = _split_case()
        recovery = reaction.recover(capacity, survivors, lost, FIRST_FIT, None)
        # with n1's pod evicted, rack r1 has n1 (2 pods of room) and n2 (1): first fit
        # at the preferred rack level fills n1 then n2.
        assert reaction.grace_s == grace
        assert recovery.kind == "replace"
        assert recovery.evicted == 1
        assert recovery.placement is not None
        assert recovery.placement.nodes == ((1, 2), (2, 1))


def test_kueue_swaps_one_node_for_the_tightest_node_of_the_required_block() -> None:
    # trio on n0 (2 pods) and n1 (1 pod); n2 has 2 GPUs of other work, n3 is free, n4 runs
    # 4 GPUs. n0 fails. Nodes of block b1 that take both lost pods: only n3 (room 2).
    capacity, placement = running(TRIO, {0: 2, 1: 1}, busy={2: 2, 4: 4})
    survivors, lost = fail(capacity, placement, [0])
    recovery = KueueHotSwap().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert recovery.kind == "swap"
    assert recovery.moves == ((3, 2),)
    # wlmap stays in rack r1: n1 (holds the gang, room 1) then n2 (room 1)
    ours = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert ours.moves == ((1, 1), (2, 1))


def test_two_failed_nodes_requeue_in_kueue_and_wlmap_never_leaves_the_required_block() -> None:
    # 4 pods of 4 GPUs, required block b1: n0, n1, n2 (rack r1) and n3 (rack r2); n4 free.
    quad = Gang("quad", 4, 4, required_level=0, preferred_level=1)
    capacity, placement = running(quad, {0: 1, 1: 1, 2: 1, 3: 1})
    survivors, lost = fail(capacity, placement, [0, 1])  # two nodes of r1 fail together
    kueue = KueueHotSwap().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert (kueue.kind, kueue.evicted) == ("requeue", 2)
    ours = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    # r1 has no room (n2 full), r2 holds the gang too: n4 takes one pod; the block has no
    # other node, so moves fail; re-placing the whole gang in block b1 needs 4 free nodes
    # and b1 has n2, n3, n4 once the survivors are evicted; block b2 has 2 nodes. Requeue.
    assert (ours.kind, ours.evicted) == ("requeue", 2)
    # with n5/n6's block unavailable, nothing may leave block b1: never a violation
    capacity.restore(0, 4)  # n0 repaired: now the block has 4 usable nodes
    ours = WlmapReplacement().recover(capacity, survivors, ((1, 1),), FIRST_FIT, None)
    assert ours.kind == "swap"
    assert ours.moves == ((0, 1),)  # back into rack r1, the finest domain holding the gang


def test_without_a_required_level_wlmap_goes_up_the_tree_and_wlmap_local_re_places() -> None:
    # 2 pods of 4 GPUs, preferred rack only, on n0 and n1; n2 busy; rack r2 has n3 free.
    pair = Gang("pair", 2, 4, preferred_level=1)
    capacity, placement = running(pair, {0: 1, 1: 1}, busy={2: 4, 4: 4, 5: 4})
    survivors, lost = fail(capacity, placement, [0])
    # wlmap: rack r1 is full; block b1 (holds the gang) has n3: the lost pod moves there
    moved = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert (moved.kind, moved.moves, moved.evicted) == ("swap", ((3, 1),), 0)
    ours = WlmapReplacement(keep_domain=True).recover(capacity, survivors, lost, FIRST_FIT, None)
    # rack r1 is full, so the gang is re-placed whole; first fit at the rack level: r1 has
    # n1 only, r2 has n3 only, r3 has n6 only; one level up (block) b1 has n1 and n3.
    assert ours.kind == "replace"
    assert ours.placement is not None and ours.placement.nodes == ((1, 1), (3, 1))


class _Nowhere:
    name = "nowhere"

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        return None


def test_when_the_policy_finds_nothing_wlmap_still_moves_lost_pods_of_an_unbound_gang() -> None:
    pair = Gang("pair", 2, 4, preferred_level=1)
    capacity, placement = running(pair, {0: 1, 1: 1}, busy={2: 4, 4: 4, 5: 4})
    survivors, lost = fail(capacity, placement, [0])
    ours = WlmapReplacement(keep_domain=True).recover(capacity, survivors, lost, _Nowhere(), None)
    # rack r1 (full, and the gang's domain); re-placement finds nothing; with no required
    # level the lost pod may then go up the tree: block b1 has n3
    assert ours.kind == "swap"
    assert ours.moves == ((3, 1),)


def test_spare_pool_moves_lost_pods_to_spares_only_and_wlmap_prefers_them() -> None:
    pair = Gang("pair", 2, 4, preferred_level=1)
    capacity, placement = running(pair, {0: 1, 1: 1})
    # 34 % per rack, fractions carried: r1 1.02 -> n2; r2 0.70 -> none; r3 1.38 -> n6
    spares = SparePool(capacity, 34)
    assert spares.nodes == (2, 6)
    assert capacity.node_free.tolist() == [0, 0, 0, 4, 4, 4, 0]
    survivors, lost = fail(capacity, placement, [0])
    for reaction in (SparePoolSwap(34), WlmapReplacement(34)):
        recovery = reaction.recover(capacity, survivors, lost, FIRST_FIT, spares)
        assert recovery.kind == "swap"
        assert recovery.moves == ((2, 1),)  # the spare in the gang's own rack
        assert recovery.lend == ((2, 4),)
    # with the rack's spare gone, the spare pool uses r3's spare; wlmap-local keeps to its
    # rack... which is full, so it re-places the whole gang, seeing the spares; wlmap
    # goes up to block b1 first, where n3 is free.
    spares.lend(capacity, 2, 4)
    capacity.take(2, 4)
    pool = SparePoolSwap(34).recover(capacity, survivors, lost, FIRST_FIT, spares)
    assert pool.moves == ((6, 1),)
    ours = WlmapReplacement(34, keep_domain=True).recover(
        capacity, survivors, lost, FIRST_FIT, spares
    )
    assert ours.kind == "replace"
    assert ours.placement is not None and ours.placement.nodes == ((3, 1), (4, 1))
    up = WlmapReplacement(34).recover(capacity, survivors, lost, FIRST_FIT, spares)
    assert up.moves == ((3, 1),)


def test_wlmap_moves_the_whole_slices_of_a_failed_rack_to_the_nearest_racks_with_room() -> None:
    # 6 pods of 2 GPUs in slices of 2 per rack: one slice on n2 (rack r1), two on n3 and n4
    # (rack r2). n0 is full with other work. Rack r2 fails whole: its two slices are lost
    # and r2 has no room left. r1 takes one whole slice (n1: 4 GPUs free), rack r3 of the
    # other block the other (n5, the lower index of two empty nodes); no pod is evicted.
    gang = Gang("tp", 6, 2, preferred_level=1, slice_size=2, slice_level=1)
    capacity, placement = running(gang, {2: 2, 3: 2, 4: 2}, busy={0: 4})
    survivors, lost = fail(capacity, placement, [3, 4])
    recovery = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert recovery.kind == "swap"
    assert recovery.moves == ((1, 2), (5, 2))
    assert recovery.evicted == 0
    assert recovery.placement is not None
    assert recovery.placement.nodes == ((1, 2), (2, 2), (5, 2))
    assert constraint_problems(recovery.placement, capacity.topology) == []


def test_wlmap_takes_along_only_the_survivor_of_a_slice_the_fault_cut() -> None:
    # 4 pods of 2 GPUs in slices of 2 per rack, all in block b1: one slice split over n1
    # and n2 (rack r1), one on n3 (rack r2). n2 fails; r1 has no room (n0 full, n1 holds 2
    # GPUs of other work). The cut slice's survivor on n1 is evicted and the slice goes
    # whole to n4 in rack r2; the slice on n3 keeps running.
    gang = Gang("cut", 4, 2, required_level=0, slice_size=2, slice_level=1)
    capacity, placement = running(gang, {1: 1, 2: 1, 3: 2}, busy={0: 4, 1: 2})
    survivors, lost = fail(capacity, placement, [2])
    recovery = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert recovery.kind == "swap"
    assert recovery.freed == ((1, 1),)
    assert recovery.evicted == 1
    assert recovery.moves == ((4, 2),)
    assert recovery.placement is not None
    assert recovery.placement.nodes == ((3, 2), (4, 2))
    assert constraint_problems(recovery.placement, capacity.topology) == []


def test_wlmap_holds_the_healthy_pods_while_room_may_still_free_up_in_its_domain() -> None:
    # pair on n0 and n1; every other node is full with other work. n0 fails: no node has
    # room for the lost pod and the pair cannot be re-placed whole, but the cluster's other
    # nodes would hold it once their work finishes: wlmap waits with n1 held, evicting
    # nothing, where Kueue requeues the pair.
    pair = Gang("pair", 2, 4, preferred_level=1)
    busy = dict.fromkeys((2, 3, 4, 5, 6), 4)
    capacity, placement = running(pair, {0: 1, 1: 1}, busy=busy)
    survivors, lost = fail(capacity, placement, [0])
    waited = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert waited.kind == "wait"
    assert waited.evicted == 0
    assert KueueHotSwap().recover(capacity, survivors, lost, FIRST_FIT, None).kind == "requeue"
    # without hold, wlmap requeues too
    whole = WlmapReplacement(hold=False).recover(capacity, survivors, lost, FIRST_FIT, None)
    assert whole.kind == "requeue"


def test_wlmap_holds_a_sliced_gang_larger_than_one_rack_instead_of_requeueing_it() -> None:
    # 8 pods of 2 GPUs in slices of 2 per rack: n0, n1 (rack r1) and n3, n4 (rack r2), 2
    # pods each. n0 fails; no rack has room for the lost slice and the gang cannot be
    # re-placed whole, but the cluster would hold it once other work finishes. A rack could
    # never hold the whole gang, which is no reason to requeue it: wlmap waits.
    gang = Gang("tp8", 8, 2, slice_size=2, slice_level=1)
    busy = dict.fromkeys((2, 5, 6), 4)
    capacity, placement = running(gang, {0: 2, 1: 2, 3: 2, 4: 2}, busy=busy)
    survivors, lost = fail(capacity, placement, [0])
    recovery = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert recovery.kind == "wait"
    assert recovery.evicted == 0


def test_wlmap_requeues_when_its_required_rack_could_not_hold_it_even_empty() -> None:
    # trio fills rack r1 (n0, n1, n2) and must stay in one rack; n0 fails, so r1 keeps 2
    # nodes for 3 pods until the repair, and racks r2 and r3 are full: waiting in r1 is
    # futile, so the gang is requeued whole.
    trio = Gang("rack3", 3, 4, required_level=1)
    capacity, placement = running(trio, {0: 1, 1: 1, 2: 1}, busy=dict.fromkeys((3, 4, 5, 6), 4))
    survivors, lost = fail(capacity, placement, [0])
    recovery = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    assert recovery.kind == "requeue"
    assert recovery.evicted == 2


def test_wlmap_moves_lost_pods_to_the_rack_holding_most_of_the_gang_as_the_optimum_does() -> None:
    # 6 pods of 1 GPU: n0 2 (rack r1), n3 4 (rack r2, full). n0 fails. Room: n1 2 (r1,
    # exactly the 2 lost pods), n4 3 (r2). Best fit alone takes n1 and leaves the gang
    # split over two racks; rack r2 already holds 4 of its pods, so n4 joins them all.
    gang = Gang("six", 6, 1)
    capacity, placement = running(gang, {0: 2, 3: 4}, busy={1: 2, 2: 4, 4: 1})
    survivors, lost = fail(capacity, placement, [0])
    recovery = WlmapReplacement().recover(capacity, survivors, lost, FIRST_FIT, None)
    best = optimal_recovery(capacity, survivors, default_weights(2))
    assert recovery.kind == "swap"
    assert recovery.moves == ((4, 2),)
    assert best is not None
    assert recovery.placement is not None
    assert recovery.placement.nodes == best.placement.nodes == ((3, 4), (4, 2))


def test_wlmap_places_a_gang_that_lost_every_pod_with_its_policy_in_one_rack() -> None:
    # 2 pods of 2 GPUs, both on n0, which fails. Room: n1 (rack r1) and n3, n4 (rack r2)
    # one pod each; n2 and b2 full. Filling tier by tier would put one pod on n1 (the
    # failed node's rack) and one in r2, across racks; the policy keeps both in r2, as the
    # optimum does.
    pair = Gang("pair", 2, 2)
    capacity, placement = running(pair, {0: 2}, busy={1: 2, 2: 4, 3: 2, 4: 2, 5: 4, 6: 4})
    survivors, lost = fail(capacity, placement, [0])
    recovery = WlmapReplacement().recover(
        capacity, survivors, lost, make_gang_policy("wlmap"), None
    )
    best = optimal_recovery(capacity, survivors, default_weights(2))
    assert recovery.kind == "replace"
    assert recovery.evicted == 0
    assert recovery.placement is not None and best is not None
    assert recovery.placement.nodes == best.placement.nodes == ((3, 1), (4, 1))


def test_wlmap_moves_the_lost_pod_of_a_split_gang_near_its_survivor_not_its_old_rack() -> None:
    # 2 pods of 4 GPUs: n0 (block b1) and n5 (block b2). n5 fails. b2's other node n6 is
    # free, but the survivor runs in b1, where n3 is free: rack-level pairs (b1) beat
    # pairs across blocks, with one pod moved either way.
    pair = Gang("pair", 2, 4)
    capacity, placement = running(pair, {0: 1, 5: 1}, busy={1: 4, 2: 4, 4: 4})
    survivors, lost = fail(capacity, placement, [5])
    recovery = WlmapReplacement().recover(
        capacity, survivors, lost, make_gang_policy("wlmap"), None
    )
    best = optimal_recovery(capacity, survivors, default_weights(2))
    assert recovery.moves == ((3, 1),)
    assert best is not None and recovery.placement is not None
    assert recovery.placement.nodes == best.placement.nodes == ((0, 1), (3, 1))
