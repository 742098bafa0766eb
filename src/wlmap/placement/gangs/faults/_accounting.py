"""The recovery simulator's bookkeeping: jobs, one record per affected gang, GPU-time.

GPU-time is counted inside the measured window only: allocated = GPUs a job holds times
the time it holds them; productive = the job's GPUs times the time it makes progress,
minus the progress a fault threw away (work since the last checkpoint).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from wlmap.placement.gangs.gang import Gang, GangPlacement
from wlmap.placement.gangs.quality import default_weights, measure
from wlmap.placement.gangs.tree import Topology


@dataclass
class Record:
    """How one affected gang fared, from its first fault to being productive again."""

    gang: str
    gpus: int
    fault_at: float
    cost_before: float
    span_before: int
    kind: str = "pending"
    moved: int = 0
    evicted: int = 0
    recompute_s: float = 0.0
    mttr_s: float | None = None
    cost_after: float | None = None
    span_after: int | None = None

    def lost_gpu_h(self, end: float) -> float:
        """GPUs times (work redone + MTTR, censored at ``end``), in hours."""
        mttr = self.mttr_s if self.mttr_s is not None else end - self.fault_at
        return self.gpus * (self.recompute_s + mttr) / 3600.0


@dataclass(eq=False)
class Job:
    """A gang with its progress and, while it is being recovered, its open record."""

    index: int
    arrival: float
    gang: Gang
    work_s: float
    done_s: float = 0.0
    run_from: float | None = None
    version: int = 0
    placement: GangPlacement | None = None
    held_gpus: int = 0
    held_since: float = 0.0
    record: Record | None = None
    last: Record | None = None
    evict_until: float = 0.0
    lost: list[tuple[int, int]] = field(default_factory=list)


class Ledger:
    """GPU-time and records, clipped to the window ``[start, end)``."""

    def __init__(self, topology: Topology, start: float, end: float) -> None:
        self.topology = topology
        self.weights = default_weights(len(topology.levels))
        self.start = start
        self.end = end
        self.allocated = 0.0
        self.productive = 0.0
        self.records: list[Record] = []

    def _overlap(self, a: float, b: float) -> float:
        return max(0.0, min(b, self.end) - max(a, self.start))

    def hold(self, job: Job, placement: GangPlacement | None, now: float) -> None:
        """The job holds ``placement``'s GPUs from ``now`` on (None: nothing)."""
        self.allocated += job.held_gpus * self._overlap(job.held_since, now)
        job.placement = placement
        job.held_gpus = (
            0 if placement is None else sum(p for _, p in placement.nodes) * job.gang.gpus_per_pod
        )
        job.held_since = now

    def progress(self, job: Job, now: float) -> None:
        """Bank the job's progress up to ``now`` and stop it."""
        if job.run_from is not None and job.run_from < now:
            job.done_s += now - job.run_from
            self.productive += job.gang.gpus * self._overlap(job.run_from, now)
        job.run_from = None

    def hit(self, job: Job, now: float, checkpoint_s: float) -> None:
        """A fault stopped the job: roll back to its checkpoint, open a record if none."""
        again = job.run_from is not None and job.run_from > now
        if job.record is None and job.last is not None and again:
            # hit again before it was productive: still the same recovery
            job.record, job.last = job.last, None
            job.record.mttr_s = None
        self.progress(job, now)
        redo = job.done_s - math.floor(job.done_s / checkpoint_s) * checkpoint_s
        job.done_s -= redo
        self.productive -= job.gang.gpus * self._overlap(now - redo, now)
        if job.record is None:
            assert job.placement is not None
            quality = measure(job.placement, self.topology, self.weights)
            job.record = Record(
                job.gang.name, job.gang.gpus, now, quality.cost, quality.span[-2], recompute_s=redo
            )
            self.records.append(job.record)
        else:
            job.record.recompute_s += redo

    def recovered(self, job: Job, placement: GangPlacement, at: float) -> None:
        """The job is productive again from ``at`` on ``placement``: close its record."""
        record = job.record
        assert record is not None
        quality = measure(placement, self.topology, self.weights)
        record.mttr_s = at - record.fault_at
        record.cost_after = quality.cost
        record.span_after = quality.span[-2]
        job.record, job.last = None, record

    def close(self, jobs: list[Job]) -> None:
        """Count the GPU-time of the jobs still holding GPUs at the window's end."""
        for job in jobs:
            self.progress(job, self.end)
            self.hold(job, job.placement, self.end)
