"""A SYNTHETIC gang mix for the fault scenarios: sizes, topology intent, durations, arrivals.

SYNTHETIC, stated here in full. 90 % of gangs are single-node jobs of 1/2/4/8 GPUs with the
Philly shares used by Gavel (70/10/15/5 %); 10 % are a multi-node tail of 16/32/64/128 GPUs
(50/30/15/5 %, a halving power law). A job larger than a node becomes pods of one node's
GPUs each. Topology intent of multi-node gangs: half require, half only prefer, the finest
level whose median domain holds the gang; all prefer the finest level. Durations are
lognormal: median 1 h (sigma 1) for single-node jobs, 4 h (sigma 0.8) for the tail.
Arrivals are Poisson at the rate that keeps ``load`` of the GPUs busy on average.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wlmap.placement.topology.gang import Gang
from wlmap.placement.topology.tree import Topology

__all__ = ["SYNTHETIC", "Arrival", "synthetic_arrivals"]

SYNTHETIC = "SYNTHETIC gang mix (Philly-like sizes with a multi-node tail)"

_SMALL = ((1, 2, 4, 8), (0.70, 0.10, 0.15, 0.05))
_TAIL = ((16, 32, 64, 128), (0.50, 0.30, 0.15, 0.05))
_TAIL_SHARE = 0.10
_SMALL_H = (1.0, 1.0)  # median hours, sigma
_TAIL_H = (4.0, 0.8)


@dataclass(frozen=True, slots=True)
class Arrival:
    """One synthetic job: when it arrives, its gang, and the productive seconds it needs."""

    at: float
    gang: Gang
    work_s: float


def _mean_h(median: float, sigma: float) -> float:
    return median * math.exp(sigma * sigma / 2.0)


def _mean_gpu_s() -> float:
    small = sum(g * p for g, p in zip(*_SMALL, strict=True)) * _mean_h(*_SMALL_H)
    tail = sum(g * p for g, p in zip(*_TAIL, strict=True)) * _mean_h(*_TAIL_H)
    return 3600.0 * ((1 - _TAIL_SHARE) * small + _TAIL_SHARE * tail)


def _required_level(topology: Topology, gpus: int) -> int | None:
    for level in range(len(topology.levels) - 1, -1, -1):
        sizes = np.bincount(topology.node_domain[level], weights=topology.gpus)
        if float(np.median(sizes)) >= gpus:
            return level
    return None


def _gang(topology: Topology, index: int, gpus: int, rng: np.random.Generator) -> Gang:
    per_node = int(topology.gpus.max())
    finest = len(topology.levels) - 1
    name = f"synthetic-{index}"
    if gpus <= per_node:
        return Gang(name, 1, gpus, origin=SYNTHETIC)
    pods = math.ceil(gpus / per_node)
    required = _required_level(topology, gpus) if rng.random() < 0.5 else None
    return Gang(name, pods, per_node, required, finest, origin=SYNTHETIC)


def synthetic_arrivals(
    topology: Topology, load: float, start_s: float, end_s: float, seed: int
) -> list[Arrival]:
    """SYNTHETIC jobs arriving in ``[start_s, end_s)`` at ``load`` of the cluster's GPUs."""
    rng = np.random.default_rng(seed)
    rate = load * float(topology.gpus.sum()) / _mean_gpu_s()
    found: list[Arrival] = []
    t = start_s + float(rng.exponential(1.0 / rate))
    index = 0
    while t < end_s:
        if rng.random() < _TAIL_SHARE:
            gpus = int(rng.choice(_TAIL[0], p=_TAIL[1]))
            median, sigma = _TAIL_H
        else:
            gpus = int(rng.choice(_SMALL[0], p=_SMALL[1]))
            median, sigma = _SMALL_H
        work = 3600.0 * float(rng.lognormal(math.log(median), sigma))
        found.append(Arrival(t, _gang(topology, index, gpus, rng), work))
        index += 1
        t += float(rng.exponential(1.0 / rate))
    return found
