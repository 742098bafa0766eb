"""A status definition prepared once per definition: its expressions and every matcher."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wlmap.definitions.status import ConditionMatcher, GenericStatus, StatusMatcher
from wlmap.workload._facts import Fields, fields_named
from wlmap.workload.compiled import CompiledDefinition, Expr

_BASE = "spec.structureDefinition.rootComponent.statusDefinition"


@dataclass(frozen=True)
class PlannedMatcher:
    """One matcher prepared once per definition: its expression and expected conditions."""

    status: GenericStatus
    index: int
    matcher: StatusMatcher
    expression: Expr | None
    expected_result: str | None
    conditions: tuple[tuple[ConditionMatcher, dict[str, Any]], ...]
    # an expression is all it checks: it holds when the result is the expected one
    expression_only: bool
    # what the evidence of its expression expects, and the fields the expression reads
    expression_expected: dict[str, Any] | None
    fields: Fields
    # the phase it asks for, and each condition's type, status and reason (None: any)
    by_phase: str | None
    checks: tuple[tuple[str, str | None, str | None], ...]


@dataclass(frozen=True)
class StatusPlan:
    """A status definition prepared once: its expressions and every matcher in order."""

    phase: Expr | None
    conditions: Expr | None
    # (condition key, field name) pairs; None without a conditionsDefinition.
    fields: tuple[tuple[str, str], ...] | None
    matchers: tuple[PlannedMatcher, ...]


def status_plan(compiled: CompiledDefinition) -> StatusPlan | None:
    """The status plan, prepared once and kept with the definition."""
    if "status" in compiled.memo:
        plan: StatusPlan | None = compiled.memo["status"]
        return plan
    definition = compiled.definition.root.status_definition
    plan = None
    if definition is not None:
        spec = definition.conditions_definition
        fields = None
        if spec is not None:
            fields = (
                ("type", spec.type_field_name),
                ("status", spec.status_field_name),
                ("reason", spec.reason_field_name),
                ("message", spec.message_field_name),
            )
        plan = StatusPlan(
            compiled.expr(f"{_BASE}.phaseDefinition.path"),
            compiled.expr(f"{_BASE}.conditionsDefinition.path"),
            fields,
            _planned(compiled, definition.status_mappings.declared()),
        )
    compiled.memo["status"] = plan
    return plan


def _planned(
    compiled: CompiledDefinition,
    declared: list[tuple[str, GenericStatus, tuple[StatusMatcher, ...]]],
) -> tuple[PlannedMatcher, ...]:
    # Expressions are found by the field they are written under; the index counts the
    # matchers of one status, variant states (pending, progressing) included.
    planned: list[PlannedMatcher] = []
    per_status: dict[GenericStatus, int] = {}
    for field, status, matchers in declared:
        for index, matcher in enumerate(matchers):
            planned.append(
                PlannedMatcher(
                    status,
                    per_status.get(status, 0),
                    matcher,
                    compiled.expr(
                        f"{_BASE}.statusMappings.{field}[{index}].byExpression.expression"
                    ),
                    matcher.by_expression.expected_result if matcher.by_expression else None,
                    tuple(
                        (c, c.model_dump(exclude_none=True)) for c in matcher.by_conditions or ()
                    ),
                    matcher.by_expression is not None
                    and matcher.by_phase is None
                    and not matcher.by_conditions,
                    {
                        "expression": matcher.by_expression.expression,
                        "result": matcher.by_expression.expected_result,
                    }
                    if matcher.by_expression
                    else None,
                    fields_named(matcher.by_expression.expression) if matcher.by_expression else (),
                    matcher.by_phase,
                    tuple((c.type, c.status, c.reason) for c in matcher.by_conditions or ()),
                )
            )
            per_status[status] = per_status.get(status, 0) + 1
    return tuple(planned)
