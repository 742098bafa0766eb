"""Degraded from members the status reports as failed while the workload runs on."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import CONDITIONS, POD_TEMPLATE, crd, obj, template

_SPEC: dict[str, Any] = {"type": "object", "properties": {"template": POD_TEMPLATE}}
_STATE: dict[str, Any] = {"type": "string", "enum": ["Pending", "Running", "Failed"]}


def _phases(draft_definition: dict[str, Any], status: dict[str, Any]) -> list[str]:
    definition = definition_from_mapping(draft_definition, "draft")
    phases: list[str] = interpret(definition, obj({"template": template()}, status)).to_dict()[
        "phases"
    ]
    return phases


def test_a_member_in_a_failed_state_is_degraded_until_the_workload_ends() -> None:
    member_states = {
        "type": "object",
        "description": "The state of each worker by its pod's name.",
        "additionalProperties": {"type": "string", "description": "The state of a worker."},
    }
    status = {"type": "object", "properties": {"state": _STATE, "workerState": member_states}}
    draft = infer(crd(_SPEC, status))
    lost = {"state": "Running", "workerState": {"w-1": "FAILED", "w-2": "RUNNING"}}
    assert _phases(draft.definition, lost) == ["Running", "Degraded"]
    healthy = {"state": "Running", "workerState": {"w-1": "RUNNING", "w-2": "RUNNING"}}
    assert _phases(draft.definition, healthy) == ["Running"]
    # Once the workload has failed, a failed member is part of that outcome.
    assert _phases(draft.definition, {**lost, "state": "Failed"}) == ["Failed"]
    assert "degraded" in {e.subject for e in draft.review}


def test_timestamps_and_free_form_maps_are_no_member_states() -> None:
    status = {
        "type": "object",
        "properties": {
            "state": _STATE,
            # Keyed by state, valued by time: a string with a format is not a state.
            "stateTransitionTimes": {
                "type": "object",
                "additionalProperties": {"type": "string", "format": "date-time"},
            },
            # Only the map's own description speaks of state: free-form notes.
            "notes": {
                "type": "object",
                "description": "Additional state conveyed to the user.",
                "additionalProperties": {"type": "string"},
            },
        },
    }
    draft = infer(crd(_SPEC, status))
    noted = {"state": "Running", "notes": {"last": "failed"}}
    assert _phases(draft.definition, noted) == ["Running"]
    assert "degraded" not in {e.subject for e in draft.evidence}


def test_replica_failure_beside_a_plain_state_is_degraded() -> None:
    # Condition types nobody lists give way to the state field, all but ReplicaFailure.
    status = {
        "type": "object",
        "properties": {"state": {"type": "string"}, "conditions": CONDITIONS},
    }
    draft = infer(crd(_SPEC, status))
    refused = [{"type": "ReplicaFailure", "status": "True"}]
    assert _phases(draft.definition, {"state": "ready", "conditions": refused}) == [
        "Running",
        "Degraded",
    ]
    assert _phases(draft.definition, {"state": "ready"}) == ["Running"]
    assert _phases(draft.definition, {"state": "failed", "conditions": refused}) == ["Failed"]


def test_a_listed_replica_failure_is_degraded_not_failed() -> None:
    types = {"type": "string", "enum": ["Available", "ReplicaFailure"]}
    conditions = {
        "type": "array",
        "items": {"type": "object", "properties": {"type": types, "status": {"type": "string"}}},
    }
    draft = infer(crd(_SPEC, {"type": "object", "properties": {"conditions": conditions}}))
    said = {e.subject: e.choice for e in draft.evidence}
    assert said["condition ReplicaFailure"] == "Degraded"
    both = [{"type": "Available", "status": "True"}, {"type": "ReplicaFailure", "status": "True"}]
    assert _phases(draft.definition, {"conditions": both}) == ["Degraded"]
