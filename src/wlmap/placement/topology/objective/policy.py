"""wlmap's multi-objective gang policy: candidates per domain, scored by an objective file.

One decision: count the pods of the gang every domain can take (from the per-domain
histograms, slices kept whole), build the best packing inside every feasible domain
(``_candidates``), measure the objective's terms on each (``_terms``), keep the best
(``_choice``) and explain it against the runner-up (``explanation``). All or nothing: no
candidate, no placement. A candidate never leaves its domain, and candidates only come from
inside one domain of the required level, so the required level holds by construction.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wlmap.placement.topology.capacity import FreeCapacity
from wlmap.placement.topology.gang import Gang, GangPlacement
from wlmap.placement.topology.objective._candidates import ROOT, Candidate, candidates
from wlmap.placement.topology.objective._choice import Scored, beats, select, tie_breaks
from wlmap.placement.topology.objective._domains import DomainIndex, gang_room
from wlmap.placement.topology.objective._model import Objective, TermName
from wlmap.placement.topology.objective._terms import TermMeter, resolve
from wlmap.placement.topology.objective.explanation import (
    Decision,
    Explanation,
    TermComparison,
    level_word,
)
from wlmap.placement.topology.objective.loading import default_objective, load_objective
from wlmap.placement.topology.tree import Topology

__all__ = ["WlmapGangPolicy", "make_wlmap_gang_policy"]


class WlmapGangPolicy:
    """Places a gang where the objective scores best; see the module docstring.

    Attributes:
        name: ``wlmap``.
        objective: the objective it follows.
    """

    name = "wlmap"

    def __init__(self, objective: Objective, origin: str = "<objective>") -> None:
        self.objective = objective
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
        found = candidates(index, gang_room(index, capacity, gang), gang)
        if not found:
            return None
        scored = [self._score(meter, capacity, gang, c) for c in found]
        best = select(self.objective, scored)
        chosen = scored[best]
        others = [s for s in scored if _domain(s) != _domain(chosen)]
        runner = others[select(self.objective, others)] if others else None
        explanation = self._explain(meter, capacity, gang, chosen, runner, len(scored))
        placement = GangPlacement(gang, chosen.candidate.nodes, explanation.text())
        return Decision(placement, explanation)

    def _prepare(self, topology: Topology) -> tuple[DomainIndex, TermMeter]:
        if self._topology is not topology or self._index is None or self._meter is None:
            self._meter = resolve(self.objective, topology, self._origin)
            self._index = DomainIndex.build(topology)
            self._topology = topology
        return self._index, self._meter

    def _score(
        self, meter: TermMeter, capacity: FreeCapacity, gang: Gang, candidate: Candidate
    ) -> Scored:
        nodes = np.fromiter((n for n, _ in candidate.nodes), dtype=np.int64)
        pods = np.fromiter((p for _, p in candidate.nodes), dtype=np.int64)
        terms = self.objective.used_terms()
        cost = meter.cost(gang, candidate.nodes) if terms else 0.0
        raw = {t: meter.raw(t, capacity, gang, nodes, pods, cost) for t in terms}
        parts: dict[TermName, float] = {}
        if self.objective.weights is not None:
            weights = self.objective.weights
            parts = {
                t: weights.of(t) * meter.normalised(t, v, gang, capacity) for t, v in raw.items()
            }
        return Scored(
            candidate,
            raw,
            parts,
            sum(parts.values()),
            self._ties(meter, capacity, gang, candidate, nodes),
        )

    def _ties(
        self,
        meter: TermMeter,
        capacity: FreeCapacity,
        gang: Gang,
        candidate: Candidate,
        nodes: np.ndarray,
    ) -> tuple[object, ...]:
        topology = meter.topology
        finest = np.unique(topology.node_domain[len(topology.levels) - 1][nodes])
        keys: list[object] = []
        for rule in tie_breaks(self.objective):
            if rule == "tighterFit":
                free = (
                    int(capacity.node_free.sum())
                    if candidate.level == ROOT
                    else int(capacity.domain_free[candidate.level][candidate.domain])
                )
                keys.append(free - gang.gpus)
            elif rule == "fewerNodes":
                keys.append(len(candidate.nodes))
            elif rule == "fewerDomains":
                keys.append(len(finest))
            else:
                keys.append((tuple(finest.tolist()), tuple(n for n, _ in candidate.nodes)))
        return tuple(keys)

    def _explain(
        self,
        meter: TermMeter,
        capacity: FreeCapacity,
        gang: Gang,
        chosen: Scored,
        runner: Scored | None,
        count: int,
    ) -> Explanation:
        topology = meter.topology
        whole_word = level_word(topology.levels[meter.whole_level])
        broken = chosen.raw.get("wholeFreeDomains")
        if broken is None:
            nodes = np.fromiter((n for n, _ in chosen.candidate.nodes), dtype=np.int64)
            broken = meter.raw("wholeFreeDomains", capacity, gang, nodes, nodes, 0.0)
        left = capacity.whole_free(meter.whole_level) - round(broken)
        terms = tuple(
            TermComparison(t, v, None if runner is None else runner.raw[t])
            for t, v in chosen.raw.items()
        )
        score = None
        if self.objective.weights is not None:
            score = (chosen.score, None if runner is None else runner.score)
        return Explanation(
            chosen=_name(topology, chosen.candidate),
            runner_up=None if runner is None else _name(topology, runner.candidate),
            decided_by="only candidate"
            if runner is None
            else beats(self.objective, chosen, runner),
            terms=terms,
            score=score,
            whole_level=whole_word,
            whole_free_left=left,
            candidates=count,
        )


def make_wlmap_gang_policy(objective: Objective | str | Path | None = None) -> WlmapGangPolicy:
    """wlmap's gang policy for an objective, an objective file's path, or the default objective.

    Raises:
        ObjectiveError: the file cannot be read or is invalid.
    """
    if objective is None:
        return WlmapGangPolicy(default_objective(), "default.yaml")
    if isinstance(objective, Objective):
        return WlmapGangPolicy(objective)
    return WlmapGangPolicy(load_objective(objective), str(objective))


def _domain(scored: Scored) -> tuple[int, int]:
    return scored.candidate.level, scored.candidate.domain


def _name(topology: Topology, candidate: Candidate) -> str:
    if candidate.level == ROOT:
        return "cluster"
    word = level_word(topology.levels[candidate.level])
    return f"{word} {topology.domain_name(candidate.level, candidate.domain)}"
