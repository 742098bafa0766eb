"""A small event loop: gangs arrive, run and finish; faults hit them; a reaction recovers them.

Time runs from 0; arrivals start at 0 and the measured window is
``[warmup_s, warmup_s + horizon_s)`` (faults fall inside it). Arrivals go to a FIFO queue;
each time capacity frees up, the queue is scanned in order and every gang that fits is
placed (backfill). A gang progresses at one second of work per second while running and
checkpoints every ``checkpoint_s`` seconds of progress. A fault that takes pods of a gang
stops it: the work since its last checkpoint is lost, its healthy pods hold their GPUs idle.
At detection (plus the reaction's grace) the reaction decides; a reaction that chose to
wait (healthy pods held) is asked again, ahead of the queue, at every scheduling pass. The
gang is productive again ``planning_s + restart_s + reload_s`` after the decision is
carried out (or after it leaves the queue), plus ``evict_s`` when the reaction evicted
healthy pods. Several faults hitting one gang before it is productive again are one
recovery.

Per affected gang: MTTR (fault to productive again; censored at the window's end when it
never recovers), how it recovered, pods moved and healthy pods evicted, the change of its
communication cost and finest-level span, and lost GPU-hours = its GPUs times (work redone
since the checkpoint + MTTR), the GPU-time of progress the fault cost it. Goodput over the
window = productive GPU-time / allocated GPU-time of all gangs.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from wlmap.placement.topology.capacity import FreeCapacity
from wlmap.placement.topology.faults._accounting import Job, Ledger, Record
from wlmap.placement.topology.faults.model import Fault
from wlmap.placement.topology.faults.reactions import Reaction
from wlmap.placement.topology.faults.reference import ExactReference
from wlmap.placement.topology.faults.spares import SparePool
from wlmap.placement.topology.faults.verify import accounting_problems, constraint_problems
from wlmap.placement.topology.gang import GangPlacement
from wlmap.placement.topology.jobmix import Job as Arrival
from wlmap.placement.topology.policy import GangPolicy, apply, release
from wlmap.placement.topology.tree import Topology

__all__ = ["RecoveryParams", "RecoveryRun", "simulate_recovery"]

_ARRIVE, _FINISH, _FAULT, _DETECT, _ACT, _REPAIR = range(6)
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


class _Loop:
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
        self.picks = _uniforms(self.seed, len(faults))
        shift = self.params.warmup_s
        for fault_id, fault in enumerate(faults):
            self.push(fault.at + shift, _FAULT, (fault_id, fault))
            self.push(fault.detected + shift, _DETECT, fault_id)
            self.push(fault.repaired + shift, _REPAIR, (fault_id, fault))

    def push_arrival(self) -> None:
        index = self.next_arrival
        if index < len(self.arrivals):
            arrival = self.arrivals[index]
            job = Job(index, arrival.arrival, arrival.gang, arrival.duration)
            self.push(arrival.arrival, _ARRIVE, job)
            self.next_arrival += 1

    def advance(self, until: float, done: Callable[[], bool] | None = None) -> None:
        """Handle every event before ``until``, or until ``done()`` says so."""
        while self.events and self.events[0][0] < until:
            now, _, kind, payload = heapq.heappop(self.events)
            self.handle(now, kind, payload)
            if done is not None and done():
                return

    def handle(self, now: float, kind: int, payload: object) -> None:
        """Handle one event."""
        if kind == _ARRIVE:
            assert isinstance(payload, Job)
            self.run.arrived += 1
            self.queue.append(payload)
            self.push_arrival()
            self.schedule(now)
        elif kind == _FINISH:
            job, version = cast(tuple[Job, int], payload)
            if version == job.version:
                self.ledger.progress(job, now)
                self.release_all(job, now)
                self.running.pop(job.index, None)
                self.schedule(now)
        elif kind == _FAULT:
            fault_id, fault = cast(tuple[int, Fault], payload)
            self.hit_by[fault_id] = self.on_fault(fault_id, fault, now, self.picks[fault_id])
        elif kind == _DETECT:
            assert isinstance(payload, int)
            for job in self.hit_by.get(payload, []):
                self.push(now + self.reaction.grace_s, _ACT, job)
        elif kind == _ACT:
            assert isinstance(payload, Job)
            self.act(payload, now)
        elif kind == _REPAIR:
            fault_id, fault = cast(tuple[int, Fault], payload)
            for node in fault.nodes:
                gone = self.removed.pop((fault_id, node), 0)
                if gone:
                    self.capacity.restore(node, gone)
                    if self.spares is not None:
                        self.spares.refill(self.capacity, [node])
            self.schedule(now)

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
        self.push(job.run_from + job.work_s - job.done_s, _FINISH, (job, job.version))
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

    def on_fault(self, fault_id: int, fault: Fault, now: float, rng_pick: float) -> list[Job]:
        """Take the fault's GPUs out of service; return the jobs that lost pods."""
        hit: list[Job] = []
        for node in fault.nodes:
            usable = int(self.capacity.usable[node])
            if usable == 0:
                continue
            on_node = [
                (job, pods)
                for job in self.running.values()
                if job.placement is not None
                for n, pods in job.placement.nodes
                if n == node
            ]
            if fault.gpus is None:
                losses = on_node
                gone = usable
            else:
                slot = min(int(rng_pick * usable), usable - 1)
                losses = []
                for job, pods in on_node:
                    width = pods * job.gang.gpus_per_pod
                    if slot < width:
                        losses = [(job, 1)]
                        break
                    slot -= width
                gone = 1
            for job, pods in losses:
                self.lose(job, node, pods, now)
                if job not in hit:
                    hit.append(job)
            if self.spares is not None:
                self.spares.drop(self.capacity, node)
            gone = min(gone, int(self.capacity.node_free[node]))
            self.capacity.remove(node, gone)
            self.removed[(fault_id, node)] = gone
            if self.spares is not None:
                self.spares.refill(self.capacity, [node])
        return hit

    def lose(self, job: Job, node: int, pods: int, now: float) -> None:
        """``pods`` pods of ``job`` on ``node`` are gone; its other pods stay, idle."""
        assert job.placement is not None
        self.ledger.hit(job, now, self.params.checkpoint_s)
        job.version += 1
        self.capacity.give(node, pods * job.gang.gpus_per_pod)
        kept = tuple(
            (n, p - pods if n == node else p)
            for n, p in job.placement.nodes
            if n != node or p > pods
        )
        self.ledger.hold(job, GangPlacement(job.gang, kept, job.placement.reason), now)
        job.lost.append((node, pods))

    def act(self, job: Job, now: float) -> None:
        """Carry out the reaction for a job that lost pods."""
        if job.placement is None or not job.lost or job.record is None:
            return
        lost = tuple(sorted(job.lost))
        job.lost = []
        waited = self.waiting.pop(job.index, None) is not None
        recovery = self.reaction.recover(
            self.capacity, job.placement, lost, self.recovering, self.spares
        )
        if self.exact is not None and not (waited and recovery.kind == "wait"):
            self.exact.compare(self.capacity, job.placement, recovery)
        if recovery.kind == "wait":
            job.lost = list(lost)
            self.waiting[job.index] = job
            return
        record = job.record
        record.evicted += recovery.evicted
        if recovery.kind == "swap" and recovery.placement is not None:
            for node, pods in recovery.freed:
                self.capacity.give(node, pods * job.gang.gpus_per_pod)
            for node, gpus in recovery.lend:
                assert self.spares is not None
                self.spares.lend(self.capacity, node, gpus)
            for node, pods in recovery.moves:
                self.capacity.take(node, pods * job.gang.gpus_per_pod)
            record.moved += sum(p for _, p in recovery.moves)
            record.kind = "swap" if record.kind in ("pending", "swap") else record.kind
            evict_s = self.params.evict_s if recovery.evicted else 0.0
            self.start(job, recovery.placement, now, self.resume_delay() + evict_s)
            return
        freed = self.release_all(job, now, refill=False)
        evict_s = self.params.evict_s if recovery.evicted else 0.0
        job.evict_until = now + evict_s
        if recovery.kind == "replace" and recovery.placement is not None:
            for node, gpus in recovery.lend:
                assert self.spares is not None
                self.spares.lend(self.capacity, node, gpus)
            apply(self.capacity, recovery.placement)
        if self.spares is not None:
            self.spares.refill(self.capacity, freed)
        if recovery.kind == "replace" and recovery.placement is not None:
            record.kind = "replace"
            self.start(job, recovery.placement, now, self.resume_delay() + evict_s)
            return
        record.kind = "requeue"
        self.requeue(job)
        self.schedule(now)


def simulate_recovery(
    topology: Topology,
    arrivals: list[Arrival],
    faults: list[Fault],
    policy: GangPolicy,
    reaction: Reaction,
    params: RecoveryParams,
    seed: int = 0,
    exact: ExactReference | None = None,
) -> RecoveryRun:
    """Run the window with ``faults`` (times relative to its start) and ``reaction``.

    With ``exact``, every decision of the reaction is recorded there next to the exact
    reference solved at the same moment.
    """
    loop = _Loop(topology, policy, reaction, params, seed)
    loop.exact = exact
    loop.load(arrivals, faults)
    loop.advance(params.warmup_s + params.horizon_s)
    return loop.finish()


def _uniforms(seed: int, count: int) -> list[float]:
    return [float(x) for x in np.random.default_rng([seed, 1]).random(count)]
