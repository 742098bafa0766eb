"""The gang simulator on hand-worked timelines (queue modes, delays, occupancy, whole free
racks, excess span), the placement checker, verify mode, the result row and the registry."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.unit.placement.gangs.first_fit import FirstFit
from wlmap.placement.gangs import (
    FreeCapacity,
    Gang,
    GangPlacement,
    GangPolicy,
    InvalidPlacementError,
    Job,
    JobMix,
    Scenario,
    build_topology,
    default_weights,
    gb200,
    make_gang_policy,
    placement_problems,
    run_row,
    simulate_gangs,
    summarise,
    synthetic_jobs,
)
from wlmap.placement.nodes import Node


def two_racks() -> Scenario:
    # rack r1: n0, n1; rack r2: n2, n3; 8 GPUs each, one block
    nodes = [
        Node(f"n{i}", 1000, 1000, 8, "H100", labels={"block": "b", "rack": f"r{1 + i // 2}"})
        for i in range(4)
    ]
    topology = build_topology(["block", "rack"], nodes)
    return Scenario("two-racks", topology, default_weights(2), 2)


def job(name: str, arrival: float, duration: float, pods: int, **intent: int) -> Job:
    return Job(arrival, duration, Gang(name, pods, 8, **intent))  # type: ignore[arg-type]


def test_skip_admits_a_small_gang_behind_a_blocked_head_and_fifo_does_not() -> None:
    # t=0 a: 3 nodes for 100 s; t=10 b: 2 nodes (blocked until 100); t=20 c: 1 node (fits now)
    jobs = [job("a", 0, 100, 3), job("b", 10, 50, 2), job("c", 20, 30, 1)]
    skip = simulate_gangs(two_racks(), FirstFit(), jobs, hours=1 / 18, verify=True)  # 200 s
    assert [(a.gang.name, a.start) for a in skip.admitted] == [("a", 0), ("c", 20), ("b", 100)]
    fifo = simulate_gangs(two_racks(), FirstFit(), jobs, hours=1 / 18, queue="fifo", verify=True)
    assert [(a.gang.name, a.start) for a in fifo.admitted] == [("a", 0), ("b", 100), ("c", 100)]
    # occupancy over 200 s x 32 GPUs: skip 24x100 + 8x30 + 16x50 = 3440; fifo 2400 + 800 + 240
    assert skip.occupancy == pytest.approx(3440 / 6400)
    assert fifo.occupancy == pytest.approx(3440 / 6400)
    row = run_row(fifo, seed=0, load=1.0, level="rack")
    # delays a 0, b 90, c 80: median 80
    assert (row["delay_p50_s"], row["admitted"], row["waiting"]) == (80.0, 3, 0)


def test_whole_free_racks_are_averaged_over_time() -> None:
    # one 1-node gang in rack r1 from 0 to 50 s of a 100 s run: r2 is whole all along,
    # r1 is whole for the last 50 s -> (1 x 50 + 2 x 50) / 100 = 1.5
    run = simulate_gangs(two_racks(), FirstFit(), [job("a", 0, 50, 1)], hours=100 / 3600)
    assert run.whole_free == pytest.approx(1.5)
    assert run.domains == 2


def test_excess_span_counts_racks_beyond_the_fewest_that_could_hold_the_gang() -> None:
    # a takes n0 (rack r1), then b (2 nodes) gets first fit n1 + n2: two racks where r2
    # alone (2 free nodes) could hold it -> excess 1 at the rack level
    jobs = [job("a", 0, 100, 1), job("b", 1, 100, 2)]
    run = simulate_gangs(two_racks(), FirstFit(), jobs, hours=0.1)
    b = run.admitted[1]
    assert b.quality.span == (1, 2, 2)
    assert b.excess_span == (0, 1, 0)


def test_required_levels_are_always_met_and_checked_independently() -> None:
    scenario = gb200(blocks=2)
    jobs = synthetic_jobs(scenario, JobMix(load=1.0, hours=3), seed=5)
    run = simulate_gangs(scenario, FirstFit(), jobs, hours=3, verify=True)
    row = run_row(run, seed=5, load=1.0, level="nvidia.com/gpu.clique")
    assert row["required_gangs"] > 50
    assert row["required_satisfied_pct"] == 100.0
    assert row["jobs"].startswith("SYNTHETIC")
    assert 0 < row["occupancy_pct"] < 100


class Sloppy:
    """Puts the whole gang on node 0 whatever it asks for."""

    name = "sloppy"

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement:
        return GangPlacement(gang, ((0, gang.pods),))


def test_verify_mode_stops_a_policy_that_breaks_the_capacity() -> None:
    jobs = [job("a", 0, 100, 2)]
    with pytest.raises(
        InvalidPlacementError, match="policy sloppy placed a wrongly: node n0 has 8 free GPUs"
    ):
        simulate_gangs(two_racks(), Sloppy(), jobs, hours=0.1, verify=True)


def test_the_checker_names_every_broken_promise() -> None:
    capacity = FreeCapacity(two_racks().topology)
    gang = Gang("g", 4, 4, required_level=1, slice_size=2, slice_level=2)
    # n1 gets 1 pod, n2 gets 2: rack r1 and r2 (required broken), 1-pod slice on n1
    bad = GangPlacement(gang, ((1, 1), (2, 2)))
    assert placement_problems(capacity, bad) == [
        "3 pods placed, the gang has 4",
        "required level rack spans 2 domains: b/r1, b/r2",
        "slices of 2 pods split across node domains: n1 (1)",
    ]
    capacity.take(0, 6)
    assert placement_problems(capacity, GangPlacement(gang, ((0, 2), (1, 2))))[0] == (
        "node n0 has 2 free GPUs, 2 pods of 4 need 8"
    )
    assert placement_problems(capacity, GangPlacement(gang, ((2, 2), (3, 2)))) == []
    assert "ascending" in placement_problems(capacity, GangPlacement(gang, ((3, 2), (2, 2))))[0]


def test_summaries_average_runs_of_one_policy_and_load() -> None:
    rows = [
        {"scenario": "s", "load": 0.8, "policy": "p", "cost_mean": 2.0, "occupancy_pct": 50.0},
        {"scenario": "s", "load": 0.8, "policy": "p", "cost_mean": 4.0, "occupancy_pct": 70.0},
    ]
    (entry,) = summarise(rows)
    assert (entry["runs"], entry["cost_mean"], entry["occupancy_pct"]) == (2, 3.0, 60.0)
    assert entry["span_mean"] is None


def test_the_registry_passes_a_factory_only_the_arguments_it_takes() -> None:
    def seeded(seed: int) -> FirstFit:
        seen.append(seed)
        return FirstFit()

    def reading(objective: str | None = None) -> FirstFit:
        seen.append(objective)
        return FirstFit()

    seen: list[object] = []
    registry: dict[str, Callable[..., GangPolicy]] = {
        "first-fit": FirstFit,
        "seeded": seeded,
        "reading": reading,
    }
    assert make_gang_policy("first-fit", seed=3, objective="o.yaml", registry=registry).name == (
        "first-fit"
    )
    make_gang_policy("seeded", seed=7, objective="o.yaml", registry=registry)
    make_gang_policy("reading", seed=7, registry=registry)
    make_gang_policy("reading", seed=7, objective="o.yaml", registry=registry)
    assert seen == [7, None, "o.yaml"]
    with pytest.raises(
        KeyError, match="unknown gang policy 'nope'; expected one of: first-fit, seeded"
    ):
        make_gang_policy("nope", registry=registry)
