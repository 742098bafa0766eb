"""A GPU's gap needs the CPU and memory of the shared pods that fit it, and a pod that takes
them pays for the gap."""

from __future__ import annotations

import numpy as np
import pytest

from wlmap.placement.nodes import Node
from wlmap.placement.packing import MILLI, ClusterState, Placement, Pod
from wlmap.placement.packing.policies._gap_needs import gap_needs
from wlmap.placement.packing.policies._share_plan import SharePlan
from wlmap.placement.packing.policies.wlmap_policy import WlmapPolicy


def plan(prices: dict[int, float]) -> SharePlan:
    price = np.zeros(MILLI + 1)
    for size, value in prices.items():
        price[size] = value
    return SharePlan(price, np.zeros(MILLI + 1))


def test_a_gap_needs_what_the_sizes_that_fit_it_ask() -> None:
    # 300 m: one pod of 1 core, 100 MiB. 500 m: two pods of 8 and 4 cores (mean 6),
    # 1000 and 200 MiB (mean 600). 100 m: priced 0, so it fills no gap the plan counts.
    shared = [
        Pod("a", 1000, 100, 1, 300),
        Pod("b", 8000, 1000, 1, 500),
        Pod("c", 4000, 200, 1, 500),
        Pod("d", 500, 50, 1, 100),
    ]
    cpu, memory = gap_needs(plan({300: 1 / 3, 500: 1 / 2}), shared, 2.0, 5.0)
    # below 300 m no priced size fits; from 300 to 499 m only a 300 m pod does.
    assert cpu[[100, 299, 300, 499]] == pytest.approx([0, 0, 1000, 1000])
    assert memory[[299, 300, 499]] == pytest.approx([0, 100, 100])
    # 600 m: a 300 m pod one time in three (then 300 m left: another, 1000 + 1000),
    # a 500 m pod two times in three (then 100 m left: nothing, 6000).
    assert cpu[600] == pytest.approx(2000 / 3 + 2 * 6000 / 3)
    assert memory[600] == pytest.approx(200 / 3 + 2 * 600 / 3)
    # a whole free GPU needs the trace's average per thousandth
    assert (cpu[MILLI], memory[MILLI]) == pytest.approx((2000.0, 5000.0))


def test_without_a_share_plan_every_share_needs_the_average() -> None:
    shared = [Pod("a", 1000, 100, 1, 300)]
    cpu, memory = gap_needs(plan({}), shared, 2.0, 5.0)
    assert cpu[[0, 530, MILLI]] == pytest.approx([0, 1060, 2000])
    assert memory[[0, 530, MILLI]] == pytest.approx([0, 2650, 5000])


def test_a_pod_pays_for_the_gap_whose_cpu_it_takes() -> None:
    # Four 470 m pods of 8 cores (price 1/2: two per GPU) and four whole-GPU pods. After a
    # 470 m pod lands on node 0, its GPU 0 has a 530 m gap and the node 12 cores: a 470 m
    # pod still fits, the gap is worth 1/2 GPU. A whole-GPU pod of 8 cores leaves 4 cores
    # there: no 470 m pod fits any more, the gap is worth 0, and the pod pays
    # 10 x 1000 x 1/2 = 5000 GPU-milli. Node 1 has no gap; a pod of 4 cores leaves 8.
    trace = [Pod(f"s{i}", 8000, 1000, 1, 470) for i in range(4)]
    trace += [Pod(f"w{i}", 4000, 1000, 1, 1000) for i in range(4)]
    nodes = [
        Node(f"n{i}", cpu_milli=20_000, memory_mib=100_000, gpus=2, gpu_model="G2")
        for i in range(2)
    ]
    state = ClusterState.from_nodes(nodes)
    policy = WlmapPolicy()
    policy.reset(state, trace, 42)
    state.assign(trace[0], Placement(0, (0,)))
    policy.observe(state, trace[0], Placement(0, (0,)))
    both = np.array([0, 1])
    heavy = Pod("heavy", 8000, 1000, 1, 1000)
    light = Pod("light", 4000, 1000, 1, 1000)
    cpu_only = Pod("cpu", 8000, 1000, 0, 0)
    assert policy._penalty(state, heavy, both) == pytest.approx([5000, 0])
    assert policy._penalty(state, cpu_only, both) == pytest.approx([5000, 0])
    assert policy._penalty(state, light, both) == pytest.approx([0, 0])
