"""DotProduct on hand-made clusters."""

from __future__ import annotations

from tests.unit.placement.policies._cluster import fresh, node, pod, use
from wlmap.placement.packing import Placement
from wlmap.placement.packing.policies.dotproduct import DotProductPolicy


def test_least_aligned_free_vector_wins() -> None:
    policy = DotProductPolicy()
    state = fresh(policy, [node("a", 2, cpu=64_000), node("b", 8, cpu=16_000)])
    # pod (8000 CPU, 1000 GPU) -> (0.0625, 0.125) after dividing by (128000, 8000)
    # a: free (0.5, 0.25):  dot = 0.03125 + 0.03125 = 0.0625 -> int(100 * (1 - 0.03125)) = 96
    # b: free (0.125, 1.0): dot = 0.0078125 + 0.125 = 0.1328 -> int(100 * (1 - 0.0664)) = 93
    # a wins (the published plugin prefers the least aligned node); first free GPU is 0.
    assert policy.place(state, pod(cpu=8000)) == Placement(0, (0,))


def test_shared_pod_takes_the_tightest_gpu() -> None:
    policy = DotProductPolicy()
    state = fresh(policy, [node("a", 4, cpu=8000)])
    use(state, 0, 1, 500)  # GPU1: 500 free
    use(state, 0, 2, 800)  # GPU2: 200 free, too little for 300
    assert policy.place(state, pod(cpu=1000, milli=300)) == Placement(0, (1,))
