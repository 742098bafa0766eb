"""Workload tuning: the pod list of a run reaches the target GPU request, seeded."""

from __future__ import annotations

from collections import Counter

from tests.traces import openb
from wlmap.placement.packing import (
    ClusterState,
    arrived_at_capacity,
    read_openb_nodes,
    read_openb_pods,
    tune_to_capacity,
)


def capacity() -> int:
    return ClusterState.from_nodes(read_openb_nodes(openb("gpu_node"))).gpu_capacity_milli


def test_top_up_reaches_130_percent_without_passing_it() -> None:
    pods = read_openb_pods(openb("default"))
    cap = capacity()
    tuned = tune_to_capacity(pods, cap, ratio=1.3, seed=42)
    total = sum(p.gpu_demand_milli for p in tuned)
    biggest = max(p.gpu_demand_milli for p in pods)
    assert 1.3 * cap - biggest < total <= 1.3 * cap
    # every trace pod arrives once, in the first part of the sequence
    head = tuned[: len(pods)]
    assert Counter(p.name for p in head) == Counter(p.name for p in pods)
    assert [p.name for p in head] != [p.name for p in pods]


def test_too_large_list_is_tuned_down() -> None:
    pods = read_openb_pods(openb("multigpu40"))
    cap = capacity()
    assert sum(p.gpu_demand_milli for p in pods) > 1.3 * cap
    tuned = tune_to_capacity(pods, cap, ratio=1.3, seed=7)
    assert sum(p.gpu_demand_milli for p in tuned) <= 1.3 * cap
    assert len(tuned) < len(pods)
    assert len({p.name for p in tuned}) == len(tuned)


def test_same_seed_same_sequence_other_seed_other_sequence() -> None:
    pods = read_openb_pods(openb("default"))
    cap = capacity()
    first = tune_to_capacity(pods, cap, seed=42)
    assert first == tune_to_capacity(list(reversed(pods)), cap, seed=42)
    assert first != tune_to_capacity(pods, cap, seed=43)


def test_arrived_at_capacity_stops_at_the_pod_that_reaches_it() -> None:
    pods = read_openb_pods(openb("default"))
    cap = capacity()
    arrived = arrived_at_capacity(tune_to_capacity(pods, cap, seed=42), cap)
    total = sum(p.gpu_demand_milli for p in arrived)
    # the last pod brings the request to the capacity; without it the request is short
    assert total >= cap > total - arrived[-1].gpu_demand_milli
