"""Reactions compared on the very same fault: the same gangs hit, at the same moment.

In :func:`simulate_recovery` each reaction runs its own day, so after the first fault the
reactions face different clusters and different gangs get hit. Here one reference run
carries the cluster from fault to fault; at each fault the loop is copied once per
reaction, the copy sees only that fault (later faults are dropped from it) and runs until
every gang the fault hit is productive again or the window ends. The gangs hit, the work
they must redo and the state they are recovered in are identical for every reaction, and
arrivals keep the reference's placement in every copy, so their MTTR and lost GPU-hours
differ only by what the reaction did (with its own scheduler's placement for the gangs it
recovers).

Reactions with a spare pool need a cluster that held spares all along, which a reference
run without spares cannot give; they are left out.
"""

from __future__ import annotations

import copy

from wlmap.placement.gangs.faults._accounting import Record
from wlmap.placement.gangs.faults._event_loop import DETECT, FAULT
from wlmap.placement.gangs.faults.fault_draws import Fault
from wlmap.placement.gangs.faults.reactions import Reaction
from wlmap.placement.gangs.faults.recovery_loop import RecoveryLoop, RecoveryParams
from wlmap.placement.gangs.faults.reference import Decision, ExactReference
from wlmap.placement.gangs.faults.verify import accounting_problems
from wlmap.placement.gangs.gang_policy import GangPolicy
from wlmap.placement.gangs.jobmix import Job as Arrival
from wlmap.placement.gangs.quality import TierWeights
from wlmap.placement.gangs.tree import Topology

__all__ = ["paired_recoveries"]


def _only(loop: RecoveryLoop, fault_id: int) -> None:
    """Drop the fault and detection events of every other fault from ``loop``."""
    loop.events = [
        e
        for e in loop.events
        if not (e[2] == FAULT and e[3][0] != fault_id)  # type: ignore[index]  # (id, Fault)
        and not (e[2] == DETECT and e[3] != fault_id)
    ]
    loop.events.sort()


def paired_recoveries(
    topology: Topology,
    arrivals: list[Arrival],
    faults: list[Fault],
    policy: GangPolicy,
    reference: Reaction,
    reactions: list[Reaction],
    params: RecoveryParams,
    seed: int = 0,
    policies: dict[str, GangPolicy] | None = None,
    problems: dict[str, list[str]] | None = None,
    exact: tuple[TierWeights, dict[str, list[Decision]]] | None = None,
) -> dict[str, list[Record]]:
    """Per reaction, the records of every fault, each fault met from the reference's state.

    ``policy`` places arriving gangs, in the reference run and in every copy; a reaction's
    copy re-places the gangs the fault hit with ``policies[reaction.name]`` when given
    (its scheduler's own placement), else with ``policy`` too.

    Raises:
        ValueError: a reaction (or the reference) holds spares.
    """
    for reaction in (reference, *reactions):
        if reaction.spare_percent:
            raise ValueError(f"{reaction.name} holds spares; paired runs cannot compare it")
    loop = RecoveryLoop(topology, policy, reference, params, seed)
    loop.load(arrivals, faults)
    end = params.warmup_s + params.horizon_s
    shared: dict[int, object] = {id(topology): topology, id(policy): policy, id(arrivals): arrivals}
    own = policies or {}
    for mine in own.values():
        shared[id(mine)] = mine
    found: dict[str, list[Record]] = {r.name: [] for r in reactions}
    for fault_id, fault in enumerate(faults):
        at = fault.at + params.warmup_s
        loop.advance(at)
        for reaction in reactions:
            shared[id(reaction)] = reaction
            fork = copy.deepcopy(loop, dict(shared))
            fork.reaction = reaction
            fork.recovering = own.get(reaction.name, policy)
            _only(fork, fault_id)
            fork.ledger.records = []
            if exact is not None:
                fork.exact = ExactReference(exact[0])

            def done(fork: RecoveryLoop = fork, fault_id: int = fault_id) -> bool:
                hit = fork.hit_by.get(fault_id)
                if hit is None:
                    return False
                return all(r.mttr_s is not None for r in fork.ledger.records)

            fork.advance(end, done)
            found[reaction.name].extend(fork.ledger.records)
            if exact is not None and fork.exact is not None:
                exact[1].setdefault(reaction.name, []).extend(fork.exact.decisions)
            if problems is not None:
                problems.setdefault(reaction.name, []).extend(_checked(fork))
    return found


def _checked(loop: RecoveryLoop) -> list[str]:
    """The copy's check failures: constraints at each start, then every node's GPUs."""
    held = loop.spares.held if loop.spares is not None else {}
    placed = [j.placement for j in loop.running.values() if j.placement is not None]
    return [*loop.run.violations, *accounting_problems(loop.capacity, placed, held)]
