"""wlmap's multi-objective gang policy and the objective file it reads.

- :mod:`._objective` and :mod:`.loading`: the objective file (weights or tiers over
  communication cost, whole free domains, spare capacity, balance and priority), validated
  with every problem located;
- :mod:`.objective_policy`: the policy, :func:`make_wlmap_gang_policy`;
- :mod:`.explanation`: why each decision went where it went.
"""

from __future__ import annotations

from wlmap.placement.gangs.objective._objective import (
    TERMS,
    TIE_BREAKS,
    Objective,
    TermName,
    TermWeights,
    Tier,
)
from wlmap.placement.gangs.objective.explanation import Decision, Explanation, TermComparison
from wlmap.placement.gangs.objective.loading import (
    ObjectiveError,
    default_objective,
    load_objective,
    objective_from_mapping,
    parse_objective,
)
from wlmap.placement.gangs.objective.objective_policy import WlmapGangPolicy, make_wlmap_gang_policy

__all__ = [
    "TERMS",
    "TIE_BREAKS",
    "Decision",
    "Explanation",
    "Objective",
    "ObjectiveError",
    "TermComparison",
    "TermName",
    "TermWeights",
    "Tier",
    "WlmapGangPolicy",
    "default_objective",
    "load_objective",
    "make_wlmap_gang_policy",
    "objective_from_mapping",
    "parse_objective",
]
