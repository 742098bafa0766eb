"""wlmap's policy on hand-made clusters where FGD is indifferent and one added term decides."""

from __future__ import annotations

import numpy as np
import pytest

from wlmap.placement.nodes import Node
from wlmap.placement.packing import ClusterState, Placement, Pod, make_policy, share_plan, tie_rank
from wlmap.placement.packing.policies._node_pressure import NodePressure
from wlmap.placement.packing.policies.fgd import FGDPolicy
from wlmap.placement.packing.policies.wlmap_policy import WlmapPolicy

SEEDS = range(42, 52)


def node(name: str, cpu: int, model: str = "G2") -> Node:
    return Node(name, cpu_milli=cpu, memory_mib=256_000, gpus=2, gpu_model=model)


def choose(
    policy: FGDPolicy, nodes: list[Node], trace: list[Pod], pod: Pod, seed: int
) -> Placement | None:
    state = ClusterState.from_nodes(nodes)
    policy.reset(state, trace, seed)
    return policy.place(state, pod)


def test_gpu_pod_avoids_the_node_whose_cpu_it_would_exhaust() -> None:
    # 20 CPU-only pods and one GPU pod: the target is the CPU-only shape alone, so FGD sees
    # every free GPU as fragment and any node gains the same 1000 m: the tie order decides.
    # CPU per GPU-milli asked by the trace's GPU pods: 8000 / 1000 = 8.
    trace = [Pod(f"c{i}", 2000, 1, 0, 0) for i in range(20)] + [Pod("g", 8000, 1, 1, 1000)]
    nodes = [node("lean", cpu=16_000), node("rich", cpu=64_000)]
    pod = Pod("p", cpu_milli=12_000, memory_mib=1, num_gpu=1, gpu_milli=1000)
    # wlmap, "lean": after, 1000 m free but 4000 m CPU feeds 500 m: 500 stranded, weight 2,
    #   gain 1000 - 2 * 500 = 0 -> 50. "rich": 52 cores feed all: gain 1000 -> 73.
    for seed in SEEDS:
        first = int(tie_rank(2, seed).argmin())
        assert choose(FGDPolicy(), nodes, trace, pod, seed) == Placement(first, (0,))
        assert choose(WlmapPolicy(), nodes, trace, pod, seed) == Placement(1, (0,))


def test_gpu_pod_avoids_the_node_whose_memory_it_would_exhaust() -> None:
    # As above, with memory: the trace's GPU pod asks 8000 MiB per GPU, 8 MiB per GPU-milli
    # (and 1 core per GPU, so CPU strands nothing here). FGD gains 1000 on both nodes.
    # wlmap, "lean" (16000 MiB): before, 2000 m free and 2000 fed: 0; after, 1000 m free
    #   and 4000 MiB feeds 500: 500 stranded, gain 1000 - 500 = 500 -> 62.
    #   "rich" (256000 MiB): gain 1000 -> 73.
    trace = [Pod(f"c{i}", 2000, 1, 0, 0) for i in range(20)] + [Pod("g", 1000, 8000, 1, 1000)]
    nodes = [
        Node("lean", cpu_milli=64_000, memory_mib=16_000, gpus=2, gpu_model="G2"),
        Node("rich", cpu_milli=64_000, memory_mib=256_000, gpus=2, gpu_model="G2"),
    ]
    pod = Pod("p", cpu_milli=1000, memory_mib=12_000, num_gpu=1, gpu_milli=1000)
    for seed in SEEDS:
        first = int(tie_rank(2, seed).argmin())
        assert choose(FGDPolicy(), nodes, trace, pod, seed) == Placement(first, (0,))
        assert choose(WlmapPolicy(), nodes, trace, pod, seed) == Placement(1, (0,))


def test_unrestricted_pod_leaves_a_contested_model_alone() -> None:
    # 20 unrestricted pods U and one T4-only pod: the target is U alone, which fits either
    # node before and after with no fragment, so FGD scores both 50 and the order decides.
    # T4 pressure: 1000 m of T4-only demand on 2000 m of T4, times capacity 4000 m over
    # trace demand 21000 m = 0.0952; U pays 95 m on T4: int(100 * sigmoid(-0.095)) = 47 < 50.
    trace = [Pod(f"u{i}", 1000, 1, 1, 1000) for i in range(20)]
    trace.append(Pod("t", 1000, 1, 1, 1000, gpu_models=frozenset({"T4"})))
    nodes = [node("t4", 64_000, "T4"), node("g2", 64_000, "G2")]
    pod = Pod("p", cpu_milli=1000, memory_mib=1, num_gpu=1, gpu_milli=1000)
    for seed in SEEDS:
        first = int(tie_rank(2, seed).argmin())
        assert choose(FGDPolicy(), nodes, trace, pod, seed) == Placement(first, (0,))
        assert choose(WlmapPolicy(), nodes, trace, pod, seed) == Placement(1, (0,))


def test_pod_leaves_the_only_node_a_cpu_heavy_shape_fits_to_it() -> None:
    # 20 one-GPU pods of 1 core and one 8-GPU pod of 120 cores, which fits only the node
    # with 128 cores. The target is the one-GPU shape alone (20 of 21 pods cover 95 %); it
    # fits both nodes before and after, so FGD gains 0 on each (score 50) and the order
    # decides. CPU per GPU-milli asked: 140 cores / 28 GPUs = 5 per GPU: nothing stranded.
    # Pressure of the 8-GPU shape on "rich": its 8000 m, times capacity 16000 m over trace
    # demand 28000 m, over rich's 8000 m = 0.571 per GPU-milli. The one-GPU pod fits both
    # nodes, a strict superset, and pays 571 m on "rich": int(100 * sigmoid(-0.571)) = 36.
    trace = [Pod(f"u{i}", 1000, 1, 1, 1000) for i in range(20)]
    trace.append(Pod("big", 120_000, 1, 8, 1000))
    nodes = [
        Node("lean", cpu_milli=96_000, memory_mib=256_000, gpus=8, gpu_model="G2"),
        Node("rich", cpu_milli=128_000, memory_mib=256_000, gpus=8, gpu_model="G2"),
    ]
    pod = Pod("p", cpu_milli=1000, memory_mib=1, num_gpu=1, gpu_milli=1000)
    for seed in SEEDS:
        first = int(tie_rank(2, seed).argmin())
        assert choose(FGDPolicy(), nodes, trace, pod, seed) == Placement(first, (0,))
        assert choose(WlmapPolicy(), nodes, trace, pod, seed) == Placement(0, (0,))
    pressure = NodePressure(nodes, trace)
    assert pressure.pressure(pod) == pytest.approx([0, 8000 * 16 / 28 / 8000])
    # A pod that fits only "rich" itself has nowhere else to go and pays nothing there.
    narrow = Pod("n", cpu_milli=100_000, memory_mib=1, num_gpu=1, gpu_milli=1000)
    assert pressure.pressure(narrow) == pytest.approx([0, 0])


def test_share_prices_come_from_the_best_packing_of_the_shared_sizes() -> None:
    # Sizes 470 and 320: the configurations are {470, 470}, {470, 320} and {320, 320, 320}
    # (nothing else fits beside them). The dual, max y470 + y320 with 2 y470 <= 1,
    # y470 + y320 <= 1 and 3 y320 <= 1, has the one optimum y470 = 1/2, y320 = 1/3.
    plan = share_plan([320, 470], [10, 10])
    assert plan.price[470] == pytest.approx(0.5)
    assert plan.price[320] == pytest.approx(1 / 3)
    # Gap values: 530 takes one 470 (1/2), 680 two 320s (2/3), 1000 two 470s (1), 210 none.
    assert plan.gap_value[[210, 530, 680, 1000]] == pytest.approx([0, 0.5, 2 / 3, 1])
    # A 320 in the 530 m gap of a 470: 1/2 - 1/3 - value(210) = 1/6 GPU spoiled; on a free
    # GPU: 1 - 1/3 - value(680) = 0; a 470 in that gap: 1/2 - 1/2 - value(60) = 0.
    assert plan.cost(320, np.array([530, 1000])) == pytest.approx([1 / 6, 0])
    assert plan.cost(470, np.array([530])) == pytest.approx([0])
    # No shared pods in the trace: nothing is ever spoiled.
    assert share_plan([], []).cost(320, np.array([530, 1000])) == pytest.approx([0, 0])


def test_shared_pod_leaves_a_gap_for_the_size_that_closes_it() -> None:
    # Trace: ten each of 470 m, 320 m and whole-GPU pods (1 core each); the target is the
    # three shapes, 1/3 each. One node, GPU 0 holds a 470 m pod (530 free), GPU 1 is free.
    # A 320 m pod, FGD: on GPU 0 the gaps are (210, 1000): 210 is a fragment for all three
    # shapes, F = 210; before, F = 530 / 3 (only the whole GPU shape misses GPU 0).
    # Gain -33.3: int(100 * sigmoid(-0.0333)) = 49. On GPU 1, (530, 680): no whole GPU
    # left, F = 1210 / 3, gain -226.7 -> 44. FGD takes GPU 0.
    # wlmap adds 10 * 1000 * 1/6 (the spoiled share above) on GPU 0: gain -1700 -> 15;
    # GPU 1 spoils nothing and keeps 44 (CPU and memory strand nothing: 63 cores and
    # 255 GB feed every GPU).
    trace = [Pod(f"a{i}", 1000, 1, 1, 470) for i in range(10)]
    trace += [Pod(f"b{i}", 1000, 1, 1, 320) for i in range(10)]
    trace += [Pod(f"w{i}", 1000, 1, 1, 1000) for i in range(10)]
    nodes = [node("only", cpu=64_000)]
    pod = Pod("p", cpu_milli=1000, memory_mib=1, num_gpu=1, gpu_milli=320)
    placed = Pod("earlier", cpu_milli=0, memory_mib=0, num_gpu=1, gpu_milli=470)
    for policy, gpu in ((FGDPolicy(), 0), (WlmapPolicy(), 1)):
        state = ClusterState.from_nodes(nodes)
        state.assign(placed, Placement(0, (0,)))
        policy.reset(state, trace, 42)
        assert policy.place(state, pod) == Placement(0, (gpu,))


def test_registered_by_name() -> None:
    assert make_policy("wlmap").name == "wlmap"
