"""Which pair weights the communication term uses: the objective's, else the scenario's."""

from __future__ import annotations

from tests.unit.placement.gangs.objective.test_policy_choices import COST_CASE, cluster
from wlmap.placement.gangs import (
    Gang,
    TierWeights,
    make_gang_policy,
    make_wlmap_gang_policy,
    parse_objective,
)

# A scenario that prices a pair 2 inside a rack and 20 inside a block.
SCENARIO = TierWeights(across=72.0, levels=(20.0, 2.0))
OWN_WEIGHTS = """
kind: GangObjective
tiers: [{term: communication}]
terms: {communication: {tierWeights: {across: 50, levels: [5, 3]}}}
"""


def costs(policy_weights: TierWeights | None, objective: str | None = None) -> tuple[float, ...]:
    capacity = cluster(COST_CASE)
    chosen = parse_objective(objective) if objective else None
    policy = make_wlmap_gang_policy(chosen, weights=policy_weights)
    decision = policy.decide(capacity, Gang("g", pods=4, gpus_per_pod=4))
    assert decision is not None
    term = decision.explanation.terms[0]
    assert term.term == "communication"
    assert term.runner_up is not None
    return term.chosen, term.runner_up


def test_the_scenario_weights_price_the_pairs_when_the_objective_sets_none() -> None:
    # Rack b1/r1: 6 pairs in one rack. Block b2: 2 pairs in a rack, 4 across its racks.
    assert costs(None) == (1.0, 7.0)  # the defaults: 1 in a rack, 10 in a block
    assert costs(SCENARIO) == (2.0, (2 * 2 + 4 * 20) / 6)


def test_an_objective_with_its_own_tier_weights_wins_over_the_scenario() -> None:
    assert costs(SCENARIO, OWN_WEIGHTS) == (3.0, (2 * 3 + 4 * 5) / 6)


def test_the_registry_hands_the_scenario_weights_to_wlmap() -> None:
    policy = make_gang_policy("wlmap", weights=SCENARIO)
    capacity = cluster(COST_CASE)
    decision = policy.decide(capacity, Gang("g", pods=4, gpus_per_pod=4))  # type: ignore[attr-defined]
    assert decision is not None
    assert decision.explanation.terms[0].chosen == 2.0
