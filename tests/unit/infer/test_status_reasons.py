"""Which conditions a draft reads when several lists qualify, and what a Ready reason says."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import Draft, infer
from wlmap.workload import interpret

from ._crds import CONDITIONS, POD_TEMPLATE, crd, obj, template

_STRING: dict[str, Any] = {"type": "string"}
_WITH_REASON: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": _STRING, "status": _STRING, "reason": _STRING},
    },
}
_SUSPENDABLE: dict[str, Any] = {
    "type": "object",
    "properties": {"suspend": {"type": "boolean"}, "template": POD_TEMPLATE},
}


def _phases(draft: Draft, spec: dict[str, Any], status: dict[str, Any]) -> list[str]:
    definition = definition_from_mapping(draft.definition, "draft")
    phases: list[str] = interpret(definition, obj(spec, status)).to_dict()["phases"]
    return phases


def _ready(status: str, reason: str, *more: dict[str, str]) -> dict[str, Any]:
    return {"conditions": [{"type": "Ready", "status": status, "reason": reason}, *more]}


def test_own_conditions_before_a_sub_objects_declared_first() -> None:
    # A child's status is copied in first (alphabetically), with its own conditions; the
    # object's conditions sit at .status.conditions beside a string named like a phase.
    status = {
        "type": "object",
        "properties": {
            "activeStatus": {"type": "object", "properties": {"conditions": CONDITIONS}},
            "conditions": _WITH_REASON,
            "serviceStatus": _STRING,
        },
    }
    draft = infer(crd(_SUSPENDABLE, status))
    status_definition = draft.definition["spec"]["structureDefinition"]["rootComponent"][
        "statusDefinition"
    ]
    assert status_definition["conditionsDefinition"] == {"path": ".status.conditions"}
    spec = {"template": template()}
    # The deprecated string says Running; the object's own Ready condition says otherwise.
    seen = {**_ready("False", "RevisionFailed"), "serviceStatus": "Running"}
    assert _phases(draft, spec, seen) == ["Failed"]


def test_ready_false_for_a_suspension_is_no_outcome() -> None:
    draft = infer(crd(_SUSPENDABLE, {"type": "object", "properties": {"conditions": _WITH_REASON}}))
    suspended = {"type": "Suspended", "status": "True", "reason": "SuspendComplete"}
    # "Complete" in SuspendComplete names the suspension's end, not the workload's.
    both = _ready("False", "SuspendComplete", suspended)
    assert _phases(draft, {"suspend": True, "template": template()}, both) == ["Suspended"]
    assert _phases(draft, {"suspend": False, "template": template()}, both) == ["Resuming"]
    # Without a suspension in the reason, the same word is the outcome.
    done = _ready("False", "PodCompleted")
    assert _phases(draft, {"suspend": False, "template": template()}, done) == ["Completed"]


def test_ready_false_for_a_timeout_is_failed() -> None:
    spec_schema = {"type": "object", "properties": {"template": POD_TEMPLATE}}
    draft = infer(crd(spec_schema, {"type": "object", "properties": {"conditions": _WITH_REASON}}))
    spec = {"template": template()}
    assert _phases(draft, spec, _ready("False", "InitializingTimeout")) == ["Failed"]
    assert _phases(draft, spec, _ready("False", "Initializing")) == ["Initializing"]


def test_a_last_ready_version_keeps_serving_while_a_newer_one_is_not_ready() -> None:
    status = {
        "type": "object",
        "properties": {
            "conditions": _WITH_REASON,
            "latestCreatedRevisionName": _STRING,
            "latestReadyRevisionName": _STRING,
        },
    }
    spec_schema = {"type": "object", "properties": {"template": POD_TEMPLATE}}
    draft = infer(crd(spec_schema, status))
    spec = {"template": template()}
    served = {"latestReadyRevisionName": "web-00001", "latestCreatedRevisionName": "web-00002"}
    first = {"latestCreatedRevisionName": "web-00001"}
    # The newer revision is still starting, or failed: the last ready one serves.
    assert _phases(draft, spec, {**_ready("Unknown", ""), **served}) == ["Running"]
    assert _phases(draft, spec, {**_ready("False", "RevisionFailed"), **served}) == [
        "Running",
        "Degraded",
    ]
    # Nothing was ever ready: the first revision starts or fails.
    assert _phases(draft, spec, {**_ready("Unknown", ""), **first}) == ["Initializing"]
    assert _phases(draft, spec, {**_ready("False", "RevisionFailed"), **first}) == ["Failed"]
    assert _phases(draft, spec, {**_ready("True", ""), **served}) == ["Running"]
