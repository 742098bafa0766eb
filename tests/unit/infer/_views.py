"""What a user sees of a draft: the components a workload shows, and a valid definition."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping, validate_definition
from wlmap.definitions.schema_check import crd_problems
from wlmap.infer import Draft
from wlmap.workload import interpret


def components(draft: Draft, workload: dict[str, Any]) -> list[tuple[str, str | None, int | None]]:
    definition = definition_from_mapping(draft.definition, "draft")
    view = interpret(definition, workload).to_dict()
    return [(c["name"], c["instance"], c.get("replicas")) for c in view["components"]]


def valid(draft: Draft, source: dict[str, Any]) -> None:
    definition = definition_from_mapping(draft.definition, "draft")
    errors = [p for p in validate_definition(definition) if p.severity != "warning"]
    assert errors == []
    assert crd_problems(definition, source) == []
