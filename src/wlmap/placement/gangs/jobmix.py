"""A SYNTHETIC gang job mix for the placement benchmarks: sizes, durations, arrivals, intent.

No public trace has gangs, their topology intent and a network topology together, so the
benchmarks draw jobs from published distributions. Everything here is SYNTHETIC and every
job it makes is named ``synthetic-<n>``:

- sizes in GPUs: the Philly distribution as Gavel samples it, 1/2/4/8 GPUs with
  probabilities 70/10/15/5 %, plus a multi-node tail (``tail_share`` of the jobs, 10 % by
  default) of 16, 32, ..., 512 GPUs with probability proportional to ``size ** -alpha``
  (alpha 1: each doubling is half as likely). Sizes above the cluster are never drawn.
  A job of ``g`` GPUs is pods of ``min(g, GPUs per node)`` GPUs;
- durations: lognormal (median 1 h, sigma 1 by default), or drawn from a list (the
  Tiresias ``60_job.csv`` sample, :func:`tiresias_durations`);
- arrivals: Poisson, at the rate that makes the offered load (GPUs x duration per second)
  ``load`` times the cluster's GPUs;
- intent: 40 % required at the finest topology level ("rack"), 40 % preferred there, 20 %
  none. A required level is widened to the finest level with a domain large enough for
  the job (a 512-GPU job cannot be required inside a 72-GPU rack). Every multi-pod job
  carries a tensor-parallel slice of 4 or 8 GPUs (even odds) inside one NVLink domain
  (the scenario's ``nvlink_level``) when that is more than one pod.

One ``random.Random(seed)`` stream draws everything, so a seed gives the same jobs on any
platform.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wlmap.errors import PlacementInputError
from wlmap.placement.gangs.gang import Gang
from wlmap.placement.gangs.scenarios import Scenario
from wlmap.placement.nodes import csv_rows

__all__ = [
    "LABEL",
    "PHILLY_SIZES",
    "Job",
    "JobMix",
    "describe",
    "synthetic_jobs",
    "tiresias_durations",
]

LABEL = "SYNTHETIC"
PHILLY_SIZES: tuple[tuple[int, float], ...] = ((1, 0.70), (2, 0.10), (4, 0.15), (8, 0.05))
TAIL_SIZES = (16, 32, 64, 128, 256, 512)


@dataclass(frozen=True, slots=True)
class Job:
    """A SYNTHETIC gang job: when it arrives, how long it runs, what it asks for."""

    arrival: float
    duration: float
    gang: Gang


@dataclass(frozen=True, slots=True)
class JobMix:
    """The knobs of the SYNTHETIC mix (defaults as in the module docstring).

    Attributes:
        load: offered GPU load as a share of the cluster's GPUs (0.6 to 1.0 in the benchmarks).
        hours: arrivals are drawn over this many hours.
        tail_share: share of jobs drawn from the multi-node tail.
        alpha: power-law exponent of the tail sizes.
        median_s: median duration in seconds (lognormal).
        sigma: lognormal shape.
        durations: when given, durations are drawn from these seconds instead.
        intent: shares of required, preferred and no intent.
        slice_gpus: tensor-parallel slice sizes in GPUs, drawn with even odds.
    """

    load: float = 0.8
    hours: float = 24.0
    tail_share: float = 0.10
    alpha: float = 1.0
    median_s: float = 3600.0
    sigma: float = 1.0
    durations: tuple[float, ...] = ()
    intent: tuple[float, float, float] = (0.4, 0.4, 0.2)
    slice_gpus: tuple[int, ...] = (4, 8)

    def sizes(self, cluster_gpus: int) -> list[tuple[int, float]]:
        """Job sizes in GPUs with their probabilities, for a cluster of ``cluster_gpus``."""
        tail = [s for s in TAIL_SIZES if s <= cluster_gpus]
        body = [(s, p) for s, p in PHILLY_SIZES if s <= cluster_gpus]
        body_total = sum(p for _, p in body)
        share = self.tail_share if tail else 0.0
        weights = [s**-self.alpha for s in tail]
        return [(s, (1 - share) * p / body_total) for s, p in body] + [
            (s, share * w / sum(weights)) for s, w in zip(tail, weights, strict=True)
        ]

    def mean_duration(self) -> float:
        """The expected duration in seconds."""
        if self.durations:
            return sum(self.durations) / len(self.durations)
        return self.median_s * math.exp(self.sigma**2 / 2)

    def rate(self, cluster_gpus: int) -> float:
        """Arrivals per second that offer ``load`` x the cluster's GPUs."""
        mean_gpus = sum(s * p for s, p in self.sizes(cluster_gpus))
        return self.load * cluster_gpus / (mean_gpus * self.mean_duration())


def synthetic_jobs(scenario: Scenario, mix: JobMix, seed: int) -> list[Job]:
    """The SYNTHETIC jobs of one run on ``scenario``, in arrival order."""
    if mix.load <= 0 or mix.hours <= 0:
        raise ValueError(f"load and hours must be > 0, got {mix.load} and {mix.hours}")
    topology = scenario.topology
    rng = random.Random(seed)
    sizes = mix.sizes(scenario.gpus)
    values, weights = [s for s, _ in sizes], [p for _, p in sizes]
    rate = mix.rate(scenario.gpus)
    per_node = int(topology.gpus.max())
    finest = len(topology.levels) - 1
    largest = [
        int(np.bincount(of_node, weights=topology.gpus).max()) for of_node in topology.node_domain
    ]
    horizon = mix.hours * 3600.0
    jobs: list[Job] = []
    now = rng.expovariate(rate)
    while now < horizon:
        gpus = rng.choices(values, weights)[0]
        duration = (
            rng.choice(mix.durations)
            if mix.durations
            else rng.lognormvariate(math.log(mix.median_s), mix.sigma)
        )
        per_pod = math.gcd(gpus, per_node)
        pods = gpus // per_pod
        draw = rng.random()
        required = preferred = None
        if draw < mix.intent[0]:
            fits = [lvl for lvl in range(finest + 1) if largest[lvl] >= gpus]
            required = fits[-1] if fits else None
            preferred = None if required is not None else finest
        elif draw < mix.intent[0] + mix.intent[1]:
            preferred = finest
        slice_pods = rng.choice(mix.slice_gpus) // per_pod
        if not 1 < slice_pods < pods or pods % slice_pods:
            slice_pods = 0  # a slice of one pod, or of the whole gang, asks nothing more
        gang = Gang(
            name=f"synthetic-{len(jobs):06d}",
            pods=pods,
            gpus_per_pod=per_pod,
            required_level=required,
            preferred_level=preferred,
            slice_size=slice_pods,
            slice_level=scenario.nvlink_level if slice_pods else None,
            origin=LABEL,
        )
        jobs.append(Job(now, duration, gang))
        now += rng.expovariate(rate)
    return jobs


def tiresias_durations(path: str | Path) -> tuple[float, ...]:
    """The ``duration`` column (seconds) of the Tiresias ``60_job.csv`` sample.

    Raises:
        PlacementInputError: the file or column is missing or a duration is not > 0.
    """
    file = str(path)
    found = []
    for line, row in csv_rows(Path(file), ("duration",)):
        value = row["duration"].strip()
        try:
            seconds = float(value)
        except ValueError:
            seconds = math.nan
        if not seconds > 0:
            raise PlacementInputError(
                f"expected seconds > 0, got {value!r}",
                file=file,
                row=line,
                column="duration",
            )
        found.append(seconds)
    if not found:
        raise PlacementInputError("no data rows", file=file, row=None, column=None)
    return tuple(found)


def describe(mix: JobMix, scenario: Scenario) -> str:
    """One line naming the mix as SYNTHETIC, with its parameters."""
    durations = (
        f"durations from a list of {len(mix.durations)}"
        if mix.durations
        else f"lognormal durations (median {mix.median_s:g} s, sigma {mix.sigma:g})"
    )
    return (
        f"{LABEL} job mix: Philly/Gavel sizes 1/2/4/8 GPUs 70/10/15/5 % with a "
        f"{mix.tail_share:.0%} power-law tail 16-512 GPUs (alpha {mix.alpha:g}), {durations}, "
        f"Poisson arrivals at load {mix.load:g} of {scenario.gpus} GPUs over {mix.hours:g} h, "
        f"intent required/preferred/none {'/'.join(f'{p:.0%}' for p in mix.intent)}"
    )
