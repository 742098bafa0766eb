"""GPU Clustering on hand-made clusters."""

from __future__ import annotations

import numpy as np

from tests.unit.placement.policies._cluster import fresh, node, occupy, pod
from wlmap.placement.packing import ClusterState, Placement, tie_rank
from wlmap.placement.packing.policies.clustering import ClusteringPolicy


def cluster() -> tuple[ClusteringPolicy, ClusterState]:
    policy = ClusteringPolicy()
    state = fresh(policy, [node("a", 4), node("b", 4), node("c", 4)])
    occupy(policy, state, 0, 0, 500)  # a: one shared pod (class "shared"), 3500 free
    occupy(policy, state, 1, 0, 1000)  # b: one whole-GPU pod (class "1 GPU"), 3000 free
    return policy, state  # c stays empty: 4000 free


def test_shared_pod_joins_the_node_of_shared_pods() -> None:
    policy, state = cluster()
    # a: 25*(8000-3500)//8000 = 14, only shared pods there: +75 -> 89
    # b: 25*(8000-3000)//8000 = 15, only other classes: +0 -> 15
    # c: 25*(8000-4000)//8000 = 12, no GPU pod yet: +25 -> 37
    # a wins; its tightest GPU with room for 200 is GPU0 (500 free).
    assert policy.place(state, pod(milli=200)) == Placement(0, (0,))


def test_whole_gpu_pod_joins_its_class_and_mixed_nodes_rank_second() -> None:
    policy, state = cluster()
    # a: 14 + 0 = 14; b: 15 + 75 = 90; c: 12 + 25 = 37 -> b, first fully free GPU is 1
    assert policy.place(state, pod()) == Placement(1, (1,))
    occupy(policy, state, 1, 1, 300)  # b now mixes both classes: a later 1-GPU pod
    # b: 25*(8000-2700)//8000 = 16 + 50 = 66, still above c (37) and a (14)
    assert policy.place(state, pod()) == Placement(1, (2,))


def test_cpu_only_pod_goes_to_the_first_node_in_the_seed_order() -> None:
    policy, state = cluster()
    # every node scores 0: the node with tie rank 0 wins
    expected = int(np.argmin(tie_rank(3, 42)))
    assert policy.place(state, pod(num=0)) == Placement(expected, ())
