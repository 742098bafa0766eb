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

from typing import cast

from wlmap.placement.gangs.faults._accounting import Job
from wlmap.placement.gangs.faults._event_loop import (
    ACT,
    ARRIVE,
    DETECT,
    FAULT,
    FINISH,
    REPAIR,
    EventLoop,
    RecoveryParams,
    RecoveryRun,
)
from wlmap.placement.gangs.faults.fault_draws import Fault
from wlmap.placement.gangs.faults.reactions import Reaction
from wlmap.placement.gangs.faults.reference import ExactReference
from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.gang_policy import GangPolicy, apply
from wlmap.placement.gangs.jobmix import Job as Arrival
from wlmap.placement.gangs.tree import Topology

__all__ = ["RecoveryLoop", "RecoveryParams", "RecoveryRun", "simulate_recovery"]


class RecoveryLoop(EventLoop):
    """The event loop with faults: what a fault takes, and each reaction carried out."""

    def handle(self, now: float, kind: int, payload: object) -> None:
        """Handle one event."""
        if kind == ARRIVE:
            assert isinstance(payload, Job)
            self.run.arrived += 1
            self.queue.append(payload)
            self.push_arrival()
            self.schedule(now)
        elif kind == FINISH:
            job, version = cast(tuple[Job, int], payload)
            if version == job.version:
                self.ledger.progress(job, now)
                self.release_all(job, now)
                self.running.pop(job.index, None)
                self.schedule(now)
        elif kind == FAULT:
            fault_id, fault = cast(tuple[int, Fault], payload)
            self.hit_by[fault_id] = self.on_fault(fault_id, fault, now, self.picks[fault_id])
        elif kind == DETECT:
            assert isinstance(payload, int)
            for job in self.hit_by.get(payload, []):
                self.push(now + self.reaction.grace_s, ACT, job)
        elif kind == ACT:
            assert isinstance(payload, Job)
            self.act(payload, now)
        elif kind == REPAIR:
            fault_id, fault = cast(tuple[int, Fault], payload)
            for node in fault.nodes:
                gone = self.removed.pop((fault_id, node), 0)
                if gone:
                    self.capacity.restore(node, gone)
                    if self.spares is not None:
                        self.spares.refill(self.capacity, [node])
            self.schedule(now)

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
    loop = RecoveryLoop(topology, policy, reaction, params, seed)
    loop.exact = exact
    loop.load(arrivals, faults)
    loop.advance(params.warmup_s + params.horizon_s)
    return loop.finish()
