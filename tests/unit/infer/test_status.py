"""Which status signal a draft reads, and the states a user sees from it."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import Draft, infer
from wlmap.workload import interpret

from ._crds import CONDITIONS, POD_TEMPLATE, crd, obj, template

_SPEC: dict[str, Any] = {"type": "object", "properties": {"template": POD_TEMPLATE}}
_SUSPENDABLE: dict[str, Any] = {
    "type": "object",
    "properties": {"suspend": {"type": "boolean"}, "template": POD_TEMPLATE},
}
_STRING: dict[str, Any] = {"type": "string"}


def _phases(draft: Draft, spec: dict[str, Any], status: dict[str, Any]) -> list[str]:
    definition = definition_from_mapping(draft.definition, "draft")
    phases: list[str] = interpret(definition, obj(spec, status)).to_dict()["phases"]
    return phases


def test_a_copied_child_status_gives_way_to_the_own_phase() -> None:
    # The conditions sit in a child's status copied under .status; the phase is the object's.
    status = {
        "type": "object",
        "properties": {
            "deploymentStatus": _STRING,
            "clusterStatus": {"type": "object", "properties": {"conditions": CONDITIONS}},
        },
    }
    draft = infer(crd(_SPEC, status))
    status_definition = draft.definition["spec"]["structureDefinition"]["rootComponent"][
        "statusDefinition"
    ]
    assert status_definition["phaseDefinition"] == {"path": ".status.deploymentStatus"}
    seen = _phases(
        draft,
        {"template": template()},
        {"deploymentStatus": "Running", "clusterStatus": {"conditions": []}},
    )
    assert seen == ["Running"]


def test_unlisted_condition_types_give_way_to_a_state_field() -> None:
    status = {"type": "object", "properties": {"state": _STRING, "conditions": CONDITIONS}}
    draft = infer(crd(_SPEC, status))
    seen = _phases(
        draft,
        {"template": template()},
        {"state": "ready", "conditions": [{"type": "HeadPodReady", "status": "True"}]},
    )
    assert seen == ["Running"]


def test_listed_condition_types_keep_the_conditions() -> None:
    status = {"type": "object", "properties": {"state": _STRING, "conditions": CONDITIONS}}
    sample = obj({"template": template()}, {"conditions": [{"type": "Running", "status": "True"}]})
    draft = infer(crd(_SPEC, status), samples=[sample])
    seen = _phases(
        draft,
        {"template": template()},
        {"state": "failed", "conditions": [{"type": "Running", "status": "True"}]},
    )
    assert seen == ["Running"]


def test_deployment_condition_types_are_offered() -> None:
    status = {"type": "object", "properties": {"conditions": CONDITIONS}}
    draft = infer(crd(_SPEC, status))
    available = [{"type": "Available", "status": "True"}]
    progressing = [
        {"type": "Available", "status": "False"},
        {"type": "Progressing", "status": "True"},
    ]
    assert _phases(draft, {"template": template()}, {"conditions": available}) == ["Running"]
    assert _phases(draft, {"template": template()}, {"conditions": progressing}) == ["Initializing"]


def test_a_phase_beside_a_suspend_field_shows_the_request() -> None:
    status = {"type": "object", "properties": {"phase": _STRING}}
    draft = infer(crd(_SUSPENDABLE, status))
    running = {"phase": "Running"}
    paused = {"phase": "Suspended"}
    asked = {"suspend": True, "template": template()}
    released = {"suspend": False, "template": template()}
    assert _phases(draft, asked, running) == ["Suspending"]
    assert _phases(draft, asked, paused) == ["Suspended"]
    assert _phases(draft, released, paused) == ["Resuming"]
    assert _phases(draft, released, running) == ["Running"]
    assert _phases(draft, released, {"phase": "Resuming"}) == ["Resuming"]


def test_listed_phase_values_beside_a_suspend_field() -> None:
    phase = {"type": "string", "enum": ["Pending", "Running", "Suspended", "Failed"]}
    status = {"type": "object", "properties": {"phase": phase}}
    draft = infer(crd(_SUSPENDABLE, status))
    asked = {"suspend": True, "template": template()}
    assert _phases(draft, asked, {"phase": "Running"}) == ["Suspending"]
    assert _phases(draft, asked, {"phase": "Failed"}) == ["Failed"]
    assert _phases(draft, {"template": template()}, {"phase": "Pending"}) == ["Initializing"]


def test_ready_counts_fill_in_where_no_condition_holds() -> None:
    counts = {"replicas": {"type": "integer"}, "availableReplicas": {"type": "integer"}}
    status = {"type": "object", "properties": {**counts, "conditions": CONDITIONS}}
    sample = obj({"template": template()}, {"conditions": [{"type": "Failed", "status": "True"}]})
    draft = infer(crd(_SPEC, status), samples=[sample])
    spec = {"template": template()}
    assert _phases(draft, spec, {"replicas": 2, "availableReplicas": 2}) == ["Running"]
    assert _phases(draft, spec, {"replicas": 2, "availableReplicas": 1}) == ["Initializing"]
    failed = {"replicas": 2, "availableReplicas": 2, **sample["status"]}
    assert _phases(draft, spec, failed) == ["Failed"]
    assert "running/initializing" in {e.subject for e in draft.review}


def test_each_roles_ready_count_against_its_replicas() -> None:
    role = {
        "type": "object",
        "properties": {
            "name": _STRING,
            "replicas": {"type": "integer"},
            "template": POD_TEMPLATE,
        },
    }
    seen = {"type": "object", "properties": {"name": _STRING, "ready": {"type": "integer"}}}
    spec = {"type": "object", "properties": {"roles": {"type": "array", "items": role}}}
    status = {"type": "object", "properties": {"rolesStatus": {"type": "array", "items": seen}}}
    draft = infer(crd(spec, status))
    roles = {"roles": [{"name": "a", "replicas": 2, "template": template()}, {"name": "b"}]}
    both = {"rolesStatus": [{"name": "a", "ready": 2}, {"name": "b", "ready": 1}]}
    short = {"rolesStatus": [{"name": "a", "ready": 1}, {"name": "b", "ready": 1}]}
    assert _phases(draft, roles, both) == ["Running"]
    assert _phases(draft, roles, short) == ["Initializing"]
    assert _phases(draft, roles, {"rolesStatus": [{"name": "a", "ready": 2}]}) == ["Initializing"]


def test_counts_say_nothing_before_the_status_is_written() -> None:
    counts = {"replicas": {"type": "integer"}, "readyReplicas": {"type": "integer"}}
    spec = {
        "type": "object",
        "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE},
    }
    draft = infer(crd(spec, {"type": "object", "properties": counts}))
    workload = {"replicas": 2, "template": template()}
    assert _phases(draft, workload, {}) == ["Undefined"]
    assert _phases(draft, workload, {"replicas": 2}) == ["Initializing"]


def _role_counts() -> dict[str, Any]:
    counts = {"type": "integer"}
    return {
        "type": "object",
        "additionalProperties": {
            "type": "object",
            "properties": {"active": counts, "succeeded": counts, "failed": counts},
        },
    }


def test_a_role_reporting_failures_is_degraded_until_the_workload_ends() -> None:
    status = {
        "type": "object",
        "properties": {"conditions": CONDITIONS, "replicaStatuses": _role_counts()},
    }
    sample = obj({"template": template()}, {"conditions": [{"type": "Running", "status": "True"}]})
    draft = infer(crd(_SUSPENDABLE, status), samples=[sample])
    running = [{"type": "Running", "status": "True"}]
    retrying = {"conditions": running, "replicaStatuses": {"Launcher": {"active": 1, "failed": 1}}}
    healthy = {"conditions": running, "replicaStatuses": {"Launcher": {"active": 1}}}
    failed = {
        "conditions": [*running, {"type": "Failed", "status": "True"}],
        "replicaStatuses": {"Launcher": {"failed": 1}},
    }
    spec = {"template": template()}
    assert _phases(draft, spec, retrying) == ["Running", "Degraded"]
    assert _phases(draft, spec, healthy) == ["Running"]
    assert _phases(draft, spec, failed) == ["Failed"]
    # A workload asked to suspend is not degraded by the failures it had.
    assert "Degraded" not in _phases(draft, {**spec, "suspend": True}, retrying)
    assert "degraded" in {e.subject for e in draft.review}


def test_aborted_terminated_and_completing_phases() -> None:
    phase = {
        "type": "string",
        "enum": ["Pending", "Running", "Aborting", "Aborted", "Completing", "Terminated"],
    }
    status = {
        "type": "object",
        "properties": {"state": {"type": "object", "properties": {"phase": phase}}},
    }
    draft = infer(crd(_SPEC, status))
    spec = {"template": template()}
    seen = [
        _phases(draft, spec, {"state": {"phase": value}})
        for value in ("Aborting", "Aborted", "Completing", "Terminated")
    ]
    assert seen == [["Suspending"], ["Suspended"], ["Completed"], ["Failed"]]


def test_unlisted_condition_types_give_way_to_a_field_named_status() -> None:
    status = {"type": "object", "properties": {"status": _STRING, "conditions": CONDITIONS}}
    draft = infer(crd(_SPEC, status))
    seen = _phases(
        draft,
        {"template": template()},
        {"status": "Unhealthy", "conditions": [{"type": "MilvusReady", "status": "False"}]},
    )
    assert seen == ["Degraded"]


def test_a_schemaless_status_is_read_by_the_conditions_convention() -> None:
    draft = infer(crd(_SPEC, {"type": "object", "x-kubernetes-preserve-unknown-fields": True}))
    spec = {"template": template()}
    ready = {"conditions": [{"type": "Ready", "status": "True"}]}
    assert _phases(draft, spec, ready) == ["Running"]


def test_a_ready_count_without_a_wanted_count_means_the_one_pod() -> None:
    status = {"type": "object", "properties": {"readyReplicas": {"type": "integer"}}}
    draft = infer(crd(_SPEC, status))
    spec = {"template": template()}
    assert _phases(draft, spec, {"readyReplicas": 1}) == ["Running"]
    assert _phases(draft, spec, {"readyReplicas": 0}) == ["Initializing"]
    # Beside a count, the single-pod reading does not apply.
    counted = {
        "type": "object",
        "properties": {"size": {"type": "integer"}, "template": POD_TEMPLATE},
    }
    assert (
        "running"
        not in infer(crd(counted, status)).definition["spec"]["structureDefinition"][
            "rootComponent"
        ]["statusDefinition"]["statusMappings"]
    )


def test_a_ready_condition_not_yet_known_is_initializing() -> None:
    status = {"type": "object", "properties": {"conditions": CONDITIONS}}
    draft = infer(crd(_SPEC, status))
    spec = {"template": template()}
    unknown = {"conditions": [{"type": "Ready", "status": "Unknown"}]}
    failed = {
        "conditions": [{"type": "Ready", "status": "Unknown"}, {"type": "Failed", "status": "True"}]
    }
    assert _phases(draft, spec, unknown) == ["Initializing"]
    assert _phases(draft, spec, failed) == ["Failed"]


def test_ready_replicas_are_read_before_available_ones() -> None:
    counts = {
        name: {"type": "integer"} for name in ("replicas", "availableReplicas", "readyReplicas")
    }
    draft = infer(crd(_SPEC, {"type": "object", "properties": counts}))
    spec = {"template": template()}
    assert _phases(draft, spec, {"replicas": 2, "readyReplicas": 2, "availableReplicas": 0}) == [
        "Running"
    ]


def test_ready_false_for_an_outcome_reason_is_that_outcome() -> None:
    with_reason = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "type": {"type": "string"},
                "status": {"type": "string"},
                "reason": {"type": "string"},
            },
        },
    }
    draft = infer(crd(_SPEC, {"type": "object", "properties": {"conditions": with_reason}}))
    spec = {"template": template()}

    def ready(status: str, reason: str) -> dict[str, Any]:
        return {"conditions": [{"type": "Ready", "status": status, "reason": reason}]}

    assert _phases(draft, spec, ready("False", "PodSucceeded")) == ["Completed"]
    assert _phases(draft, spec, ready("False", "RevisionFailed")) == ["Failed"]
    assert _phases(draft, spec, ready("False", "DependenciesNotReady")) == ["Initializing"]
    assert _phases(draft, spec, ready("True", "PodReady")) == ["Running"]
