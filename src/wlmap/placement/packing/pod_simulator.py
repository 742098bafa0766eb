"""Trace-driven placement simulation, the FGD paper's method.

One run: the trace's pods are tuned to ``ratio`` x the cluster's GPU capacity and shuffled
with the seed (``arrivals.tune_to_capacity``), then placed one by one by the policy on an
empty cluster. Nothing departs; a pod the policy cannot place counts as failed and the run
goes on. After every pod the allocation, fragmentation and failures are recorded
(``metrics``). The same nodes, pods, policy and seed always give the same result.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from wlmap.placement.nodes import Node
from wlmap.placement.packing.arrivals import tune_to_capacity
from wlmap.placement.packing.cluster_state import ClusterState, IntArray
from wlmap.placement.packing.metrics import ArrivalRow, FloatArray, FragmentationMeter, arrival_rows
from wlmap.placement.packing.pod_policies import Policy, make_policy
from wlmap.placement.packing.pods import POD_CLASSES, Placement, Pod, PodClass

CSV_COLUMNS = (
    "trace",
    "policy",
    "seed",
    "arrived_pct",
    "allocation_pct",
    "frag_amount_pct",
    "frag_ratio_pct",
    "arrived_pods",
    "placed_pods",
    *(f"failed_{c.replace('-', '_')}" for c in POD_CLASSES),
)


@dataclass(frozen=True)
class SimulationResult:
    """The outcome of one run.

    Attributes:
        policy: the policy's name.
        seed: the run's seed.
        capacity_gpu_milli: the cluster's GPU capacity in thousandths.
        rows: one row per arrived percent of capacity (0..130).
        failed: failed pods per class over the whole run.
        arrived_pods: pods in the tuned arrival sequence; ``placed_pods`` were placed.
        wall_time_s: seconds the run took, tuning and measuring included.
        allocated_milli: allocated GPU share after each pod (arrival order).
        arrived_milli: arrived GPU request after each pod.
        state: the cluster at the end of the run.
    """

    policy: str
    seed: int
    capacity_gpu_milli: int
    rows: tuple[ArrivalRow, ...]
    failed: dict[PodClass, int]
    arrived_pods: int
    placed_pods: int
    wall_time_s: float
    allocated_milli: IntArray = field(repr=False, compare=False)
    arrived_milli: IntArray = field(repr=False, compare=False)
    state: ClusterState = field(repr=False, compare=False)

    def allocation_at(self, arrived_pct: int) -> float | None:
        """Allocated GPU share (percent of capacity) at an arrived percent; None if absent."""
        row = next((r for r in self.rows if r.arrived_pct == arrived_pct), None)
        return None if row is None else row.allocation_pct

    def to_rows(self, trace: str = "") -> list[dict[str, str | int | float]]:
        """CSV rows (``CSV_COLUMNS``), one per arrived percent; ratios rounded to 4 places."""

        def number(value: float) -> float | str:
            return "" if math.isnan(value) else round(value, 4)

        out: list[dict[str, str | int | float]] = []
        for row in self.rows:
            record: dict[str, str | int | float] = {
                "trace": trace,
                "policy": self.policy,
                "seed": self.seed,
                "arrived_pct": row.arrived_pct,
                "allocation_pct": round(row.allocation_pct, 4),
                "frag_amount_pct": number(row.frag_amount_pct),
                "frag_ratio_pct": number(row.frag_ratio_pct),
                "arrived_pods": row.arrived_pods,
                "placed_pods": row.placed_pods,
            }
            for name, count in zip(CSV_COLUMNS[-len(POD_CLASSES) :], row.failed, strict=True):
                record[name] = count
            out.append(record)
        return out


def place_each(
    state: ClusterState, policy: Policy, pods: Iterable[Pod]
) -> Iterator[tuple[Pod, Placement | None]]:
    """Place pods one by one in the order given, each where ``policy`` chooses (None: it
    fits nowhere and is left out); the state holds a pod before the next is placed. The
    policy must have been reset for this state."""
    for pod in pods:
        placement = policy.place(state, pod)
        if placement is not None:
            state.assign(pod, placement)
            policy.observe(state, pod, placement)
        yield pod, placement


def simulate(
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    policy: str | Policy,
    *,
    seed: int,
    ratio: float = 1.3,
    measure_fragmentation: bool = True,
) -> SimulationResult:
    """Place the tuned arrival sequence of ``pods`` on ``nodes`` with ``policy``.

    Args:
        nodes: the cluster.
        pods: the trace's pod list; it is tuned to ``ratio`` x GPU capacity with ``seed``
            and is also the target workload of the fragmentation measure.
        policy: a policy or its registry name.
        seed: the run's seed (arrival order, node tie-break order, random draws).
        ratio: arrived GPU request at the end of the run, as a multiple of capacity.
        measure_fragmentation: False skips the fragmentation measure (rows then carry NaN).
    """
    started = time.perf_counter()
    chosen = make_policy(policy) if isinstance(policy, str) else policy
    state = ClusterState.from_nodes(nodes)
    arrivals = tune_to_capacity(pods, state.gpu_capacity_milli, ratio=ratio, seed=seed)
    chosen.reset(state, arrivals, seed)
    meter = FragmentationMeter(state, pods) if measure_fragmentation else None
    count = len(arrivals)
    arrived = np.zeros(count, dtype=np.int64)
    allocated = np.zeros(count, dtype=np.int64)
    idle = np.zeros(count, dtype=np.int64)
    frag: FloatArray = np.full(count, math.nan)
    failed_class = np.full(count, -1, dtype=np.int64)
    class_index = {c: i for i, c in enumerate(POD_CLASSES)}
    arrived_total = 0
    frag_total = meter.total if meter is not None else math.nan
    for k, (pod, placement) in enumerate(place_each(state, chosen, arrivals)):
        arrived_total += pod.gpu_demand_milli
        if placement is None:
            failed_class[k] = class_index[pod.pod_class]
        elif meter is not None:
            frag_total = meter.update(state, placement.node)
        arrived[k] = arrived_total
        allocated[k] = state.allocated_gpu_milli
        frag[k] = frag_total
    idle[:] = state.gpu_capacity_milli - allocated
    failed = {c: int((failed_class == i).sum()) for c, i in class_index.items()}
    return SimulationResult(
        policy=chosen.name,
        seed=seed,
        capacity_gpu_milli=state.gpu_capacity_milli,
        rows=arrival_rows(state.gpu_capacity_milli, arrived, allocated, frag, idle, failed_class),
        failed=failed,
        arrived_pods=count,
        placed_pods=int((failed_class < 0).sum()),
        wall_time_s=time.perf_counter() - started,
        allocated_milli=allocated,
        arrived_milli=arrived,
        state=state,
    )


__all__ = ["CSV_COLUMNS", "SimulationResult", "place_each", "simulate"]
