"""Each fault reaction's decision next to the exact reference solved at the same moment.

When a reaction decides for a gang that lost pods, :class:`ExactReference` solves the same
question with :func:`~wlmap.placement.gangs.exact.optimal_recovery` (CP-SAT): with the
capacity the reaction saw, the placement that moves the fewest pods and, among those, has
the least communication cost, under the gang's required level and slices. A
:class:`Decision` keeps both answers; :func:`summarise` turns a list of them into the
figures the fault benchmark prints.

Pods moved: a swap moves the lost pods and any healthy pods it took along; a whole
re-placement moves every pod (the healthy ones are evicted and recreated); a requeue or a
wait places nothing at that moment. A gang that waits is compared once, at its first
decision, and again when it is finally placed.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.exact import DEFAULT_TIME_LIMIT, optimal_recovery
from wlmap.placement.gangs.faults.reactions import Recovery, RecoveryKind
from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.quality import TierWeights, measure

__all__ = ["Decision", "ExactReference", "summarise"]


@dataclass(frozen=True, slots=True)
class Decision:
    """One reaction's answer for one gang, and the reference's.

    Attributes:
        gang: the gang's name.
        pods: its pods.
        kind: what the reaction did (``swap``, ``replace``, ``requeue``, ``wait``).
        moved: pods the reaction moved; None when it placed nothing at that moment.
        cost: communication cost of the reaction's placement; None likewise.
        best_moved: the fewest pods any valid recovery moves; None when none exists.
        best_cost: the least cost among recoveries moving ``best_moved`` pods.
        proven: CP-SAT proved the reference optimal (or infeasible); False when it ran
            out of time, with or without an answer (then ``best_moved`` is None).
        seconds: time the reference took.
    """

    gang: str
    pods: int
    kind: RecoveryKind
    moved: int | None
    cost: float | None
    best_moved: int | None
    best_cost: float | None
    proven: bool
    seconds: float


@dataclass
class ExactReference:
    """Solves the reference at every decision it is shown and keeps both answers.

    The time limit is 20 s of wall time per decision by default: on a loaded machine the
    placement reference's 5 s did not always suffice for a 128-pod gang.
    """

    weights: TierWeights
    time_limit: float = 4 * DEFAULT_TIME_LIMIT
    decisions: list[Decision] = field(default_factory=list)

    def compare(self, capacity: FreeCapacity, survivors: GangPlacement, recovery: Recovery) -> None:
        """Record ``recovery`` (the reaction's answer) next to the reference's."""
        try:
            best = optimal_recovery(capacity, survivors, self.weights, time_limit=self.time_limit)
            solved = True
        except RuntimeError:  # no answer within the time limit: counted as unproven
            best, solved = None, False
        gang = survivors.gang
        moved: int | None = None
        cost: float | None = None
        if recovery.placement is not None:
            cost = measure(recovery.placement, capacity.topology, self.weights).cost
            moved = sum(p for _, p in recovery.moves) if recovery.kind == "swap" else gang.pods
        self.decisions.append(
            Decision(
                gang.name,
                gang.pods,
                recovery.kind,
                moved,
                cost,
                None if best is None else best.moved,
                None if best is None else best.cost,
                solved and (best is None or best.proven),
                0.0 if best is None else best.seconds,
            )
        )


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def summarise(decisions: list[Decision]) -> dict[str, float]:
    """Figures over ``decisions``: how often the reaction placed the gang at once, moved the
    fewest pods, and its cost against the reference's when both moved as few pods.

    ``cost_ratio_*`` are over decisions with the fewest pods moved and a reference cost
    above 0; ``moved_ratio_mean`` is pods moved over the fewest possible, over decisions
    that placed the gang.
    """
    placed = [d for d in decisions if d.moved is not None and d.best_moved]
    fewest = [d for d in placed if d.moved == d.best_moved]
    ratios = [
        (d.cost or 0.0) / d.best_cost for d in fewest if d.best_cost is not None and d.best_cost > 0
    ]
    extra = [
        (d.cost or 0.0) - d.best_cost
        for d in fewest
        if d.best_cost is not None and d.best_cost == 0
    ]
    moved = [(d.moved or 0) / (d.best_moved or 1) for d in placed]
    feasible = [d for d in decisions if d.best_moved is not None]
    return {
        "decisions": float(len(decisions)),
        "feasible": float(len(feasible)),
        "placed": float(len(placed)),
        "fewest_share": len(fewest) / len(placed) if placed else 0.0,
        "moved_ratio_mean": statistics.fmean(moved) if moved else 0.0,
        "cost_ratio_mean": statistics.fmean(ratios) if ratios else 0.0,
        "cost_ratio_p95": _pct(ratios, 0.95),
        "cost_ratio_max": max(ratios, default=0.0),
        "optimal_share": sum(r <= 1.0 + 1e-9 for r in ratios) / len(ratios) if ratios else 0.0,
        "zero_cost_missed": float(sum(e > 1e-9 for e in extra)),
        "unproven": float(sum(not d.proven for d in decisions)),
        "seconds_mean": statistics.fmean(d.seconds for d in decisions) if decisions else 0.0,
    }
