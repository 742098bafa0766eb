"""A down-sampled openb run per policy: what a user of the simulator would notice.

Every 10th GPU node and every 10th pod of the default list (about 120 nodes and 800 pods,
topped up to 130 % of the smaller cluster): allocation never passes capacity or what has
arrived, no GPU holds more than one GPU's worth, every arrived pod is placed or counted as
failed, and the same seed gives the same CSV.
"""

from __future__ import annotations

import csv
import io
from functools import cache

import numpy as np
import pytest

from tests.traces import openb
from wlmap.placement.nodes import Node
from wlmap.placement.packing import (
    Pod,
    SimulationResult,
    read_openb_nodes,
    read_openb_pods,
    simulate,
)
from wlmap.placement.packing.pod_simulator import CSV_COLUMNS

BASELINES = ["random", "dotproduct", "clustering", "packing", "bestfit"]


@cache
def sample() -> tuple[list[Node], list[Pod]]:
    nodes = read_openb_nodes(openb("gpu_node"))[::10]
    pods = read_openb_pods(openb("default"))[::10]
    return nodes, pods


@cache
def run(policy: str, seed: int = 42) -> SimulationResult:
    nodes, pods = sample()
    return simulate(nodes, pods, policy, seed=seed)


def as_csv(result: SimulationResult) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(result.to_rows("default/10"))
    return out.getvalue()


@pytest.mark.parametrize("policy", BASELINES)
def test_allocation_stays_within_capacity_and_arrivals(policy: str) -> None:
    result = run(policy)
    assert np.all(result.allocated_milli <= result.capacity_gpu_milli)
    assert np.all(result.allocated_milli <= result.arrived_milli)
    assert np.all(np.diff(result.allocated_milli) >= 0)  # nothing departs
    for row in result.rows:
        assert 0 <= row.allocation_pct <= min(100.0, row.arrived_pct + 1)
        assert 0 <= row.frag_amount_pct <= 100 - row.allocation_pct + 1e-9
        assert 0 <= row.frag_ratio_pct <= 100 + 1e-9


@pytest.mark.parametrize("policy", BASELINES)
def test_no_gpu_cpu_or_memory_is_overcommitted(policy: str) -> None:
    state = run(policy).state
    live = state.gpu_free[state.gpu_free >= 0]
    assert live.size == int(state.gpu_count.sum())
    assert np.all((live >= 0) & (live <= 1000))
    assert np.all(state.cpu_free >= 0)
    assert np.all(state.memory_free >= 0)
    used = int(state.gpu_count.sum()) * 1000 - int(live.sum())
    assert used == state.allocated_gpu_milli == int(run(policy).allocated_milli[-1])


@pytest.mark.parametrize("policy", BASELINES)
def test_every_arrived_pod_is_placed_or_failed(policy: str) -> None:
    result = run(policy)
    assert result.placed_pods + sum(result.failed.values()) == result.arrived_pods
    for row in result.rows:
        assert row.placed_pods + sum(row.failed) == row.arrived_pods
    assert [r.arrived_pct for r in result.rows] == list(range(131))
    assert result.rows[-1].arrived_pods == result.arrived_pods
    # at 130 % arrived not everything fits: some pods failed
    assert sum(result.rows[-1].failed) > 0


@pytest.mark.parametrize("policy", BASELINES)
def test_same_seed_same_csv_other_seed_other_csv(policy: str) -> None:
    nodes, pods = sample()
    again = simulate(nodes, pods, policy, seed=42)
    assert as_csv(again) == as_csv(run(policy))
    assert as_csv(run(policy, 43)) != as_csv(run(policy))


def test_csv_has_one_row_per_arrived_percent_with_the_named_columns() -> None:
    rows = list(csv.DictReader(io.StringIO(as_csv(run("bestfit")))))
    assert len(rows) == 131
    assert tuple(rows[0]) == CSV_COLUMNS
    assert {r["trace"] for r in rows} == {"default/10"}
    assert rows[100]["arrived_pct"] == "100"
