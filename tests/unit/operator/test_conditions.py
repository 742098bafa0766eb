"""The ``Degraded`` condition of a definition object: failing workloads, and a quarantine
that outranks them until it ends."""

from __future__ import annotations

from wlmap.errors import Problem
from wlmap.operator.core.conditions import definition_status, degraded_condition

WHY = "KeepsFailing: its last 5 evaluations failed"


def test_a_quarantined_definition_is_degraded_with_its_reason() -> None:
    failures = {"uid-1": "definition x: replicas exceeded 2 seconds", "uid-2": "quarantined"}
    condition = degraded_condition([], failures, WHY)
    assert (condition["status"], condition["reason"]) == ("True", "Quarantined")
    assert WHY in condition["message"] and "2 workload(s)" in condition["message"]


def test_the_quarantine_ending_leaves_the_failures_or_a_clean_record() -> None:
    quarantined = degraded_condition([], {"uid-1": "failed"}, WHY)
    failing = degraded_condition([quarantined], {"uid-1": "failed"})
    assert (failing["status"], failing["reason"]) == ("True", "EvaluationFailed")
    # still True: the transition time stays that of the quarantine
    assert failing["lastTransitionTime"] == quarantined["lastTransitionTime"]
    clean = degraded_condition([failing], {})
    assert (clean["status"], clean["reason"]) == ("False", "EvaluatedCleanly")


def test_the_definition_status_carries_the_quarantine() -> None:
    obj = {"metadata": {"generation": 3}, "status": {"conditions": []}}
    no_problems: list[Problem] = []
    status = definition_status(obj, no_problems, True, 3, {"uid-1": "skipped"}, WHY)
    (degraded,) = [c for c in status["conditions"] if c["type"] == "Degraded"]
    assert degraded["reason"] == "Quarantined"
    unchecked = definition_status(obj, no_problems, True, 3, None, WHY)
    assert all(c["type"] != "Degraded" for c in unchecked["conditions"])
