"""Parts of the status that speak for a container or a part: Degraded while one is stuck."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import POD_TEMPLATE, crd, obj, template

_STRING: dict[str, Any] = {"type": "string"}
_REASON: dict[str, Any] = {
    "type": "object",
    "properties": {"reason": _STRING, "message": _STRING},
}
_CONTAINER_STATE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "running": {"type": "object", "properties": {"startedAt": _STRING}},
        "terminated": {
            "type": "object",
            "properties": {"exitCode": {"type": "integer"}, "reason": _STRING},
        },
        "waiting": _REASON,
    },
}
_STATUS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "containerState": _CONTAINER_STATE,
        "phase": {"type": "string", "enum": ["Pending", "Running"]},
    },
}
_SPEC: dict[str, Any] = {"type": "object", "properties": {"template": POD_TEMPLATE}}


def _phases(status: dict[str, Any]) -> list[str]:
    draft = infer(crd(_SPEC, _STATUS))
    definition = definition_from_mapping(draft.definition, "draft")
    phases: list[str] = interpret(definition, obj({"template": template()}, status)).to_dict()[
        "phases"
    ]
    return phases


def test_a_container_that_cannot_start_is_degraded_beside_the_phase() -> None:
    backoff = {"phase": "Pending", "containerState": {"waiting": {"reason": "ImagePullBackOff"}}}
    assert _phases(backoff) == ["Initializing", "Degraded"]
    crashing = {"phase": "Running", "containerState": {"waiting": {"reason": "CrashLoopBackOff"}}}
    assert _phases(crashing) == ["Running", "Degraded"]
    exited = {"phase": "Running", "containerState": {"terminated": {"reason": "Error"}}}
    assert _phases(exited) == ["Running", "Degraded"]


def test_a_container_starting_or_ended_well_is_not_degraded() -> None:
    creating = {"phase": "Pending", "containerState": {"waiting": {"reason": "ContainerCreating"}}}
    assert _phases(creating) == ["Initializing"]
    done = {"phase": "Running", "containerState": {"terminated": {"reason": "Completed"}}}
    assert _phases(done) == ["Running"]
    assert _phases({"phase": "Running", "containerState": {"running": {}}}) == ["Running"]


def test_a_part_reporting_itself_unhealthy_degrades_a_running_workload() -> None:
    part = {"type": "object", "properties": {"status": _STRING, "message": _STRING}}
    status = {
        "type": "object",
        "properties": {
            "phase": {"type": "string", "enum": ["Running", "Failed"]},
            "applications": {"type": "object", "additionalProperties": part},
        },
    }
    draft = infer(crd(_SPEC, status))
    definition = definition_from_mapping(draft.definition, "draft")

    def phases(seen: dict[str, Any]) -> list[str]:
        workload = obj({"template": template()}, seen)
        found: list[str] = interpret(definition, workload).to_dict()["phases"]
        return found

    healthy = {"app": {"status": "RUNNING"}, "ingress": {"status": "HEALTHY"}}
    sick = {"app": {"status": "UNHEALTHY"}, "ingress": {"status": "HEALTHY"}}
    broken = {"app": {"status": "DEPLOY_FAILED"}}
    assert phases({"phase": "Running", "applications": healthy}) == ["Running"]
    assert phases({"phase": "Running", "applications": sick}) == ["Running", "Degraded"]
    assert phases({"phase": "Running", "applications": broken}) == ["Running", "Degraded"]
    # Once the workload has failed, a failed part is no news.
    assert phases({"phase": "Failed", "applications": broken}) == ["Failed"]
