"""``validate`` warns (never errs) about expressions with super-linear cost, where they are."""

from __future__ import annotations

import pytest

from tests.hostile import EXPRESSION_FIELD, HOSTILE, hostile_document
from wlmap.catalog import builtin_definitions
from wlmap.definitions import definition_from_mapping, validate_definition


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_expression_is_a_located_warning(name: str) -> None:
    definition = definition_from_mapping(hostile_document(HOSTILE[name]))
    problems = validate_definition(definition)
    assert problems, name
    for problem in problems:
        assert problem.severity == "warning"
        assert (problem.definition, problem.component, problem.path) == (
            "hostile",
            "x",
            EXPRESSION_FIELD,
        )
        assert problem.message.startswith("super-linear cost, may exceed the evaluation limits")


def test_the_catalog_has_no_cost_warnings() -> None:
    for definition in builtin_definitions():
        costly = [p for p in validate_definition(definition) if "super-linear" in p.message]
        assert costly == [], definition.name
