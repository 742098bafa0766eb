"""A discrete-event simulation of gangs arriving, waiting, running and finishing.

Events are arrivals and finishes in time order (a finish before an arrival at the same
instant, so freed GPUs are seen). Waiting gangs form one FIFO admission queue, worked in
one of two ways:

- ``skip`` (the default): Kueue's ``BestEffortFIFO``: a gang that does not fit stays in
  the queue and the gangs behind it are tried (Kueue docs, "Cluster Queue", queueing
  strategy). After a finish the whole queue is tried in order; after an arrival only the
  new gang, since nothing freed up for the others. Within one pass, a gang with the same
  request as one that just failed is not retried (capacity only shrank since).
- ``fifo``: Kueue's ``StrictFIFO``: the head blocks everyone behind it until it fits.

Placement is all-or-nothing through a :class:`GangPolicy`; :func:`apply` takes the GPUs and
:func:`release` gives them back at the finish. Each admitted gang gets its
:func:`measure` figures plus its excess span at every level over the trivial lower bound
``ceil(pods / most pods one domain of the level can take)`` at decision time, and an
independent check that its required level holds. With ``verify``, every placement is
checked in full (:func:`placement_problems`) and a bad one stops the run.

Arrivals run over ``hours``; the run stops there, and gangs still running are counted up
to that instant.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from wlmap.errors import WlmapError
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement
from wlmap.placement.gangs.gang_policy import GangPolicy, apply, release
from wlmap.placement.gangs.jobmix import Job
from wlmap.placement.gangs.quality import GangQuality, measure
from wlmap.placement.gangs.scenarios import Scenario
from wlmap.placement.gangs.validity import placement_problems, required_met

__all__ = ["QUEUE_MODES", "Admitted", "InvalidPlacementError", "QueueMode", "Run", "simulate_gangs"]

QueueMode = Literal["skip", "fifo"]
QUEUE_MODES: tuple[QueueMode, ...] = ("skip", "fifo")
_FINISH, _ARRIVAL = 0, 1


class InvalidPlacementError(WlmapError):
    """A policy returned a placement that breaks the gang's request or the capacity."""


@dataclass(frozen=True, slots=True)
class Admitted:
    """One admitted gang.

    Attributes:
        gang: the gang.
        arrival: when it arrived (s).
        start: when it was placed (s).
        finish: when it finishes (s), possibly after the run's end.
        quality: span, locality, leakage and cost of its placement.
        excess_span: per level, span minus the trivial lower bound at decision time.
        required_met: whether its required level held (None when it had none).
    """

    gang: Gang
    arrival: float
    start: float
    finish: float
    quality: GangQuality
    excess_span: tuple[int, ...]
    required_met: bool | None


@dataclass
class Run:
    """What one simulation run saw.

    Attributes:
        scenario: the scenario's name.
        policy: the policy's name.
        hours: the simulated span.
        queue: the queue mode.
        capacity_gpus: the cluster's GPUs.
        admitted: the admitted gangs in admission order.
        arrived: gangs that arrived.
        rejected: gangs whose request is impossible on this topology (never queued).
        waiting: gangs still waiting at the end.
        gpu_seconds: GPU-seconds allocated within the run.
        whole_free_seconds: whole free finest-level domains integrated over time.
        domains: finest-level domains in the cluster.
        latencies: seconds each policy decision took (successful or not).
    """

    scenario: str
    policy: str
    hours: float
    queue: QueueMode
    capacity_gpus: int
    admitted: list[Admitted] = field(default_factory=list)
    arrived: int = 0
    rejected: int = 0
    waiting: int = 0
    gpu_seconds: float = 0.0
    whole_free_seconds: float = 0.0
    domains: int = 0
    latencies: list[float] = field(default_factory=list)

    @property
    def occupancy(self) -> float:
        """Allocated GPU-hours over the capacity's GPU-hours."""
        return self.gpu_seconds / (self.capacity_gpus * self.hours * 3600.0)

    @property
    def whole_free(self) -> float:
        """Whole free finest-level domains, averaged over time."""
        return self.whole_free_seconds / (self.hours * 3600.0)


def simulate_gangs(
    scenario: Scenario,
    policy: GangPolicy,
    jobs: Sequence[Job],
    *,
    hours: float,
    queue: QueueMode = "skip",
    verify: bool = False,
) -> Run:
    """Run ``jobs`` on ``scenario`` with ``policy`` for ``hours``.

    Raises:
        InvalidPlacementError: with ``verify``, a placement failed the check; the message
            names the policy, the gang and every problem.
    """
    return _Simulation(scenario, policy, jobs, hours, queue, verify).run()


class _Simulation:
    """The state of one run: capacity, events, the queue and what runs where."""

    def __init__(
        self,
        scenario: Scenario,
        policy: GangPolicy,
        jobs: Sequence[Job],
        hours: float,
        queue: QueueMode,
        verify: bool,
    ) -> None:
        self.scenario, self.policy, self.jobs = scenario, policy, jobs
        self.queue, self.verify = queue, verify
        self.topology = scenario.topology
        self.capacity = FreeCapacity(self.topology)
        self.horizon = hours * 3600.0
        self.finest = len(self.topology.levels) - 1
        self.result = Run(scenario.name, policy.name, hours, queue, scenario.gpus)
        self.result.domains = self.topology.domain_count(self.finest)
        self.events: list[tuple[float, int, int]] = [
            (job.arrival, _ARRIVAL, index) for index, job in enumerate(jobs)
        ]
        heapq.heapify(self.events)
        self.waiting: list[int] = []
        self.running: dict[int, GangPlacement] = {}

    def run(self) -> Run:
        result, capacity = self.result, self.capacity
        clock = 0.0
        whole = capacity.whole_free(self.finest)
        while self.events and self.events[0][0] < self.horizon:
            now, kind, index = heapq.heappop(self.events)
            result.whole_free_seconds += whole * (now - clock)
            clock = now
            if kind == _FINISH:
                release(capacity, self.running.pop(index))
                self.work_queue(now)
            else:
                self.arrive(index, now)
            whole = capacity.whole_free(self.finest)
        result.whole_free_seconds += whole * (self.horizon - clock)
        result.waiting = len(self.waiting)
        return result

    def arrive(self, index: int, now: float) -> None:
        self.result.arrived += 1
        gang = self.jobs[index].gang
        if gang.problem(self.topology) is not None or gang.gpus > self.scenario.gpus:
            self.result.rejected += 1
        elif (self.waiting and self.queue == "fifo") or not self.attempt(index, now):
            self.waiting.append(index)

    def work_queue(self, now: float) -> None:
        failed: set[tuple[int, ...]] = set()
        kept: list[int] = []
        for position, index in enumerate(self.waiting):
            request = _request(self.jobs[index].gang)
            if request not in failed and self.attempt(index, now):
                continue
            failed.add(request)
            kept.append(index)
            if self.queue == "fifo":
                kept.extend(self.waiting[position + 1 :])
                break
        self.waiting[:] = kept

    def attempt(self, index: int, now: float) -> bool:
        job, capacity, topology = self.jobs[index], self.capacity, self.topology
        gang = job.gang
        if gang.gpus > int(capacity.domain_free[0].sum()):
            return False
        started = time.perf_counter()
        placement = self.policy.place(capacity, gang)
        self.result.latencies.append(time.perf_counter() - started)
        if placement is None:
            return False
        if self.verify:
            problems = placement_problems(capacity, placement)
            if problems:
                raise InvalidPlacementError(
                    f"policy {self.policy.name} placed {gang.name} wrongly: " + "; ".join(problems)
                )
        bounds = [
            math.ceil(gang.pods / max(int(capacity.pod_slots(lvl, gang.gpus_per_pod).max()), 1))
            for lvl in range(len(topology.levels) + 1)
        ]
        apply(capacity, placement)
        quality = measure(placement, topology, self.scenario.weights)
        met = required_met(placement, topology) if gang.required_level is not None else None
        finish = now + job.duration
        excess = tuple(s - b for s, b in zip(quality.span, bounds, strict=True))
        self.result.admitted.append(Admitted(gang, job.arrival, now, finish, quality, excess, met))
        self.result.gpu_seconds += gang.gpus * (min(finish, self.horizon) - now)
        self.running[index] = placement
        heapq.heappush(self.events, (finish, _FINISH, index))
        return True


def _request(gang: Gang) -> tuple[int, ...]:
    """What a policy sees of a gang, as a key: two gangs with one key fit or fail together."""
    return (
        gang.pods,
        gang.gpus_per_pod,
        -1 if gang.required_level is None else gang.required_level,
        -1 if gang.preferred_level is None else gang.preferred_level,
        gang.slice_size,
        -1 if gang.slice_level is None else gang.slice_level,
        gang.priority,
    )
