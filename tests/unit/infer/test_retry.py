"""A failing phase: a rerun under a restart policy that allows one, else the failure."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import Draft, infer
from wlmap.workload import interpret

from ._crds import POD_TEMPLATE, crd, obj, template

_POLICY: dict[str, Any] = {
    "type": "object",
    "properties": {"type": {"type": "string", "enum": ["Never", "Always", "OnFailure"]}},
}
_STATE: dict[str, Any] = {"type": "object", "properties": {"state": {"type": "string"}}}


def _phases(draft: Draft, spec: dict[str, Any], state: str) -> list[str]:
    definition = definition_from_mapping(draft.definition, "draft")
    workload = obj({"template": template(), **spec}, {"state": state})
    phases: list[str] = interpret(definition, workload).to_dict()["phases"]
    return phases


def test_a_failing_phase_is_degraded_while_the_restart_policy_reruns() -> None:
    spec = {"type": "object", "properties": {"restartPolicy": _POLICY, "template": POD_TEMPLATE}}
    draft = infer(crd(spec, _STATE))
    assert _phases(draft, {"restartPolicy": {"type": "OnFailure"}}, "FAILING") == ["Degraded"]
    assert _phases(draft, {"restartPolicy": {"type": "Never"}}, "FAILING") == ["Failed"]
    # Retrying is opted into: no policy set never restarts.
    assert _phases(draft, {}, "FAILING") == ["Failed"]
    assert _phases(draft, {"restartPolicy": {"type": "OnFailure"}}, "FAILED") == ["Failed"]
    assert "phase failing" in {e.subject for e in draft.review}


def test_a_listed_failing_value_without_a_restart_policy_is_the_failure() -> None:
    spec = {"type": "object", "properties": {"template": POD_TEMPLATE}}
    state = {"type": "string", "enum": ["Running", "Failing", "Failed"]}
    draft = infer(crd(spec, {"type": "object", "properties": {"state": state}}))
    assert _phases(draft, {}, "Failing") == ["Failed"]
    assert _phases(draft, {}, "Running") == ["Running"]
    said = {e.subject: e.choice for e in draft.evidence}
    assert said["phase Failing"] == "Failed"
