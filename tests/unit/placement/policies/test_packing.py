"""GPU Packing on hand-made clusters."""

from __future__ import annotations

import numpy as np

from tests.unit.placement.policies._cluster import fresh, node, pod, use
from wlmap.placement.packing import ClusterState, Placement, place_each, tie_rank
from wlmap.placement.packing.policies.gpu_packing import PackingPolicy


def cluster() -> tuple[PackingPolicy, ClusterState]:
    policy = PackingPolicy()
    state = fresh(policy, [node("a", 2), node("b", 8), node("c", 1), node("d", 8)])
    use(state, 0, 0, 700)  # a: GPU0 300 free, GPU1 free
    use(state, 1, 3, 400)  # b: GPU3 600 free, the other seven free
    return policy, state  # c (1 GPU) and d (8 GPUs) are idle


def test_shared_pod_prefers_the_fullest_shared_gpu() -> None:
    policy, state = cluster()
    # a: shares GPU0 (300 free = 30 %): 100 - 30//10 = 97
    # b: shares GPU3 (600 free = 60 %): 100 - 6 = 94
    # c: idle, 1 GPU: max(33 - 1, 1) = 32;  d: idle, 8 GPUs: max(33 - 8, 8) = 25
    assert policy.place(state, pod(milli=250)) == Placement(0, (0,))


def test_shared_pod_that_fits_no_shared_gpu() -> None:
    policy, state = cluster()
    # a: GPU0 (300 free) is too small, a fully free GPU is needed: 50 - 1 = 49
    # b: shares GPU3: 94 -> b, GPU3
    assert policy.place(state, pod(milli=400)) == Placement(1, (3,))


def test_multi_gpu_pod_prefers_a_used_node_then_small_idle_nodes() -> None:
    policy, state = cluster()
    # a has one free GPU (infeasible); b: two free GPUs on a used node: 50 - 2 = 48; d: 25
    assert policy.place(state, pod(num=2)) == Placement(1, (0, 1))
    state2 = ClusterState.from_nodes([node("c", 1), node("d", 8)])
    policy.reset(state2, [], 42)
    # both idle: c scores 32, d 25 -> the one-GPU node
    assert policy.place(state2, pod()) == Placement(0, (0,))


def test_equal_scores_go_to_the_seed_order() -> None:
    policy, state = cluster()
    # one whole GPU: a and b both need a fully free GPU on a used node: 49 each
    rank = tie_rank(4, 42)
    winner = 0 if rank[0] < rank[1] else 1
    expected_gpu = 1 if winner == 0 else 0
    assert policy.place(state, pod()) == Placement(winner, (expected_gpu,))
    assert sorted(int(np.argmin(tie_rank(4, s))) for s in range(20)) != [0] * 20


def test_cpu_only_pods_fill_the_first_node_until_its_cpu_runs_out() -> None:
    # As the published simulator does it: a CPU-only pod scores 0 everywhere and goes to
    # the first node in the seed order that fits it; a node whose CPU is gone cannot take
    # a GPU pod however free its GPUs are, and CPU-only pods leave a node "idle" for the
    # GPU score (every GPU still free).
    policy = PackingPolicy()
    a, b, c = node("a", 8, cpu=16_000), node("b", 2), node("c", 8)
    state = fresh(policy, [a, b, c], seed=41)
    assert list(tie_rank(3, 41)) == [0, 1, 2]  # a, then b, then c
    cpu_only = pod(cpu=8000, num=0)
    arrivals = [cpu_only, cpu_only, cpu_only, pod(), pod(milli=500)]
    placed = [placement for _, placement in place_each(state, policy, arrivals)]
    assert placed == [
        Placement(0, ()),  # a: 16 cores -> 8 left
        Placement(0, ()),  # a: 0 left
        Placement(1, ()),  # a is full: the next node in the seed order
        # a: no CPU left; b: every GPU free, 2 GPUs: max(33 - 2, 2) = 31; c: 25
        Placement(1, (0,)),
        # b: no shared GPU fits, a free GPU on a used node: 50 - 1 = 49; c: 25
        Placement(1, (1,)),
    ]
