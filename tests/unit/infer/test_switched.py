"""Bounds behind a switch beside the roles: a role that scales only while switched on."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import POD_TEMPLATE, crd, obj, template
from ._views import valid

_INTEGER: dict[str, Any] = {"type": "integer"}
_ROLE: dict[str, Any] = {
    "type": "object",
    "properties": {"instances": _INTEGER, "template": POD_TEMPLATE},
}


def _source(*names: str) -> dict[str, Any]:
    switch = {
        "type": "object",
        "properties": {"enabled": {"type": "boolean"}, **dict.fromkeys(names, _INTEGER)},
    }
    spec = {
        "type": "object",
        "properties": {"driver": POD_TEMPLATE, "executor": _ROLE, "elastic": switch},
    }
    return crd(spec)


def _executor(draft_definition: dict[str, Any], elastic: dict[str, Any]) -> dict[str, Any]:
    workload = obj(
        {
            "driver": template(),
            "executor": {"instances": 1, "template": template()},
            "elastic": elastic,
        }
    )
    view = interpret(definition_from_mapping(draft_definition, "draft"), workload).to_dict()
    found: dict[str, Any] = next(c for c in view["components"] if c["name"] == "executor")
    return found


def test_bounds_named_for_a_role_apply_while_switched_on() -> None:
    source = _source("minExecutors", "maxExecutors", "initialExecutors")
    draft = infer(source)
    valid(draft, source)
    on = {"enabled": True, "minExecutors": 2, "maxExecutors": 6, "initialExecutors": 3}
    executor = _executor(draft.definition, on)
    # Starts at the largest of instances (1), initial (3) and minimum (2).
    assert (executor["replicas"], executor["minReplicas"], executor["maxReplicas"]) == (3, 2, 6)
    executor = _executor(draft.definition, {**on, "enabled": False})
    assert (executor["replicas"], executor["minReplicas"], executor["maxReplicas"]) == (
        1,
        None,
        None,
    )
    assert "component executor: bounds" in {e.subject for e in draft.review}


def test_bounds_named_for_another_role_are_not_the_executors() -> None:
    draft = infer(_source("minWorkers", "maxWorkers"))
    on = {"enabled": True, "minWorkers": 2, "maxWorkers": 6}
    executor = _executor(draft.definition, on)
    assert (executor["replicas"], executor["minReplicas"], executor["maxReplicas"]) == (
        1,
        None,
        None,
    )
