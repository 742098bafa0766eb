"""Mapping native status to generic statuses, with evidence for every decision."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from wlmap.definitions.status import ConditionMatcher, GenericStatus
from wlmap.errors import ExpressionError
from wlmap.workload._facts import read_facts
from wlmap.workload._issues import Issues
from wlmap.workload._status_plan import PlannedMatcher, StatusPlan, status_plan
from wlmap.workload._status_records import Evidence, MatcherResult, StatusReport
from wlmap.workload.compiled import CompiledDefinition

NEAREST_MISSES = 3

__all__ = [
    "NEAREST_MISSES",
    "Evidence",
    "MatcherResult",
    "StatusReport",
    "evaluate_status",
]


def evaluate_status(
    compiled: CompiledDefinition,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None = None,
) -> StatusReport:
    """Every generic status whose matchers hold for ``obj``, with the evidence."""
    plan = status_plan(compiled)
    if plan is None:
        return StatusReport((GenericStatus.UNDEFINED.value,), (), None, (), "no statusDefinition")
    phase = _phase(plan, obj, issues, variables)
    conditions = _conditions(plan, obj, issues, variables)
    by_type = {c["type"]: c for c in conditions}
    # Every matcher is evaluated (so that every expression error is reported); the
    # evidence of those that do not hold is built only if the nearest misses are read.
    results: list[tuple[PlannedMatcher, Any]] = []
    matched: list[MatcherResult] = []
    session = issues.session
    for planned in plan.matchers:
        result: Any = NO_EXPRESSION
        expression = planned.expression
        if expression is not None:
            # Issues.outputs, inline: a definition has a dozen of these
            try:
                if variables is None:
                    outputs = expression.read(obj, session)
                else:
                    outputs = expression.all(obj, variables, session)
            except ExpressionError as exc:
                issues.report(expression.located(exc))
                outputs = None
            result = result_text(outputs)
        results.append((planned, result))
        if planned.expression_only:  # what _holds() would say, without its other checks
            if planned.expected_result is not None and result != planned.expected_result:
                continue
        elif not _holds(planned, phase, by_type, result):
            continue
        matched.append(matched_result(planned, obj, phase, by_type, result))
    return status_report(matched, results, obj, phase, conditions, by_type)


def matched_result(
    planned: PlannedMatcher,
    obj: Mapping[str, Any],
    phase: str | None,
    conditions: Mapping[str, dict[str, Any]],
    result: Any,
) -> MatcherResult:
    """The result of a matcher that holds, with its evidence."""
    return MatcherResult(
        planned.status, planned.index, _evidence(planned, obj, phase, conditions, result)
    )


def status_report(
    matched: list[MatcherResult],
    results: list[tuple[PlannedMatcher, Any]],
    obj: Mapping[str, Any],
    phase: str | None,
    conditions: list[dict[str, Any]],
    by_type: Mapping[str, dict[str, Any]],
) -> StatusReport:
    """The report from the matchers that hold, and every matcher's result (for the
    nearest misses, worked out when read)."""
    if matched:
        phases = tuple(dict.fromkeys([r.status.value for r in matched]))
        return StatusReport(phases, tuple(matched), phase, tuple(conditions))

    def misses() -> tuple[MatcherResult, ...]:
        every = [matched_result(planned, obj, phase, by_type, r) for planned, r in results]
        every.sort(key=lambda r: (-r.score, -sum(e.holds for e in r.evidence)))
        return tuple(every[:NEAREST_MISSES])

    note = "no status matcher holds" if obj.get("status") else "the object has no status yet"
    return StatusReport(
        (GenericStatus.UNDEFINED.value,), (), phase, tuple(conditions), note, misses
    )


def result_text(outputs: list[Any] | None) -> str | None:
    """A matcher expression's result as compared with its expected result: the first
    output as text (booleans as ``true``/``false``), None without one."""
    if not outputs:
        return None
    first = outputs[0]
    if first is True:
        return "true"
    if first is False:
        return "false"
    return None if first is None else text(first)


def _phase(
    plan: StatusPlan,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None,
) -> str | None:
    outputs = issues.outputs(plan.phase, obj, variables)
    if not outputs or outputs[0] is None:
        return None
    return text(outputs[0])


def _conditions(
    plan: StatusPlan,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None,
) -> list[dict[str, Any]]:
    if plan.fields is None:
        return []
    return condition_list(plan.fields, issues.outputs(plan.conditions, obj, variables))


def condition_list(
    fields: tuple[tuple[str, str], ...], outputs: list[Any] | None
) -> list[dict[str, Any]]:
    """The conditions the conditions expression gave, by the definition's field names."""
    found = []
    (_, type_field), *others = fields
    for output in outputs or ():
        for item in output if isinstance(output, list) else (output,):
            # null (no conditions yet) and dicts without the abstract Mapping check
            if type(item) is not dict and (item is None or not isinstance(item, Mapping)):
                continue
            kind = item.get(type_field)
            if type(kind) is not str and not isinstance(kind, str):
                continue
            condition = {"type": kind}
            for key, field_name in others:
                value = item.get(field_name)
                if type(value) is str or isinstance(value, str):
                    condition[key] = value
            found.append(condition)
    return found


def _condition_holds(expected: ConditionMatcher, found: Mapping[str, Any] | None) -> bool:
    return (
        found is not None
        and (expected.status is None or found.get("status") == expected.status)
        and (expected.reason is None or found.get("reason") == expected.reason)
    )


def _holds(
    planned: PlannedMatcher,
    phase: str | None,
    conditions: Mapping[str, dict[str, Any]],
    result: Any,
) -> bool:
    """Whether every part of the matcher holds (what its evidence would say)."""
    if planned.by_phase is not None and phase != planned.by_phase:
        return False
    for kind, status, reason in planned.checks:
        found = conditions.get(kind)
        if (
            found is None
            or (status is not None and found.get("status") != status)
            or (reason is not None and found.get("reason") != reason)
        ):
            return False
    return planned.expected_result is None or result == planned.expected_result


def _evidence(
    planned: PlannedMatcher,
    obj: Mapping[str, Any],
    phase: str | None,
    conditions: Mapping[str, dict[str, Any]],
    result: Any,
) -> tuple[Evidence, ...]:
    matcher = planned.matcher
    evidence = []
    if matcher.by_phase is not None:
        evidence.append(
            Evidence("phase", {"phase": matcher.by_phase}, phase, phase == matcher.by_phase)
        )
    for expected, wanted in planned.conditions:
        found = conditions.get(expected.type)
        evidence.append(Evidence("condition", wanted, found, _condition_holds(expected, found)))
    if planned.expression_expected is not None:
        evidence.append(
            Evidence(
                "expression",
                # one dict per matcher, shared by every evidence of it (read-only)
                planned.expression_expected,
                result,
                result == planned.expected_result,
                read_facts(planned.fields, obj),
            )
        )
    return tuple(evidence)


# The result of a matcher without an expression (never compared).
NO_EXPRESSION = object()


def text(value: Any) -> str:
    """jq's ``tostring``: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
