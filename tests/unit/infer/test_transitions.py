"""States in the middle of a change: an update rolling through serving replicas, a stop
whose outcome is written before the pods are gone."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import Draft, infer
from wlmap.workload import interpret

from ._crds import CONDITIONS, POD_TEMPLATE, crd, obj, template

_INTEGER: dict[str, Any] = {"type": "integer"}
_STRING: dict[str, Any] = {"type": "string"}
_SPEC: dict[str, Any] = {
    "type": "object",
    "properties": {"replicas": _INTEGER, "template": POD_TEMPLATE},
}
_WITH_REASON: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": _STRING, "status": _STRING, "reason": _STRING},
    },
}


def _phases(draft: Draft, status: dict[str, Any]) -> list[str]:
    definition = definition_from_mapping(draft.definition, "draft")
    spec = {"replicas": 3, "template": template()}
    phases: list[str] = interpret(definition, obj(spec, status)).to_dict()["phases"]
    return phases


def _counts(replicas: int, ready: int, updated: int) -> dict[str, Any]:
    progressing = {"type": "Progressing", "status": "True"}
    return {
        "conditions": [progressing],
        "replicas": replicas,
        "readyReplicas": ready,
        "updatedReplicas": updated,
    }


def test_an_update_rolling_through_ready_replicas_is_running() -> None:
    counts = dict.fromkeys(("replicas", "readyReplicas", "updatedReplicas"), _INTEGER)
    status = {"type": "object", "properties": {"conditions": CONDITIONS, **counts}}
    draft = infer(crd(_SPEC, status))
    # One of three replicas updated, two serving: the rollout keeps the workload running.
    assert _phases(draft, _counts(3, 2, 1)) == ["Running"]
    # Every replica updated and not all ready: starting (or scaling up), not an update.
    assert _phases(draft, _counts(3, 2, 3)) == ["Initializing"]
    # An update with nothing ready yet serves nothing.
    assert _phases(draft, _counts(3, 0, 1)) == ["Initializing"]
    failed = _counts(3, 2, 1)
    failed["conditions"].append({"type": "Failed", "status": "True"})
    assert _phases(draft, failed) == ["Failed"]
    assert "running (rolling update)" in {e.subject for e in draft.review}


def test_without_an_updated_count_there_is_no_rollout_reading() -> None:
    counts = dict.fromkeys(("replicas", "readyReplicas"), _INTEGER)
    status = {"type": "object", "properties": {"conditions": CONDITIONS, **counts}}
    draft = infer(crd(_SPEC, status))
    assert _phases(draft, _counts(3, 2, 1)) == ["Initializing"]


def test_a_stopped_phase_with_a_stopping_reason_is_suspending() -> None:
    status = {"type": "object", "properties": {"status": _STRING, "conditions": _WITH_REASON}}
    draft = infer(crd(_SPEC, status))

    def stopped(reason: str) -> dict[str, Any]:
        ready = {"type": "AppReady", "status": "False", "reason": reason}
        return {"status": "Stopped", "conditions": [ready]}

    assert _phases(draft, stopped("AppStopping")) == ["Suspending"]
    assert _phases(draft, stopped("AppStopped")) == ["Suspended"]
    # A condition named after the transition says it by its status, not its reason.
    named = {"type": "AppStopping", "status": "False", "reason": "AppStopping"}
    assert _phases(draft, {"status": "Stopped", "conditions": [named]}) == ["Suspended"]
    assert "suspending" in {e.subject for e in draft.review}
