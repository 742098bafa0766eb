"""The domain tree and its free-capacity aggregates, on hand-made and real topologies."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from tests.traces import trace_path
from wlmap.placement.gangs import FreeCapacity, TopologyError, build_topology
from wlmap.placement.nodes import Node


def _node(name: str, gpus: int = 8, **labels: str) -> Node:
    return Node(name, 64_000, 256 * 1024, gpus, "H100", labels=labels)


def _two_blocks() -> list[Node]:
    # block b1: rack r1 (n1, n2), rack r2 (n3); block b2: rack r1 (n4). The two r1 are
    # different racks because they sit in different blocks.
    return [
        _node("n1", block="b1", rack="r1"),
        _node("n2", block="b1", rack="r1"),
        _node("n3", block="b1", rack="r2"),
        _node("n4", 4, block="b2", rack="r1"),
    ]


def test_domains_nest_by_label_values_and_repeat_values_under_other_parents_are_distinct() -> None:
    topology = build_topology(["block", "rack", "kubernetes.io/hostname"], _two_blocks())
    assert topology.levels == ("block", "rack")
    assert topology.domain_values[1] == (("b1", "r1"), ("b1", "r2"), ("b2", "r1"))
    assert topology.node_domain[1].tolist() == [0, 0, 1, 2]
    assert topology.parent[1].tolist() == [0, 0, 1]
    assert [m.tolist() for m in topology.members[0]] == [[0, 1, 2], [3]]
    assert topology.domain_name(1, 2) == "b2/r1"
    assert topology.level_index("kubernetes.io/hostname") == 2


def test_a_node_without_a_level_label_is_named() -> None:
    nodes = [*_two_blocks(), _node("n5", block="b2")]
    with pytest.raises(TopologyError, match="node 'n5' has no label 'rack'"):
        build_topology(["block", "rack"], nodes)
    with pytest.raises(TopologyError, match="at least one level"):
        build_topology(["kubernetes.io/hostname"], nodes)
    with pytest.raises(TopologyError, match="repeat"):
        build_topology(["rack", "rack"], nodes)


def test_pod_slots_follow_takes_and_gives_without_rescanning() -> None:
    capacity = FreeCapacity(build_topology(["block", "rack"], _two_blocks()))
    # 4-GPU pods: racks b1/r1 = 2+2, b1/r2 = 2, b2/r1 = 1.
    assert capacity.pod_slots(1, 4).tolist() == [4, 2, 1]
    capacity.take(0, 5)  # n1 keeps 3 free GPUs: no 4-GPU pod fits there any more
    assert capacity.pod_slots(1, 4).tolist() == [2, 2, 1]
    assert capacity.pod_slots(0, 3).tolist() == [1 + 2 + 2, 1]
    assert capacity.domain_free[0].tolist() == [19, 4]
    assert capacity.whole_free(1) == 2
    capacity.give(0, 5)
    assert capacity.pod_slots(1, 4).tolist() == [4, 2, 1]
    assert capacity.whole_free(1) == 3
    with pytest.raises(ValueError, match="cannot take 9"):
        capacity.take(3, 9)


def test_lingjun_clos_aggregates_match_a_full_recount_after_random_placements() -> None:
    with trace_path("lingjun/topo.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    nodes = [_node(r["ip"][:12], DSW=r["DSW"], PSW=r["PSW"], ASW=r["ASW"]) for r in rows]
    topology = build_topology(["DSW", "PSW", "ASW"], nodes)
    capacity = FreeCapacity(topology)
    rng = np.random.default_rng(7)
    for _ in range(2_000):
        node = int(rng.integers(len(nodes)))
        free = int(capacity.node_free[node])
        if free and rng.random() < 0.7:
            capacity.take(node, int(rng.integers(1, free + 1)))
        elif free < 8:
            capacity.give(node, 8 - free)
    for level in range(3):
        expected = np.bincount(
            topology.node_domain[level],
            weights=capacity.node_free // 2,
            minlength=topology.domain_count(level),
        )
        assert capacity.pod_slots(level, 2).tolist() == expected.astype(int).tolist()


def test_removed_gpus_are_neither_free_nor_given_back_until_restored() -> None:
    capacity = FreeCapacity(build_topology(["block", "rack"], _two_blocks()))
    capacity.take(0, 3)  # n1 runs 3 GPUs of pods, 5 free
    capacity.remove(0, 5)  # its 5 free GPUs go out of service; the 3 in use stay
    assert capacity.node_free[0] == 0
    assert capacity.domain_free[1].tolist() == [8, 8, 4]
    assert capacity.pod_slots(1, 1).tolist() == [8, 8, 4]
    capacity.give(0, 3)  # the pods finish: 3 GPUs free on a node with 3 in service
    with pytest.raises(ValueError, match="3 of 3 GPUs free, cannot give back 1"):
        capacity.give(0, 1)
    capacity.remove(0, 3)  # the whole node out of service
    assert capacity.whole_free(1) == 2  # rack b1/r1 is not whole while n1 is down
    capacity.restore(0, 8)
    assert capacity.node_free[0] == 8
    assert capacity.whole_free(1) == 3
    with pytest.raises(ValueError, match="8 of 8 GPUs in service, cannot restore 1"):
        capacity.restore(0, 1)
    with pytest.raises(ValueError, match="cannot take 9"):
        capacity.remove(0, 9)
