"""ClusterState: which nodes a pod fits on, and what a placement takes away."""

from __future__ import annotations

import numpy as np
import pytest

from wlmap.placement.nodes import Node
from wlmap.placement.packing import ClusterState, Placement, Pod

NODES = [
    Node("a", cpu_milli=8000, memory_mib=1000, gpus=2, gpu_model="T4"),
    Node("b", cpu_milli=4000, memory_mib=1000, gpus=8, gpu_model="G2"),
    Node("c", cpu_milli=64000, memory_mib=9000, gpus=0, gpu_model=None),
]


def pod(cpu: int = 1000, mem: int = 100, num: int = 1, milli: int = 1000, **kw: object) -> Pod:
    return Pod("p", cpu_milli=cpu, memory_mib=mem, num_gpu=num, gpu_milli=milli, **kw)  # type: ignore[arg-type]  # test shorthand


def test_layout_pads_missing_gpus_with_minus_one() -> None:
    state = ClusterState.from_nodes(NODES)
    assert state.models == ("G2", "T4")
    assert state.gpu_free.shape == (3, 8)
    assert state.gpu_free[0].tolist() == [1000, 1000] + [-1] * 6
    assert state.gpu_free[2].tolist() == [-1] * 8
    assert state.node_model.tolist() == [1, 0, -1]
    assert state.gpu_capacity_milli == 10_000


def test_feasible_checks_cpu_memory_model_and_gpus() -> None:
    state = ClusterState.from_nodes(NODES)
    assert state.feasible(pod(num=0, milli=0)).tolist() == [True, True, True]
    assert state.feasible(pod(cpu=5000)).tolist() == [True, False, False]
    assert state.feasible(pod(mem=2000, num=0, milli=0)).tolist() == [False, False, True]
    assert state.feasible(pod(num=4)).tolist() == [False, True, False]
    assert state.feasible(pod(gpu_models=frozenset({"T4"}))).tolist() == [True, False, False]
    assert state.feasible(pod(gpu_models=frozenset({"A100"}))).tolist() == [False] * 3


def test_model_restriction_does_not_apply_to_cpu_only_pods() -> None:
    state = ClusterState.from_nodes(NODES)
    cpu_pod = pod(num=0, milli=0, gpu_models=frozenset({"T4"}))
    assert state.feasible(cpu_pod).all()


def test_shared_pods_fill_one_gpu_and_block_whole_gpu_requests() -> None:
    state = ClusterState.from_nodes(NODES[:1])
    state.assign(pod(milli=600), Placement(0, (0,)))
    state.assign(pod(milli=300), Placement(0, (1,)))
    assert state.gpu_free[0, :2].tolist() == [400, 700]
    assert state.feasible(pod(milli=700)).tolist() == [True]
    assert state.feasible(pod(milli=701)).tolist() == [False]
    assert state.feasible(pod(milli=1000)).tolist() == [False]
    assert state.allocated_gpu_milli == 900
    assert (state.full_free[0], state.max_free[0], state.gpu_free_total[0]) == (0, 700, 1100)


def test_assign_refuses_what_does_not_fit_and_changes_nothing() -> None:
    state = ClusterState.from_nodes(NODES)
    before = state.gpu_free.copy()
    for bad in [
        Placement(0, (0, 0)),
        Placement(0, (2,)),
        Placement(5, (0,)),
        Placement(2, (0,)),
    ]:
        with pytest.raises(ValueError, match="cannot place"):
            state.assign(pod(num=2) if len(bad.gpus) == 2 else pod(), bad)
    with pytest.raises(ValueError, match="CPU-only"):
        state.assign(pod(num=0, milli=0), Placement(2, (0,)))
    assert np.array_equal(state.gpu_free, before)
    assert state.allocated_gpu_milli == 0


def test_copy_is_independent() -> None:
    state = ClusterState.from_nodes(NODES)
    other = state.copy()
    other.assign(pod(num=2), Placement(0, (0, 1)))
    assert state.full_free[0] == 2
    assert other.full_free[0] == 0
    assert state.allocated_gpu_milli == 0
    assert state.cpu_free[0] == 8000
