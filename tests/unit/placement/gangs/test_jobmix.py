"""The SYNTHETIC job mix: the size distribution and arrival rate worked by hand, seeded
determinism, intent shares, required levels widened to fit, slices, and the Tiresias
duration sample."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.traces import trace_path
from wlmap.errors import PlacementInputError
from wlmap.placement.gangs import JobMix, gb200, synthetic_jobs, tiresias, tiresias_durations


def test_sizes_are_philly_with_a_tail_that_halves_per_doubling() -> None:
    sizes = dict(JobMix().sizes(2048))
    # body 90 % of 70/10/15/5; the tail's 10 % over 16..512 in weights 32:16:8:4:2:1 of 63
    assert sizes[1] == pytest.approx(0.63)
    assert sizes[8] == pytest.approx(0.045)
    assert sizes[16] == pytest.approx(0.1 * 32 / 63)
    assert sizes[512] == pytest.approx(0.1 * 1 / 63)
    assert sum(sizes.values()) == pytest.approx(1.0)
    # a 40-GPU cluster draws no tail job above 32: 16 and 32 split the tail 2:1
    small = dict(JobMix().sizes(40))
    assert [small[16], small[32]] == pytest.approx([0.1 * 2 / 3, 0.1 / 3])


def test_the_arrival_rate_offers_the_load() -> None:
    mix = JobMix(load=0.5, durations=(100.0, 300.0))
    # mean GPUs 0.9 x 1.9 + 0.1 x (16 x 2/3 + 32 x 1/3) = 3.8433..; mean duration 200 s
    mean_gpus = 0.9 * 1.9 + 0.1 * (16 * 2 / 3 + 32 / 3)
    assert mix.rate(40) == pytest.approx(0.5 * 40 / (mean_gpus * 200))
    assert JobMix(median_s=100.0, sigma=0.0).mean_duration() == pytest.approx(100.0)


def test_jobs_are_synthetic_seeded_and_offer_about_the_load() -> None:
    scenario = tiresias()
    mix = JobMix(load=0.8, hours=48)
    jobs = synthetic_jobs(scenario, mix, seed=3)
    assert jobs == synthetic_jobs(scenario, mix, seed=3)
    assert jobs != synthetic_jobs(scenario, mix, seed=4)
    assert all(j.gang.name.startswith("synthetic-") and j.gang.origin == "SYNTHETIC" for j in jobs)
    arrivals = [j.arrival for j in jobs]
    assert arrivals == sorted(arrivals) and arrivals[-1] < 48 * 3600
    offered = sum(j.gang.gpus * j.duration for j in jobs) / (scenario.gpus * 48 * 3600)
    assert 0.65 < offered < 0.95
    shares = np.bincount(
        [
            0
            if j.gang.required_level is not None
            else 1
            if j.gang.preferred_level is not None
            else 2
            for j in jobs
        ],
        minlength=3,
    ) / len(jobs)
    assert shares == pytest.approx([0.4, 0.4, 0.2], abs=0.03)


def test_required_levels_widen_to_fit_and_gb200_slices_are_two_pods_in_a_rack() -> None:
    scenario = gb200(blocks=2)
    jobs = synthetic_jobs(scenario, JobMix(hours=24), seed=1)
    topology = scenario.topology
    biggest = [int(np.bincount(d, weights=topology.gpus).max()) for d in topology.node_domain]
    assert biggest == [576, 72]
    required = [j.gang for j in jobs if j.gang.required_level is not None]
    assert all(biggest[g.required_level] >= g.gpus for g in required)  # type: ignore[index]
    assert any(g.required_level == 0 for g in required)  # a job above 72 GPUs needs the block
    assert any(g.required_level == 1 for g in required)
    sliced = [j.gang for j in jobs if j.gang.slice_size]
    assert sliced and all(
        (g.slice_size, g.slice_level, g.gpus_per_pod) == (2, 1, 4) for g in sliced
    )
    assert all(g.pods > 2 for g in sliced)  # a slice of the whole gang asks nothing more
    assert all(j.gang.gpus_per_pod == min(j.gang.gpus, 4) for j in jobs)


def test_tiresias_durations_are_the_60_job_sample() -> None:
    durations = tiresias_durations(trace_path("tiresias/60_job.csv"))
    assert len(durations) == 60
    assert (min(durations), max(durations)) == (121.0, 1800.0)


def test_a_bad_duration_is_located(tmp_path: Path) -> None:
    path = tmp_path / "jobs.csv"
    path.write_text("job_id,duration\n0,164\n1,-3\n")
    with pytest.raises(
        PlacementInputError, match=r"jobs.csv row 3 column 'duration': expected seconds > 0"
    ):
        tiresias_durations(path)
