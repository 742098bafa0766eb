"""Suspend requests a draft recognises beyond a boolean, and what a user sees under them."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import Draft, infer
from wlmap.workload import interpret, suspend_patch

from ._crds import POD_TEMPLATE, crd, obj, template

_STRING: dict[str, Any] = {"type": "string"}


def _phases(draft: Draft, spec: dict[str, Any], status: dict[str, Any]) -> list[str]:
    definition = definition_from_mapping(draft.definition, "draft")
    phases: list[str] = interpret(definition, obj(spec, status)).to_dict()["phases"]
    return phases


def _suspend_patch(draft: Draft, spec: dict[str, Any], resume: bool) -> dict[str, Any]:
    definition = definition_from_mapping(draft.definition, "draft")
    patch: dict[str, Any] = suspend_patch(definition, obj(spec), resume=resume).merge_patch
    return patch


def test_a_mode_enum_with_a_suspended_value_suspends() -> None:
    mode = {"type": "string", "enum": ["Running", "Suspended"], "default": "Running"}
    spec_schema = {"type": "object", "properties": {"mode": mode, "template": POD_TEMPLATE}}
    status = {"type": "object", "properties": {"phase": _STRING}}
    draft = infer(crd(spec_schema, status))
    running = {"mode": "Running", "template": template()}
    asked = {"mode": "Suspended", "template": template()}
    assert _suspend_patch(draft, running, resume=False) == {"spec": {"mode": "Suspended"}}
    assert _suspend_patch(draft, asked, resume=True) == {"spec": {"mode": "Running"}}
    assert _phases(draft, asked, {"phase": "Running"}) == ["Suspending"]
    assert _phases(draft, running, {"phase": "Running"}) == ["Running"]
    # A running mode: no pods while it says suspended.
    definition = definition_from_mapping(draft.definition, "draft")
    pods = [
        interpret(definition, obj(s)).to_dict()["components"][1]["replicas"]
        for s in (running, asked)
    ]
    assert pods == [1, 0]


def test_a_replica_count_of_zero_or_one_is_an_on_off_switch() -> None:
    replicas = {"type": "integer", "minimum": 0, "maximum": 1, "default": 1}
    spec_schema = {"type": "object", "properties": {"replicas": replicas, "template": POD_TEMPLATE}}
    draft = infer(crd(spec_schema, {"type": "object", "properties": {"phase": _STRING}}))
    on = {"replicas": 1, "template": template()}
    assert _suspend_patch(draft, on, resume=False) == {"spec": {"replicas": 0}}
    assert _phases(draft, {**on, "replicas": 0}, {"phase": "Running"}) == ["Suspending"]
    # Any other count is a count, not a switch.
    counted = {
        "type": "object",
        "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE},
    }
    assert (
        "suspendDefinition"
        not in infer(crd(counted)).definition["spec"]["structureDefinition"]["rootComponent"]
    )
