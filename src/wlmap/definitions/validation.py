"""Checking a definition against every rule at once, each problem with its location."""

from __future__ import annotations

from wlmap.definitions._expression_rules import expression_problems
from wlmap.definitions._structure_rules import structure_problems
from wlmap.definitions.document import Definition
from wlmap.errors import Problem


def validate_definition(definition: Definition) -> list[Problem]:
    """Every problem of a definition: errors and warnings, structure first, then jq.

    Returns an empty list for a valid definition. Errors make a definition unusable;
    warnings (such as a read-only pod spec projection) do not.
    """
    return [*structure_problems(definition), *expression_problems(definition)]
