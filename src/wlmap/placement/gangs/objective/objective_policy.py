"""wlmap's multi-objective gang policy: candidates per domain, scored by an objective file.

One decision: count the pods of the gang every domain can take (from the per-domain
histograms, slices kept whole), list the feasible domains (``_candidates``), measure the
objective's terms for each (``_scoring``: the finest-level ones straight from the
histograms, the coarser ones on their packing), keep the best (``_choice``), pack it, and
explain it against the runner-up (``explanation``). All or nothing: no candidate, no
placement. A candidate never leaves its domain, and candidates only come from inside one
domain of the required level, so the required level holds by construction.
"""

from __future__ import annotations

from pathlib import Path

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement
from wlmap.placement.gangs.objective._candidates import ROOT, build, candidate_split
from wlmap.placement.gangs.objective._choice import Scored, beats
from wlmap.placement.gangs.objective._domains import DomainIndex, GangRoom, gang_room
from wlmap.placement.gangs.objective._objective import Objective
from wlmap.placement.gangs.objective._scoring import finest_table, scored
from wlmap.placement.gangs.objective._table import choose
from wlmap.placement.gangs.objective._terms import TermMeter, resolve
from wlmap.placement.gangs.objective.explanation import (
    Decision,
    Explanation,
    TermComparison,
    level_word,
)
from wlmap.placement.gangs.objective.loading import default_objective, load_objective
from wlmap.placement.gangs.quality import TierWeights
from wlmap.placement.gangs.tree import Topology

__all__ = ["WlmapGangPolicy", "make_wlmap_gang_policy"]


class WlmapGangPolicy:
    """Places a gang where the objective scores best; see the module docstring.

    Attributes:
        name: ``wlmap``.
        objective: the objective it follows.
        weights: the pair weights its communication term uses when the objective sets no
            ``tierWeights`` (None: ``quality.default_weights``).
    """

    name = "wlmap"

    def __init__(
        self,
        objective: Objective,
        origin: str = "<objective>",
        weights: TierWeights | None = None,
    ) -> None:
        self.objective = objective
        self.weights = weights
        self._origin = origin
        self._topology: Topology | None = None
        self._index: DomainIndex | None = None
        self._meter: TermMeter | None = None

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        """Where each pod of ``gang`` goes, or None when it does not fit whole."""
        decision = self.decide(capacity, gang)
        return decision.placement if decision else None

    def decide(self, capacity: FreeCapacity, gang: Gang) -> Decision | None:
        """The placement and its explanation, or None when the gang does not fit whole.

        Raises:
            ValueError: the gang's request is malformed for the topology.
            ObjectiveError: the objective names a level the topology lacks.
        """
        index, meter = self._prepare(capacity.topology)
        problem = gang.problem(capacity.topology)
        if problem:
            raise ValueError(f"gang {gang.name}: {problem}")
        room = gang_room(index, capacity, gang)
        fine, coarser = candidate_split(index, room, gang)
        if not len(fine) and not coarser:
            return None
        table = finest_table(self.objective, meter, index, room, gang, fine)
        packed = [
            scored(self.objective, meter, capacity, gang, build(index, room, lv, d, gang.pods))
            for lv, d in coarser
        ]
        best = choose(self.objective, table, packed)
        assert best is not None
        chosen = self._packed(meter, index, room, gang, best)
        runner = choose(self.objective, table, packed, skip=(chosen.level, chosen.domain))
        count = len(fine) + len(coarser)
        explanation = self._explain(meter, capacity, chosen, runner, count)
        assert chosen.candidate is not None
        placement = GangPlacement(gang, chosen.candidate.nodes, explanation.text())
        return Decision(placement, explanation)

    def _prepare(self, topology: Topology) -> tuple[DomainIndex, TermMeter]:
        if self._topology is not topology or self._index is None or self._meter is None:
            self._meter = resolve(self.objective, topology, self._origin, self.weights)
            self._index = DomainIndex.build(topology)
            self._topology = topology
        return self._index, self._meter

    def _packed(
        self, meter: TermMeter, index: DomainIndex, room: GangRoom, gang: Gang, best: Scored
    ) -> Scored:
        """``best`` with its packing (scored again on it, which gives the same values)."""
        if best.candidate is not None:
            return best
        candidate = build(index, room, best.level, best.domain, gang.pods)
        return scored(self.objective, meter, room.capacity, gang, candidate)

    def _explain(
        self,
        meter: TermMeter,
        capacity: FreeCapacity,
        chosen: Scored,
        runner: Scored | None,
        count: int,
    ) -> Explanation:
        topology = meter.topology
        level = meter.whole_level
        assert chosen.candidate is not None
        touched = {int(topology.node_domain[level][n]) for n, _ in chosen.candidate.nodes}
        broken = sum(
            1 for d in touched if capacity.domain_free[level][d] == capacity.capacity(level)[d]
        )
        terms = tuple(
            TermComparison(t, v, None if runner is None else runner.raw[t])
            for t, v in chosen.raw.items()
        )
        score = None
        if self.objective.weights is not None:
            score = (chosen.score, None if runner is None else runner.score)
        return Explanation(
            chosen=_name(topology, chosen),
            runner_up=None if runner is None else _name(topology, runner),
            decided_by="only candidate"
            if runner is None
            else beats(self.objective, chosen, runner),
            terms=terms,
            score=score,
            whole_level=level_word(topology.levels[level]),
            whole_free_left=capacity.whole_free(level) - broken,
            candidates=count,
        )


def make_wlmap_gang_policy(
    objective: Objective | str | Path | None = None, weights: TierWeights | None = None
) -> WlmapGangPolicy:
    """wlmap's gang policy for an objective, an objective file's path, or the default objective.

    ``weights`` are the pair weights a scenario measures communication cost with; the policy
    optimises them unless the objective sets its own ``terms.communication.tierWeights``,
    which win (an operator's file says what to optimise).

    Raises:
        ObjectiveError: the file cannot be read or is invalid.
    """
    if objective is None:
        return WlmapGangPolicy(default_objective(), "default.yaml", weights)
    if isinstance(objective, Objective):
        return WlmapGangPolicy(objective, weights=weights)
    return WlmapGangPolicy(load_objective(objective), str(objective), weights)


def _name(topology: Topology, candidate: Scored) -> str:
    if candidate.level == ROOT:
        return "cluster"
    word = level_word(topology.levels[candidate.level])
    return f"{word} {topology.domain_name(candidate.level, candidate.domain)}"
