"""Fault draws: rates follow the MTBF and stress, kinds and delays are as asked, seeds repeat."""

from __future__ import annotations

import statistics

import pytest

from wlmap.placement.gangs import FaultModel, build_topology, draw_faults, expected_faults
from wlmap.placement.nodes import Node

DAY = 86_400.0


def _racks(racks: int, per_rack: int) -> list[Node]:
    return [
        Node(f"r{r}-n{n}", 1_000, 1_024, 4, "G", labels={"block": "b0", "rack": f"r{r}"})
        for r in range(racks)
        for n in range(per_rack)
    ]


def test_node_failures_average_the_mtbf_over_many_seeded_draws() -> None:
    topology = build_topology(["block", "rack"], _racks(10, 20))  # 200 nodes
    model = FaultModel(mtbf_days=260.0, partial_ratio=0.0)
    horizon = 30 * DAY
    counts = [
        sum(f.kind == "node" for f in draw_faults(topology, model, horizon, seed))
        for seed in range(300)
    ]
    # 200 nodes over 30 days at one failure per 260 node-days: 23.08 failures per draw.
    expected = 200 * 30 / 260
    assert statistics.fmean(counts) == pytest.approx(expected, rel=0.03)
    # Poisson: the variance equals the mean (within sampling error of 300 draws).
    assert statistics.variance(counts) == pytest.approx(expected, rel=0.25)
    # The per-node MTBF recovered from the draws: node-days observed per failure.
    assert 200 * 30 * len(counts) / sum(counts) == pytest.approx(260.0, rel=0.03)


def test_stress_multiplies_every_rate_and_correlated_faults_run_at_a_tenth() -> None:
    topology = build_topology(["block", "rack"], _racks(10, 20))
    horizon = 30 * DAY
    kinds: dict[str, int] = {"node": 0, "partial": 0, "domain": 0}
    model = FaultModel(stress=5.0, correlated_level=1, partial_ratio=1.0)
    for seed in range(100):
        for fault in draw_faults(topology, model, horizon, seed):
            kinds[fault.kind] += 1
    node_mean = 5 * 200 * 30 / 260  # 115.4 per draw
    assert kinds["node"] / 100 == pytest.approx(node_mean, rel=0.03)
    assert kinds["partial"] / 100 == pytest.approx(node_mean, rel=0.03)
    assert kinds["domain"] / 100 == pytest.approx(node_mean / 10, rel=0.1)
    assert expected_faults(topology, model, horizon) == pytest.approx(node_mean * 2.1)


def test_each_kind_hits_the_nodes_it_says_with_the_detection_and_repair_delays() -> None:
    topology = build_topology(["block", "rack"], _racks(4, 3))
    model = FaultModel(stress=2000.0, correlated_level=1, detection_s=20.0, repair_h=2.0)
    faults = draw_faults(topology, model, DAY, 7)
    assert {f.kind for f in faults} == {"node", "partial", "domain"}
    for fault in faults:
        assert fault.detected == pytest.approx(fault.at + 20.0)
        assert fault.repaired == pytest.approx(fault.at + 7_200.0)
        if fault.kind == "domain":
            # a whole rack: the three nodes of one rack, nothing else
            assert len(fault.nodes) == 3
            assert len({topology.node_domain[1][n] for n in fault.nodes}) == 1
            assert fault.gpus is None
        else:
            assert len(fault.nodes) == 1
            assert fault.gpus == (1 if fault.kind == "partial" else None)
    assert [f.at for f in faults] == sorted(f.at for f in faults)


@pytest.mark.parametrize("delay", [20.0, 60.0, 300.0])
def test_detection_delay_is_a_parameter_and_a_seed_repeats_its_faults(delay: float) -> None:
    topology = build_topology(["block", "rack"], _racks(4, 3))
    model = FaultModel(stress=500.0, detection_s=delay)
    first = draw_faults(topology, model, DAY, 3)
    assert first == draw_faults(topology, model, DAY, 3)
    assert first != draw_faults(topology, model, DAY, 4)
    assert [f.detected - f.at for f in first] == pytest.approx([delay] * len(first))
    # changing only the partial rate leaves the whole-node faults where they were
    other = draw_faults(
        topology, FaultModel(stress=500.0, partial_ratio=0.0, detection_s=delay), DAY, 3
    )
    assert [f for f in first if f.kind == "node"] == other
