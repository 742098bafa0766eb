"""The recovery simulator: exact recovery times on one hand-made fault, and no violation
under heavy fault load for any reaction."""

from __future__ import annotations

import pytest

from wlmap.placement.gangs import (
    Fault,
    FaultModel,
    Gang,
    Job,
    JobMix,
    KaiStaleGangEviction,
    KueueHotSwap,
    Reaction,
    RecoveryParams,
    RestartFromScratch,
    SparePoolSwap,
    WlmapReplacement,
    draw_faults,
    gb200,
    simulate_recovery,
    synthetic_jobs,
)

from ._cluster import cluster
from ._firstfit import TopologyFirstFit

PARAMS = RecoveryParams(warmup_s=100.0, horizon_s=3_600.0)
PAIR = Gang("pair", 2, 4, preferred_level=1)
FIRST_FIT = TopologyFirstFit()


@pytest.mark.parametrize("detection", [20.0, 60.0, 300.0])
@pytest.mark.parametrize(
    ("reaction", "extra"),
    [
        (KueueHotSwap(), 0.0),
        (WlmapReplacement(), 0.0),
        (KaiStaleGangEviction(), 60.0 + 30.0),  # grace, then the healthy pod's termination
        (RestartFromScratch(), 30.0),
    ],
)
def test_mttr_is_detection_plus_reaction_plus_restart_and_reload(
    detection: float, reaction: Reaction, extra: float
) -> None:
    # pair starts at t=0 on n0 and n1 (first fit in rack r1); n0 fails 200 s into the
    # window (t=300), after 300 s of progress: all of it is lost (checkpoints every 1800 s).
    fault = Fault(200.0, "node", (0,), None, 200.0 + detection, 200.0 + 7_200.0)
    run = simulate_recovery(
        cluster(), [Job(0.0, 10_000.0, PAIR)], [fault], FIRST_FIT, reaction, PARAMS
    )
    (record,) = run.records
    restart = PARAMS.planning_s + PARAMS.restart_s + PARAMS.reload_s
    assert record.mttr_s is not None
    assert record.mttr_s == pytest.approx(detection + extra + restart)
    assert record.recompute_s == pytest.approx(300.0)
    assert record.lost_gpu_h(0.0) == pytest.approx(8 * (300.0 + record.mttr_s) / 3_600.0)
    assert run.violations == []
    # before the fault the window counts 200 s of 8 productive GPUs; the 200 s redone are
    # taken off again, so goodput is what remains after recovery over what was held
    assert 0.0 < run.goodput < 1.0


def test_wlmap_holding_its_healthy_pod_recovers_when_one_node_frees_where_kueue_waits() -> None:
    # pair on n0 and n1 (first fit in rack r1); "one" on n2 until t=501; "four" on n3-n6
    # for the whole window; "late" (1 pod) queues. n0 fails at t=300, noticed at 360. No
    # node has room: wlmap holds n1 and moves the lost pod to n2 when "one" ends at 501,
    # productive 181 s later. Kueue evicts the pair, "late" takes n1 at once, and at 501
    # the pair needs two free nodes but finds one: it is still waiting when the window ends.
    jobs = [
        Job(0.0, 10_000.0, PAIR),
        Job(1.0, 500.0, Gang("one", 1, 4)),
        Job(1.5, 20_000.0, Gang("four", 4, 4)),
        Job(2.0, 20_000.0, Gang("late", 1, 4)),
    ]
    fault = Fault(200.0, "node", (0,), None, 260.0, 200.0 + 7_200.0)
    held = simulate_recovery(cluster(), jobs, [fault], FIRST_FIT, WlmapReplacement(), PARAMS)
    (record,) = held.records
    assert (record.kind, record.evicted, record.moved) == ("swap", 0, 1)
    assert record.mttr_s == pytest.approx(501.0 + 181.0 - 300.0)
    assert held.violations == []
    evicted = simulate_recovery(cluster(), jobs, [fault], FIRST_FIT, KueueHotSwap(), PARAMS)
    (record,) = evicted.records
    assert (record.kind, record.evicted, record.mttr_s) == ("requeue", 1, None)


@pytest.mark.parametrize(
    "reaction",
    [
        KueueHotSwap(),
        KaiStaleGangEviction(),
        RestartFromScratch(),
        SparePoolSwap(5),
        WlmapReplacement(),
        WlmapReplacement(5),
    ],
    ids=lambda r: r.name,
)
def test_no_constraint_or_accounting_violation_under_heavy_faults(reaction: Reaction) -> None:
    scenario = gb200(1)
    topology = scenario.topology
    params = RecoveryParams(warmup_s=4 * 3_600.0, horizon_s=6 * 3_600.0)
    end = params.warmup_s + params.horizon_s
    arrivals = synthetic_jobs(scenario, JobMix(hours=end / 3_600.0), 5)
    model = FaultModel(stress=400.0, correlated_level=1, detection_s=60.0, repair_h=1.0)
    faults = draw_faults(topology, model, params.horizon_s, 5)
    assert len(faults) > 30
    run = simulate_recovery(topology, arrivals, faults, TopologyFirstFit(), reaction, params, 5)
    assert run.violations == []
    assert len(run.records) > 10
    # a gang still waiting for its reaction when the window ends is the only "pending" one
    assert all(r.kind in ("swap", "replace", "requeue") or r.mttr_s is None for r in run.records)
    again = simulate_recovery(topology, arrivals, faults, TopologyFirstFit(), reaction, params, 5)
    assert [(r.gang, r.mttr_s, r.kind) for r in again.records] == [
        (r.gang, r.mttr_s, r.kind) for r in run.records
    ]
