"""FGD node and GPU choice on hand-made clusters, scores worked out in the comments."""

from __future__ import annotations

from wlmap.placement.nodes import Node
from wlmap.placement.packing import ClusterState, Placement, Pod, make_policy, tie_rank
from wlmap.placement.packing.policies.fgd import FGDPolicy

A = Pod("a", cpu_milli=4000, memory_mib=1, num_gpu=1, gpu_milli=500)
B = Pod("b", cpu_milli=8000, memory_mib=1, num_gpu=1, gpu_milli=1000)
C = Pod("c", cpu_milli=2000, memory_mib=1, num_gpu=0, gpu_milli=0)
TRACE = [A, A, B, C]  # target weights: A 0.5, B 0.25, C 0.25


def g2(name: str, gpus: int = 2, cpu: int = 64_000) -> Node:
    return Node(name, cpu_milli=cpu, memory_mib=256_000, gpus=gpus, gpu_model="G2")


def start(nodes: list[Node], seed: int = 42) -> tuple[FGDPolicy, ClusterState]:
    policy = FGDPolicy()
    state = ClusterState.from_nodes(nodes)
    policy.reset(state, TRACE, seed)
    return policy, state


def place(policy: FGDPolicy, state: ClusterState, pod: Pod) -> Placement:
    placement = policy.place(state, pod)
    assert placement is not None
    state.assign(pod, placement)
    policy.observe(state, pod, placement)
    return placement


def test_shared_pod_goes_where_it_closes_a_half_used_gpu() -> None:
    policy, state = start([g2("empty"), g2("half")])
    earlier = Pod("x", cpu_milli=0, memory_mib=0, num_gpu=1, gpu_milli=500)
    state.assign(earlier, Placement(1, (1,)))
    policy.observe(state, earlier, Placement(1, (1,)))
    # Fragmentation per node, shapes A (0.5), B (0.25), C (0.25):
    # "empty" [1000, 1000]: A 0, B 0, C 2000 -> 500. A on GPU 0 -> [500, 1000]:
    #   A 0, B 500 (GPU 0 below 1000), C 1500 -> 0.25*500 + 0.25*1500 = 500; gain 0 -> 50.
    # "half" [1000, 500]: A 0, B 500, C 1500 -> 500.
    #   A on GPU 0 -> [500, 500]: B cannot fit (1000), 1000; C 1000 -> 500; gain 0 -> 50.
    #   A on GPU 1 -> [1000, 0]: A 0, B 0, C 1000 -> 250; gain 250 -> int(100 * sigmoid(0.25)) = 56.
    # "half" wins with GPU 1, whatever the tie order.
    assert place(policy, state, A) == Placement(1, (1,))


def test_ties_go_to_the_first_node_of_the_seeded_order() -> None:
    # Two identical empty nodes give equal scores; the per-seed permutation decides.
    for seed in range(42, 52):
        policy, state = start([g2("n0"), g2("n1")], seed)
        first = int(tie_rank(2, seed).argmin())
        assert place(policy, state, B) == Placement(first, (0,))


def test_whole_gpus_are_the_lowest_indexed_fully_free_ones() -> None:
    policy, state = start([g2("n0", gpus=4)])
    earlier = Pod("x", cpu_milli=0, memory_mib=0, num_gpu=1, gpu_milli=300)
    state.assign(earlier, Placement(0, (1,)))
    policy.observe(state, earlier, Placement(0, (1,)))
    two = Pod("two", cpu_milli=1000, memory_mib=1, num_gpu=2, gpu_milli=1000)
    assert place(policy, state, two) == Placement(0, (0, 2))


def test_cpu_pod_keeps_away_from_the_node_it_would_starve() -> None:
    # "small" has 10 cores: a 4-core CPU pod leaves 6, too few for B (8 cores), so B's
    # share of the node (0.25 * 2000 = 500) turns into fragment: gain -500 -> 37.
    # On "big" (64 cores) nothing changes: gain 0 -> 50. "big" wins.
    policy, state = start([g2("small", cpu=10_000), g2("big")])
    cpu_pod = Pod("cpu", cpu_milli=4000, memory_mib=1, num_gpu=0, gpu_milli=0)
    assert place(policy, state, cpu_pod) == Placement(1, ())


def test_no_feasible_node_gives_none() -> None:
    policy, state = start([g2("n0")])
    eight = Pod("eight", cpu_milli=1000, memory_mib=1, num_gpu=8, gpu_milli=1000)
    assert policy.place(state, eight) is None


def test_registered_by_name() -> None:
    assert make_policy("fgd").name == "fgd"
