"""The objective file: what loads, and the located problem each mistake gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from wlmap.cli._exits import INVALID_DEFINITION, code_for
from wlmap.errors import Problem
from wlmap.placement.gangs import ObjectiveError, default_objective, load_objective, parse_objective

EXAMPLE = Path(__file__).parents[5] / "docs" / "examples" / "gang-objective-weights.yaml"


def _problems(text: str) -> list[tuple[str, str]]:
    with pytest.raises(ObjectiveError) as caught:
        parse_objective(text, "mine.yaml")
    assert all(p.definition == "mine.yaml" for p in caught.value.problems)
    return [(p.path, p.message) for p in caught.value.problems]


def test_the_shipped_default_ranks_cost_then_whole_domains_then_the_tightest_node() -> None:
    objective = default_objective()
    assert objective.used_terms() == ("communication", "wholeFreeDomains")
    assert objective.tiers is not None
    assert objective.tiers[0].tolerance == 0.02
    assert objective.tie_breaks == ("tighterNode", "fewerSlotsLeft", "lowerIndex")


def test_the_documented_example_loads_as_weights() -> None:
    objective = load_objective(EXAMPLE)
    assert objective.weights is not None
    assert objective.used_terms() == ("communication", "wholeFreeDomains", "spareCapacity")
    assert objective.terms.spare_capacity.gpus == 4


def test_an_unknown_key_names_the_keys_it_expected() -> None:
    problems = _problems("kind: GangObjective\nweights: {communication: 1}\ntieBrake: []\n")
    assert problems == [
        ("tieBrake", "unknown key; expected one of kind, name, weights, tiers, terms, tieBreaks")
    ]


def test_an_unknown_term_under_weights_lists_the_terms() -> None:
    problems = _problems("kind: GangObjective\nweights: {communication: 1, latency: 2}\n")
    assert problems == [
        (
            "weights.latency",
            "unknown term; expected one of communication, wholeFreeDomains, spareCapacity, "
            "balance, priority",
        )
    ]


def test_an_unknown_term_in_a_tier_lists_the_terms() -> None:
    assert _problems("kind: GangObjective\ntiers:\n  - term: latency\n") == [
        (
            "tiers[0].term",
            'unknown term "latency"; expected one of communication, wholeFreeDomains, '
            "spareCapacity, balance, priority",
        )
    ]


def test_a_negative_weight_is_located_and_says_what_was_expected() -> None:
    [(path, message)] = _problems("kind: GangObjective\nweights: {communication: -1}\n")
    assert path == "weights.communication"
    assert message.startswith("Input should be greater than or equal to 0; got -1")


def test_weights_and_tiers_together_are_refused() -> None:
    text = "kind: GangObjective\nweights: {communication: 1}\ntiers: [{term: balance}]\n"
    assert _problems(text) == [("tiers", "set either weights or tiers, not both")]


def test_neither_weights_nor_tiers_is_refused() -> None:
    assert _problems("kind: GangObjective\n") == [
        ("weights", "required: weights (a weighted sum) or tiers (ranked)")
    ]


def test_a_term_ranked_twice_points_at_both_tiers() -> None:
    text = "kind: GangObjective\ntiers: [{term: balance}, {term: priority}, {term: balance}]\n"
    assert _problems(text) == [
        ("tiers[2].term", "term 'balance' is already ranked at tiers[0]; rank a term once")
    ]


def test_spare_capacity_takes_gpus_or_percent_not_both() -> None:
    text = (
        "kind: GangObjective\nweights: {spareCapacity: 1}\n"
        "terms: {spareCapacity: {gpus: 4, percent: 5}}\n"
    )
    assert _problems(text) == [("terms.spareCapacity", "set exactly one of gpus or percent")]


def test_all_weights_zero_is_refused() -> None:
    text = "kind: GangObjective\nweights: {communication: 0, balance: 0}\n"
    assert _problems(text) == [("weights", "at least one term needs a weight above 0")]


def test_pair_weights_growing_towards_finer_levels_are_refused() -> None:
    text = (
        "kind: GangObjective\nweights: {communication: 1}\n"
        "terms: {communication: {tierWeights: {across: 10, levels: [36, 1]}}}\n"
    )
    assert _problems(text) == [
        (
            "terms.communication.tierWeights.levels[0]",
            "a pair sharing a finer domain cannot cost more: expected <= 10 (across), got 36",
        )
    ]


def test_every_problem_is_reported_at_once() -> None:
    text = (
        "kind: Objective\nweights: {communication: -2, latency: 1}\ntiers: [{term: balance}]\n"
        "terms: {spareCapacity: {percent: 150}}\n"
    )
    paths = [path for path, _ in _problems(text)]
    assert paths == [
        "kind",
        "weights.communication",
        "weights.latency",
        "terms.spareCapacity.percent",
        "tiers",
    ]


def test_malformed_yaml_names_the_line() -> None:
    [(path, message)] = _problems("kind: GangObjective\nweights: [1,\n")
    assert path.startswith("line 3")
    assert message.startswith("malformed YAML")


def test_an_unreadable_file_is_an_objective_error(tmp_path: Path) -> None:
    with pytest.raises(ObjectiveError) as caught:
        load_objective(tmp_path / "absent.yaml")
    assert caught.value.problems[0].message.startswith("cannot read")


def test_the_cli_maps_an_objective_error_to_the_invalid_input_exit_code() -> None:
    error = ObjectiveError([Problem("mine.yaml", "weights", "at least one term")])
    assert code_for(error) == INVALID_DEFINITION
    assert str(error).startswith("1 problem(s) in gang objective:\n  - mine.yaml at weights")
