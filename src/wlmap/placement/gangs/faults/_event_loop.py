"""The event loop under the fault simulation: arrivals, a FIFO queue with backfill, gangs
started and finished, events in time order (see :mod:`.recovery_loop` for the model).

What faults do and how a reaction's answer is carried out are the subclass's
(:class:`wlmap.placement.gangs.faults.recovery_loop.RecoveryLoop`): :meth:`EventLoop.handle`
and :meth:`EventLoop.act`.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.faults._accounting import Job, Ledger, Record
from wlmap.placement.gangs.faults.fault_draws import Fault
from wlmap.placement.gangs.faults.reactions import Reaction
from wlmap.placement.gangs.faults.reference import ExactReference
from wlmap.placement.gangs.faults.spares import SparePool
from wlmap.placement.gangs.faults.verify import accounting_problems, constraint_problems
from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.gang_policy import GangPolicy, apply, release
from wlmap.placement.gangs.jobmix import Job as Arrival
from wlmap.placement.gangs.tree import Topology

ARRIVE, FINISH, FAULT, DETECT, ACT, REPAIR = range(6)
_SCAN = 200  # queued gangs tried per scheduling pass (backfill depth)


@dataclass(frozen=True, slots=True)
class RecoveryParams:
    """Modelled times, in seconds (assumptions, stated in the report).

    ``evict_s`` is what evicting healthy pods adds before the gang can start again: their
    termination grace (Kubernetes' default ``terminationGracePeriodSeconds`` is 30 s).
    """

    planning_s: float = 1.0
    restart_s: float = 60.0
    reload_s: float = 120.0
    evict_s: float = 30.0
    checkpoint_s: float = 1800.0
    warmup_s: float = 12 * 3600.0
    horizon_s: float = 24 * 3600.0


@dataclass
class RecoveryRun:
    """What one simulation measured."""

    records: list[Record] = field(default_factory=list)
    allocated_gpu_s: float = 0.0
    productive_gpu_s: float = 0.0
    violations: list[str] = field(default_factory=list)
    placed: int = 0
    arrived: int = 0

    @property
    def goodput(self) -> float:
        """Productive GPU-time over allocated GPU-time in the window."""
        return self.productive_gpu_s / self.allocated_gpu_s if self.allocated_gpu_s else 1.0


class EventLoop:
    """Gangs arriving, queued, started and finished, and the events still to come."""

    def __init__(
        self,
        topology: Topology,
        policy: GangPolicy,
        reaction: Reaction,
        params: RecoveryParams,
        seed: int,
    ) -> None:
        self.capacity = FreeCapacity(topology)
        self.policy = policy
        self.recovering = policy  # places gangs hit by a fault (paired runs set their own)
        self.reaction = reaction
        self.params = params
        self.spares = (
            SparePool(self.capacity, reaction.spare_percent) if reaction.spare_percent else None
        )
        self.ledger = Ledger(topology, params.warmup_s, params.warmup_s + params.horizon_s)
        self.events: list[tuple[float, int, int, object]] = []
        self.queue: list[Job] = []
        self.running: dict[int, Job] = {}
        self.removed: dict[tuple[int, int], int] = {}  # (fault id, node) -> GPUs removed
        self.seq = 0
        self.seed = seed
        self.run = RecoveryRun()
        self.hit_by: dict[int, list[Job]] = {}
        self.arrivals: list[Arrival] = []
        self.next_arrival = 0
        self.picks: list[float] = []
        self.waiting: dict[int, Job] = {}  # gangs holding their survivors, waiting for room
        self.retrying = False
        self.exact: ExactReference | None = None  # compares each decision with the optimum

    def load(self, arrivals: list[Arrival], faults: list[Fault]) -> None:
        """Queue the first arrival (the others follow one by one) and every fault's events."""
        self.arrivals = arrivals
        self.push_arrival()
        self.picks = uniforms(self.seed, len(faults))
        shift = self.params.warmup_s
        for fault_id, fault in enumerate(faults):
            self.push(fault.at + shift, FAULT, (fault_id, fault))
            self.push(fault.detected + shift, DETECT, fault_id)
            self.push(fault.repaired + shift, REPAIR, (fault_id, fault))

    def push_arrival(self) -> None:
        index = self.next_arrival
        if index < len(self.arrivals):
            arrival = self.arrivals[index]
            job = Job(index, arrival.arrival, arrival.gang, arrival.duration)
            self.push(arrival.arrival, ARRIVE, job)
            self.next_arrival += 1

    def advance(self, until: float, done: Callable[[], bool] | None = None) -> None:
        """Handle every event before ``until``, or until ``done()`` says so."""
        while self.events and self.events[0][0] < until:
            now, _, kind, payload = heapq.heappop(self.events)
            self.handle(now, kind, payload)
            if done is not None and done():
                return

    def finish(self) -> RecoveryRun:
        """Close the window's accounts and check every node's GPUs."""
        running = [j for j in self.running.values() if j.placement is not None]
        self.ledger.close(running)
        held = self.spares.held if self.spares is not None else {}
        placements = [j.placement for j in running if j.placement is not None]
        self.run.violations.extend(accounting_problems(self.capacity, placements, held))
        self.run.records = self.ledger.records
        self.run.allocated_gpu_s = self.ledger.allocated
        self.run.productive_gpu_s = self.ledger.productive
        return self.run

    def push(self, at: float, kind: int, payload: object) -> None:
        self.seq += 1
        heapq.heappush(self.events, (at, self.seq, kind, payload))

    def resume_delay(self) -> float:
        p = self.params
        return p.planning_s + p.restart_s + p.reload_s

    def start(self, job: Job, placement: GangPlacement, now: float, delay: float) -> None:
        self.run.violations.extend(constraint_problems(placement, self.capacity.topology))
        self.ledger.hold(job, placement, now)
        job.version += 1
        job.run_from = now + delay
        self.running[job.index] = job
        self.push(job.run_from + job.work_s - job.done_s, FINISH, (job, job.version))
        if job.record is not None:
            self.ledger.recovered(job, placement, job.run_from)

    def schedule(self, now: float) -> None:
        if self.waiting and not self.retrying:
            # gangs waiting with their healthy pods held go before the queue
            self.retrying = True
            for job in list(self.waiting.values()):
                self.act(job, now)
            self.retrying = False
        free = int(self.capacity.node_free.sum())
        for job in self.queue[:_SCAN]:
            if job.gang.gpus > free:
                continue
            placer = self.recovering if job.record is not None else self.policy
            found = placer.place(self.capacity, job.gang)
            if found is None:
                continue
            apply(self.capacity, found)
            free -= job.gang.gpus
            self.queue.remove(job)
            self.run.placed += 1
            delay = self.resume_delay() + max(0.0, job.evict_until - now) if job.record else 0.0
            self.start(job, found, now, delay)

    def release_all(self, job: Job, now: float, refill: bool = True) -> list[int]:
        assert job.placement is not None
        nodes = [n for n, _ in job.placement.nodes]
        release(self.capacity, job.placement)
        self.ledger.hold(job, None, now)
        if refill and self.spares is not None:
            self.spares.refill(self.capacity, nodes)
        return nodes

    def requeue(self, job: Job) -> None:
        self.running.pop(job.index, None)
        at = [j.arrival for j in self.queue]
        position = next((i for i, a in enumerate(at) if a > job.arrival), len(at))
        self.queue.insert(position, job)

    def handle(self, now: float, kind: int, payload: object) -> None:
        """Handle one event (the subclass's: it knows what faults do)."""
        raise NotImplementedError

    def act(self, job: Job, now: float) -> None:
        """Carry out the reaction for a job that lost pods (the subclass's)."""
        raise NotImplementedError


def uniforms(seed: int, count: int) -> list[float]:
    """``count`` seeded uniform draws in [0, 1) (which pod slot a partial fault takes)."""
    return [float(x) for x in np.random.default_rng([seed, 1]).random(count)]
