"""The FGD fragmentation measure on hand-made nodes, values worked out in the comments."""

from __future__ import annotations

import numpy as np
import pytest

from wlmap.placement.packing import Pod
from wlmap.placement.packing.policies.fragmentation import fragmentation, target_workload

MODELS = ("G2", "T4")


def trace() -> list[Pod]:
    """Two pods of shape A, one of B, one CPU-only pod C."""
    a = Pod("a", cpu_milli=4000, memory_mib=1, num_gpu=1, gpu_milli=500)
    b = Pod("b", cpu_milli=8000, memory_mib=1, num_gpu=1, gpu_milli=1000)
    c = Pod("c", cpu_milli=2000, memory_mib=1, num_gpu=0, gpu_milli=0)
    return [a, a, b, c]


def measure(pods: list[Pod], cpu: int, gpus: list[int], model: int = 0, **kw: object) -> float:
    target = target_workload(pods, MODELS, **kw)  # type: ignore[arg-type]  # test keywords
    value = fragmentation(
        target, np.array([cpu]), np.array([gpus]), np.array([model], dtype=np.int64)
    )
    return float(value[0])


def test_target_ranks_by_count_then_larger_shape() -> None:
    target = target_workload(trace(), MODELS)
    # A counts 2, B and C 1 each: the tie goes to the larger CPU request (B).
    assert [s[:3] for s in target.shapes] == [(4000, 500, 1), (8000, 1000, 1), (2000, 0, 0)]
    assert target.weight.tolist() == [0.5, 0.25, 0.25]


def test_target_stops_at_coverage_and_renormalises() -> None:
    # 50 % of 4 pods is 2: shape A alone covers it and gets all the weight.
    target = target_workload(trace(), MODELS, coverage=0.5)
    assert [s[:3] for s in target.shapes] == [(4000, 500, 1)]
    assert target.weight.tolist() == [1.0]


def test_node_fragmentation_is_the_weighted_sum_over_shapes() -> None:
    # Node: GPUs free [300, 1000], 6 cores free.
    # A (500 m, 4 cores) fits on GPU 1; GPU 0 (300 < 500) is its fragment: 300.
    # B (1000 m, 8 cores) lacks CPU: all 1300 free milli are fragment.
    # C is CPU-only: it never uses a GPU, all 1300 are fragment.
    # 0.5 * 300 + 0.25 * 1300 + 0.25 * 1300 = 800.
    assert measure(trace(), 6000, [300, 1000]) == pytest.approx(800.0)


def test_enough_cpu_leaves_only_the_small_gpus_fragmented() -> None:
    # 16 cores: B now fits on GPU 1, its fragment is GPU 0's 300.
    # 0.5 * 300 + 0.25 * 300 + 0.25 * 1300 = 550.
    assert measure(trace(), 16_000, [300, 1000]) == pytest.approx(550.0)


def test_a_model_the_shape_does_not_accept_fragments_everything() -> None:
    t4_only = [
        Pod(
            "t",
            cpu_milli=1000,
            memory_mib=1,
            num_gpu=1,
            gpu_milli=500,
            gpu_models=frozenset({"T4"}),
        )
    ]
    # On a G2 node (model index 0) the T4-only shape can use nothing: 1500 free milli.
    assert measure(t4_only, 16_000, [500, 1000], model=0) == pytest.approx(1500.0)
    # On a T4 node both GPUs have room for 500 m: nothing is fragmented.
    assert measure(t4_only, 16_000, [500, 1000], model=1) == pytest.approx(0.0)


def test_absent_gpu_slots_count_as_nothing() -> None:
    # A 1-GPU node in a cluster whose widest node has 2 GPUs carries a -1 slot.
    # A: GPU 0 has 1000 >= 500, no GPU below 500: 0. B: fits, 0. C: 1000.
    assert measure(trace(), 16_000, [1000, -1]) == pytest.approx(250.0)
