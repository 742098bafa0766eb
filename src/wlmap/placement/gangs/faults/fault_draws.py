"""When and where nodes fail: a seeded, deterministic draw of fault events.

Three kinds of fault, each a Poisson process over the whole cluster:

- ``node``: one node fails whole (all its GPUs lost). Each node fails independently with a
  mean time between failures of ``mtbf_days`` (default 260 days: 419 unexpected
  interruptions in 54 days on 2,048 nodes of 8 GPUs during Llama 3 405B pre-training,
  Meta 2024), times a ``stress`` factor (1, 5, 10), so the cluster sees
  ``nodes * stress / mtbf`` failures per unit time and the failed node is drawn uniformly.
- ``domain``: every node of one domain of ``correlated_level`` fails at once (a ToR switch or
  a rack's power or NVLink switch tray), at ``correlated_ratio`` (1/10) of the cluster's
  node-failure rate, the domain drawn uniformly.
- ``partial``: one GPU of a node is lost (the device plugin marks it unhealthy, or the DRA
  driver removes the device); the node keeps its other GPUs. Rate: ``partial_ratio`` times
  the node-failure rate (default 1.0, an assumption: Llama 3's 148 GPU and 72 HBM faults
  were about half of all interruptions).

Every fault is noticed ``detection_s`` seconds after it happens (20 s for an NVSentinel-like
health pipeline, 60 s for KAI's stale-gang grace, 300 s for Kubernetes' default NotReady
toleration) and repaired ``repair_h`` hours after it happens (default 8 h, an assumption:
a reboot or a part swap, not an RMA).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from wlmap.placement.gangs.tree import Topology

__all__ = ["Fault", "FaultKind", "FaultModel", "draw_faults", "expected_faults"]

FaultKind = Literal["node", "domain", "partial"]

_DAY_S = 86_400.0


@dataclass(frozen=True, slots=True)
class FaultModel:
    """The rates and delays of the faults to draw.

    Attributes:
        mtbf_days: mean days between failures of one node under no stress.
        stress: multiplies every rate (1, 5, 10 in the benchmark).
        correlated_level: the level whose domains fail whole; None for no correlated faults.
        correlated_ratio: correlated failures per node failure (cluster-wide rates).
        partial_ratio: single-GPU losses per node failure (cluster-wide rates).
        detection_s: seconds from a fault to its detection.
        repair_h: hours from a fault to the repaired node or GPU being back in service.
    """

    mtbf_days: float = 260.0
    stress: float = 1.0
    correlated_level: int | None = None
    correlated_ratio: float = 0.1
    partial_ratio: float = 1.0
    detection_s: float = 60.0
    repair_h: float = 8.0

    def node_rate(self, nodes: int) -> float:
        """Whole-node failures per second over ``nodes`` nodes."""
        return nodes * self.stress / (self.mtbf_days * _DAY_S)


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault event.

    Attributes:
        at: seconds from the start of the window when the fault happens.
        kind: ``node``, ``domain`` or ``partial``.
        nodes: indices of the nodes hit, ascending.
        gpus: GPUs lost per node hit: 1 for a partial fault, None for the whole node.
        detected: seconds from the start of the window when the fault is noticed.
        repaired: seconds from the start of the window when the nodes are back.
    """

    at: float
    kind: FaultKind
    nodes: tuple[int, ...]
    gpus: int | None
    detected: float
    repaired: float


def _poisson_times(rate: float, horizon: float, rng: np.random.Generator) -> list[float]:
    times: list[float] = []
    if rate <= 0.0:
        return times
    t = float(rng.exponential(1.0 / rate))
    while t < horizon:
        times.append(t)
        t += float(rng.exponential(1.0 / rate))
    return times


def draw_faults(topology: Topology, model: FaultModel, horizon_s: float, seed: int) -> list[Fault]:
    """The faults of ``model`` in ``[0, horizon_s)`` on ``topology``, in time order.

    The same seed gives the same faults; each kind draws from its own stream, so changing
    one rate does not move the faults of the other kinds.
    """
    node_count = len(topology.nodes)
    base = model.node_rate(node_count)
    streams = np.random.default_rng(seed).spawn(3)
    found: list[Fault] = []

    def fault(at: float, kind: FaultKind, nodes: tuple[int, ...], gpus: int | None) -> Fault:
        return Fault(at, kind, nodes, gpus, at + model.detection_s, at + model.repair_h * 3600.0)

    rng = streams[0]
    for at in _poisson_times(base, horizon_s, rng):
        found.append(fault(at, "node", (int(rng.integers(node_count)),), None))
    rng = streams[1]
    for at in _poisson_times(base * model.partial_ratio, horizon_s, rng):
        found.append(fault(at, "partial", (int(rng.integers(node_count)),), 1))
    if model.correlated_level is not None:
        level = model.correlated_level
        rng = streams[2]
        for at in _poisson_times(base * model.correlated_ratio, horizon_s, rng):
            domain = int(rng.integers(topology.domain_count(level)))
            members = tuple(int(n) for n in topology.members[level][domain])
            found.append(fault(at, "domain", members, None))
    found.sort(key=lambda f: (f.at, f.nodes))
    return found


def expected_faults(topology: Topology, model: FaultModel, horizon_s: float) -> float:
    """The mean number of fault events :func:`draw_faults` draws (for checks and reports)."""
    base = model.node_rate(len(topology.nodes)) * horizon_s
    correlated = model.correlated_ratio if model.correlated_level is not None else 0.0
    return base * (1.0 + model.partial_ratio + correlated) if math.isfinite(base) else 0.0
