"""A cluster dump as the planner sees it: running pods hold GPUs, finished ones do not,
unbound ones wait; nodes without GPUs, without a level label, or cordoned are left out."""

from __future__ import annotations

import copy

import pytest

from tests.unit.placement.plan.inputs import (
    LEVELS,
    RACK,
    by_owner_reference,
    dump_objects,
    occupancy,
)
from wlmap.errors import PlacementInputError
from wlmap.placement.plan import read_occupancy


def free_of(node: str) -> int:
    state = occupancy()
    names = [n.name for n in state.topology.nodes]
    return int(state.capacity.node_free[names.index(node)])


def test_running_pods_take_their_gpus_and_finished_ones_do_not() -> None:
    state = occupancy()
    assert len(state.topology.nodes) == 8  # the CPU node is not a GPU node
    assert free_of("gpu-b1-r1-a") == 0  # pretrain's 8 GPUs
    assert free_of("gpu-b1-r1-b") == 8  # eval Succeeded: holds nothing
    assert free_of("gpu-b1-r2-a") == 4  # one 4-GPU pod of train-x
    racks = {
        state.topology.domain_name(1, d): int(f)
        for d, f in enumerate(state.capacity.domain_free[1])
    }
    assert racks == {"b1/r1": 8, "b1/r2": 12, "b2/r1": 12, "b2/r2": 12}


def test_gpus_are_attributed_to_their_workload_and_unbound_pods_wait() -> None:
    state = occupancy()
    totals = {w: sum(h.gpus for h in state.held_by(w)) for w in state.workloads()}
    assert totals == {
        "team-a/pretrain": 8,
        "team-b/train-x-worker-0": 4,
        "team-b/train-x-worker-1": 4,
        "team-b/train-x-worker-2": 4,
    }
    assert [(p.workload, p.gpus) for p in state.pending] == [("team-d/finetune", 8)]


def test_the_planned_workloads_own_pods_can_be_left_out() -> None:
    state = read_occupancy(
        dump_objects(), LEVELS, by_owner_reference, name="x",
        skip=lambda pod: by_owner_reference(pod) == "team-a/pretrain",
    )  # fmt: skip
    assert "team-a/pretrain" not in state.workloads()
    assert int(state.capacity.domain_free[1][0]) == 16


def test_a_level_no_gpu_node_carries_is_an_error_naming_it() -> None:
    with pytest.raises(
        PlacementInputError, match=r"no GPU node has the level label 'example\.com/pod'"
    ):
        read_occupancy(dump_objects(), ["example.com/pod", RACK], by_owner_reference, name="d.yaml")


def test_nodes_without_a_level_label_or_cordoned_are_left_out_with_a_warning() -> None:
    objects = copy.deepcopy(dump_objects())
    nodes = [o for o in objects if o["kind"] == "Node"]
    del nodes[0]["metadata"]["labels"][RACK]
    nodes[1]["spec"] = {"unschedulable": True}
    state = read_occupancy(objects, LEVELS, by_owner_reference, name="d.yaml")
    assert [n.name for n in state.topology.nodes][:2] == ["gpu-b1-r2-a", "gpu-b1-r2-b"]
    assert any("lack the label" in w and "gpu-b1-r1-a" in w for w in state.warnings)
    assert any("1 cordoned node(s) left out" in w for w in state.warnings)
    # pretrain's pod sat on the node now left out: it takes nothing elsewhere
    assert "team-a/pretrain" not in state.workloads()


def test_a_dump_without_nodes_says_what_it_expected() -> None:
    pods = [o for o in dump_objects() if o["kind"] == "Pod"]
    with pytest.raises(PlacementInputError, match="no Node objects"):
        read_occupancy(pods, LEVELS, by_owner_reference, name="pods.yaml")


def test_the_order_nodes_arrive_in_does_not_change_the_cluster_a_plan_sees() -> None:
    # a watch delivers nodes in event order, a dump in name order: ties between domains
    # are broken by index, so both must index the nodes alike
    objects = dump_objects()
    shuffled = list(reversed(objects))
    listed, arrived = occupancy(objects), occupancy(shuffled)
    assert [n.name for n in arrived.topology.nodes] == [n.name for n in listed.topology.nodes]
    assert [n.name for n in listed.topology.nodes] == sorted(n.name for n in listed.topology.nodes)
    assert arrived.capacity.node_free.tolist() == listed.capacity.node_free.tolist()
