"""A GPU gap is worth only the shared pods its node's free CPU and memory can still feed."""

from __future__ import annotations

import numpy as np
import pytest

from wlmap.placement.nodes import Node
from wlmap.placement.packing import ClusterState, Placement, Pod, share_plan, tie_rank
from wlmap.placement.packing.policies._fed_gaps import FedGaps
from wlmap.placement.packing.policies.fgd import FGDPolicy
from wlmap.placement.packing.policies.wlmap_policy import WlmapPolicy


def test_gap_value_counts_the_pods_that_still_fit() -> None:
    # One size, 470 m, price 1/2: a 530 m gap takes one. Half of the 470 m pods ask
    # 4 cores and 8 GiB, half 8 cores and 16 GiB.
    shared = [Pod(f"s{i}", 4000, 8192, 1, 470) for i in range(5)]
    shared += [Pod(f"l{i}", 8000, 16384, 1, 470) for i in range(5)]
    gaps = FedGaps(share_plan([470], [10]), shared)
    gap = np.array([530, 530, 530, 530, 530, 1000])
    cpu = np.array([8000, 6000, 3999, 8000, 8000, 8000])
    memory = np.array([16384, 16384, 16384, 10000, 8191, 16384])
    # all fit; the small half (CPU); none (CPU); the small half (memory); none (memory);
    # a whole free GPU takes two
    assert gaps.value(gap, cpu, memory) == pytest.approx([0.5, 0.25, 0, 0.25, 0, 1])


def test_no_shared_pods_spoil_nothing() -> None:
    gaps = FedGaps(share_plan([], []), [])
    pod = Pod("p", 1000, 1, 1, 320)
    cost = gaps.cost(pod, np.array([530, 1000]), np.array([0, 0]), np.array([0, 0]))
    assert cost == pytest.approx([0, 0])


def test_shared_pod_keeps_its_gap_where_the_next_one_finds_cpu() -> None:
    # 40 CPU-only pods, one 470 m pod of 8 cores, one 8-GPU pod of 1 core. The target is
    # the CPU-only shape alone (40 of 42 pods cover 95 %), so FGD counts every free GPU-milli
    # as fragment and gains 470 on either node: the tie order decides. CPU per GPU-milli
    # asked: 9000 / 8470, about 1 core per GPU, so neither node strands a GPU for CPU, and
    # the 8-GPU pod fits no node (no node pressure).
    # The 470 m pod leaves 530 m (worth one more 470 m pod, 1/2 GPU) on either node. On
    # "lean" (12 cores) it leaves 4 cores, which feed no 470 m pod: the gap is worth 0 and
    # 1 - 1/2 - 0 = 1/2 GPU is spoiled, 10 * 1000 * 1/2 GPU-milli: gain 470 - 5000 -> 1.
    # On "rich" (64 cores) nothing is spoiled: gain 470 -> 61.
    trace = [Pod(f"c{i}", 1000, 1, 0, 0) for i in range(40)]
    trace += [Pod("half", 8000, 1, 1, 470), Pod("big", 1000, 1, 8, 1000)]
    nodes = [
        Node("lean", cpu_milli=12_000, memory_mib=256_000, gpus=1, gpu_model="G2"),
        Node("rich", cpu_milli=64_000, memory_mib=256_000, gpus=1, gpu_model="G2"),
    ]
    pod = Pod("p", cpu_milli=8000, memory_mib=1, num_gpu=1, gpu_milli=470)
    for seed in range(42, 52):
        first = int(tie_rank(2, seed).argmin())
        for policy, chosen in ((FGDPolicy(), first), (WlmapPolicy(), 1)):
            state = ClusterState.from_nodes(nodes)
            policy.reset(state, trace, seed)
            assert policy.place(state, pod) == Placement(chosen, (0,))
