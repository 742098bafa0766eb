"""The phase of what a workload runs settles the phase of deploying it."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import Draft, infer
from wlmap.workload import interpret

from ._crds import POD_TEMPLATE, crd, obj, template

_STRING: dict[str, Any] = {"type": "string"}
_SPEC: dict[str, Any] = {
    "type": "object",
    "properties": {
        "backoffLimit": {"type": "integer", "default": 0},
        "template": POD_TEMPLATE,
    },
}


def _status(*names: str) -> dict[str, Any]:
    properties: dict[str, Any] = dict.fromkeys(names, _STRING)
    return {"type": "object", "properties": {**properties, "failed": {"type": "integer"}}}


def _phase(draft: Draft, deployment: str, job: str | None, **spec: Any) -> list[str]:
    definition = definition_from_mapping(draft.definition, "draft")
    status = {"taskDeploymentStatus": deployment, "taskStatus": job, "failed": 0}
    workload = obj({"template": template(), **spec}, status)
    phases: list[str] = interpret(definition, workload).to_dict()["phases"]
    return phases


def test_the_jobs_phase_settles_a_running_deployment() -> None:
    draft = infer(crd(_SPEC, _status("taskDeploymentStatus", "taskStatus")))
    assert _phase(draft, "Running", None) == ["Initializing"]
    assert _phase(draft, "Running", "PENDING") == ["Initializing"]
    assert _phase(draft, "Running", "RUNNING") == ["Running"]
    assert _phase(draft, "Running", "SUCCEEDED") == ["Completed"]
    assert _phase(draft, "Running", "STOPPED") == ["Completed"]
    assert _phase(draft, "Complete", "SUCCEEDED") == ["Completed"]
    # A deployment that completed a failed job has failed.
    assert _phase(draft, "Complete", "FAILED") == ["Failed"]
    assert _phase(draft, "Initializing", None) == ["Initializing"]


def test_a_failed_job_with_retries_left_is_degraded() -> None:
    draft = infer(crd(_SPEC, _status("taskDeploymentStatus", "taskStatus")))
    assert _phase(draft, "Running", "FAILED") == ["Failed"]
    assert _phase(draft, "Running", "FAILED", backoffLimit=2) == ["Degraded"]


def test_a_phase_of_something_else_settles_nothing() -> None:
    # networkStatus names no part of taskDeploymentStatus: not what the deployment runs.
    draft = infer(crd(_SPEC, _status("taskDeploymentStatus", "networkStatus")))
    definition = definition_from_mapping(draft.definition, "draft")
    status = {"taskDeploymentStatus": "Running", "networkStatus": "FAILED"}
    workload = obj({"template": template()}, status)
    assert interpret(definition, workload).to_dict()["phases"] == ["Running"]
