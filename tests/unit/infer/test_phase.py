"""A phase the controller has not set yet on a status it has written."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import Draft, infer
from wlmap.workload import interpret

from ._crds import POD_TEMPLATE, crd, obj, template

_SPEC: dict[str, Any] = {
    "type": "object",
    "properties": {"suspend": {"type": "boolean"}, "template": POD_TEMPLATE},
}
_INTEGER: dict[str, Any] = {"type": "integer"}


def _phases(draft: Draft, status: dict[str, Any] | None, suspend: bool = False) -> list[str]:
    definition = definition_from_mapping(draft.definition, "draft")
    workload = obj({"template": template(), "suspend": suspend}, status)
    phases: list[str] = interpret(definition, workload).to_dict()["phases"]
    return phases


def test_a_written_status_without_a_phase_is_initializing() -> None:
    status = {
        "type": "object",
        "properties": {"state": {"type": "string"}, "observedGeneration": _INTEGER},
    }
    draft = infer(crd(_SPEC, status))
    assert _phases(draft, None) == ["Undefined"]
    assert _phases(draft, {"observedGeneration": 1, "state": ""}) == ["Initializing"]
    assert _phases(draft, {"observedGeneration": 1}) == ["Initializing"]
    assert _phases(draft, {"observedGeneration": 1, "state": "ready"}) == ["Running"]
    # Asked to suspend before any state: that request, not a start.
    assert "Initializing" not in _phases(draft, {"observedGeneration": 1}, suspend=True)
    assert "phase unset" in {e.subject for e in draft.review}


def test_ready_counts_speak_where_the_phase_is_empty() -> None:
    status = {
        "type": "object",
        "properties": {
            "state": {"type": "string"},
            "replicas": _INTEGER,
            "readyReplicas": _INTEGER,
        },
    }
    draft = infer(crd(_SPEC, status))
    assert _phases(draft, {"state": "", "replicas": 1, "readyReplicas": 1}) == ["Running"]
    assert "phase unset" not in {e.subject for e in draft.evidence}
