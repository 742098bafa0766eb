"""wlmap's policy on hand-made clusters where FGD is indifferent and one added term decides."""

from __future__ import annotations

import pytest

from wlmap.placement.model import Node, Placement, Pod
from wlmap.placement.policies._common import tie_rank
from wlmap.placement.policies.fgd import FGDPolicy
from wlmap.placement.policies.wlmap_policy import WlmapPolicy, gap_waste
from wlmap.placement.policy import make_policy
from wlmap.placement.state import ClusterState

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
    # wlmap, "lean": after, 1000 m free but 4000 m CPU feeds 500 m: 500 stranded,
    #   gain 1000 - 500 = 500 -> 62. "rich": 52 cores feed all: gain 1000 -> 73.
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


def test_gap_waste_follows_the_shared_sizes() -> None:
    # One shared size, 500 m: a gap below 500 is never filled (waste = gap); from 500 up
    # the next 500 m pod always fits, so V(r) = V(r - 500).
    waste = gap_waste([500], [1])
    assert waste[200] == pytest.approx(200.0)
    assert waste[500] == pytest.approx(0.0)
    assert waste[700] == pytest.approx(200.0)
    assert waste[1000] == pytest.approx(0.0)
    # Sizes 300 and 500 in equal numbers: at 300 half the pods fit (and close the gap),
    # half do not (waste 300): V(300) = 0.5 * 0 + 0.5 * 300 = 150.
    assert gap_waste([300, 500], [1, 1])[300] == pytest.approx(150.0)


def test_registered_by_name() -> None:
    assert make_policy("wlmap").name == "wlmap"
