"""Picking the best candidate under an objective, deterministically.

Weighted objectives compare the weighted sum of normalised terms. Tiered objectives filter:
each tier keeps the candidates within ``best * (1 + tolerance)`` of the best value of its
term (rounded to 1e-9, so float noise never splits a tie), and the next tier chooses among
those. What is still tied goes through the tie-breaks in the objective's order:

- ``fewerSlotsLeft``: fewer pods of the gang's size left in the candidate's domain after
  it (Kueue's BestFit ranks domains by ``state``, "the number of pods which can fit in a
  given domain", pkg/cache/tas_flavor_snapshot.go; Slurm's topology/block takes the
  block with the fewest free slots). It keeps the domains with room for large pods for
  the gangs that need them;
- ``tighterFit``: fewer free GPUs left in the candidate's domain (KAI picks the fullest
  domain that still fits, docs/topology/README.md, to keep emptier domains whole);
- ``tighterNode``: fewer free GPUs left on the node a pod of the gang would fill in the
  candidate's domain (the tightest node that holds one pod), so small pods fill partly used
  nodes anywhere before they break a whole one (Slurm's and kube-scheduler's
  MostAllocated best fit on nodes, taken across domains; a domain's histogram gives it);
- ``tighterParent``: fewer free GPUs left in the domain one level above the candidate's
  (the whole cluster above the top level): of two racks that tie, the one in the fuller
  block, so small gangs fill the blocks already in use and the emptiest blocks keep room
  for a gang that needs most of one (a best fit one level up; Slurm's topology/block gets
  a similar effect from its fixed block order). It ties on a one-level topology;
- ``fewerNodes`` / ``fewerDomains``: fewer nodes / finest domains used;
- ``lowerIndex``: lower finest-domain indices, then lower node indices. It always closes the
  list, so the choice never depends on the order candidates were built in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.placement.gangs.objective._candidates import Candidate
from wlmap.placement.gangs.objective._objective import Objective, TermName, TieBreak

__all__ = ["Scored", "beats", "keep_within", "select", "tie_breaks", "within"]

_DIGITS = 9


@dataclass(frozen=True, slots=True)
class Scored:
    """A candidate with its term values and tie-break keys.

    Attributes:
        level: the candidate's level (``ROOT`` for the whole cluster).
        domain: the candidate's domain at that level.
        candidate: the placement; None until packed (finest candidates scored from the
            histograms are packed only when chosen or runner-up).
        raw: each used term's value.
        parts: each used term's weighted, normalised value (weighted objectives; else empty).
        score: the sum of ``parts``.
        ties: one key per tie-break, in the objective's order.
    """

    level: int
    domain: int
    candidate: Candidate | None
    raw: dict[TermName, float]
    parts: dict[TermName, float]
    score: float
    ties: tuple[Any, ...]


def tie_breaks(objective: Objective) -> tuple[TieBreak, ...]:
    """The objective's tie-breaks, closed by ``lowerIndex``."""
    rules = tuple(dict.fromkeys(objective.tie_breaks))
    return rules if "lowerIndex" in rules else (*rules, "lowerIndex")


def select(objective: Objective, scored: Sequence[Scored]) -> int:
    """Position in ``scored`` of the best candidate (``scored`` is not empty)."""
    positions = list(range(len(scored)))
    if objective.tiers is None:
        return min(positions, key=lambda i: (round(scored[i].score, _DIGITS), scored[i].ties))
    for tier in objective.tiers:
        positions = within(positions, scored, tier.term, tier.tolerance)
    return min(positions, key=lambda i: scored[i].ties)


def within(
    positions: list[int], scored: Sequence[Scored], term: TermName, tolerance: float
) -> list[int]:
    """The positions whose ``term`` is within ``tolerance`` (relative) of the best."""
    kept = keep_within([scored[i].raw[term] for i in positions], tolerance)
    return [positions[k] for k in kept]


def keep_within(values: Sequence[float], tolerance: float) -> list[int]:
    """Indices of ``values`` within ``tolerance`` (relative) of the least one."""
    best = min(values)
    bound = round(best + tolerance * abs(best), _DIGITS)
    return [i for i, v in enumerate(values) if round(v, _DIGITS) <= bound]


def beats(objective: Objective, chosen: Scored, other: Scored) -> TermName | TieBreak:
    """The term (or tie-break) on which ``chosen`` wins over ``other``."""
    if objective.tiers is None:
        worst = max(
            objective.used_terms(),
            key=lambda t: other.parts[t] - chosen.parts[t],
            default=None,
        )
        if worst is not None and round(other.score, _DIGITS) > round(chosen.score, _DIGITS):
            return worst
    else:
        pair = [chosen, other]
        for tier in objective.tiers:
            if within([0, 1], pair, tier.term, tier.tolerance) == [0]:
                return tier.term
    rules = tie_breaks(objective)
    for rule, mine, theirs in zip(rules, chosen.ties, other.ties, strict=True):
        if mine != theirs:
            return rule
    return rules[-1]
