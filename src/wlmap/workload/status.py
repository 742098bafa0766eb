"""Mapping native status to generic statuses, with evidence for every decision."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from wlmap.definitions.status import (
    ConditionMatcher,
    GenericStatus,
    StatusDefinition,
    StatusMatcher,
)
from wlmap.workload._issues import Issues
from wlmap.workload.compiled import CompiledDefinition, Expr

_BASE = "spec.structureDefinition.rootComponent.statusDefinition"
NEAREST_MISSES = 3


@dataclass(frozen=True)
class Evidence:
    """One checked part of a matcher: what was expected, what was found, whether it held."""

    check: Literal["phase", "condition", "expression"]
    expected: dict[str, Any]
    found: Any
    holds: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "check": self.check,
            "expected": self.expected,
            "found": self.found,
            "holds": self.holds,
        }


@dataclass(frozen=True)
class MatcherResult:
    """The outcome of one matcher of one generic status."""

    status: GenericStatus
    index: int
    evidence: tuple[Evidence, ...]

    @property
    def matched(self) -> bool:
        """All parts held."""
        return all(e.holds for e in self.evidence)

    @property
    def score(self) -> float:
        """Share of the parts that held (how near a miss is)."""
        return sum(e.holds for e in self.evidence) / len(self.evidence) if self.evidence else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "status": self.status.value,
            "matcher": self.index,
            "evidence": [e.to_dict() for e in self.evidence],
        }


@dataclass(frozen=True)
class StatusReport:
    """The generic statuses of a workload and why."""

    phases: tuple[str, ...]
    matched: tuple[MatcherResult, ...]
    nearest_misses: tuple[MatcherResult, ...]
    phase: str | None
    conditions: tuple[dict[str, Any], ...]
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``explanation`` object of the JSON contract."""
        return {
            "phases": list(self.phases),
            "matched": [m.to_dict() for m in self.matched],
            "nearestMisses": [m.to_dict() for m in self.nearest_misses],
            "observed": {"phase": self.phase, "conditions": list(self.conditions)},
            "note": self.note,
        }


def evaluate_status(
    compiled: CompiledDefinition,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None = None,
) -> StatusReport:
    """Every generic status whose matchers hold for ``obj``, with the evidence."""
    definition = compiled.definition.root.status_definition
    if definition is None:
        return StatusReport(
            (GenericStatus.UNDEFINED.value,), (), (), None, (), "no statusDefinition"
        )
    phase = _phase(compiled, obj, issues, variables)
    conditions = _conditions(compiled, definition, obj, issues, variables)
    by_type = {c["type"]: c for c in conditions if "type" in c}
    results = []
    for planned in _plan(compiled, definition):
        evidence = _check(planned, phase, by_type, obj, issues, variables)
        results.append(MatcherResult(planned.status, planned.index, evidence))
    matched = tuple(r for r in results if r.matched)
    phases = tuple(dict.fromkeys(r.status.value for r in matched))
    if phases:
        return StatusReport(phases, matched, (), phase, tuple(conditions))
    misses = sorted(results, key=lambda r: (-r.score, -sum(e.holds for e in r.evidence)))
    note = "no status matcher holds" if obj.get("status") else "the object has no status yet"
    return StatusReport(
        (GenericStatus.UNDEFINED.value,),
        (),
        tuple(misses[:NEAREST_MISSES]),
        phase,
        tuple(conditions),
        note,
    )


def _phase(
    compiled: CompiledDefinition,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None,
) -> str | None:
    outputs = issues.outputs(compiled.expr(f"{_BASE}.phaseDefinition.path"), obj, variables)
    if not outputs or outputs[0] is None:
        return None
    return _text(outputs[0])


def _conditions(
    compiled: CompiledDefinition,
    definition: StatusDefinition,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None,
) -> list[dict[str, Any]]:
    spec = definition.conditions_definition
    if spec is None:
        return []
    outputs = issues.outputs(compiled.expr(f"{_BASE}.conditionsDefinition.path"), obj, variables)
    items: list[Any] = []
    for output in outputs or ():
        items.extend(output if isinstance(output, list) else [output])
    names = {
        "type": spec.type_field_name,
        "status": spec.status_field_name,
        "reason": spec.reason_field_name,
        "message": spec.message_field_name,
    }
    found = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        condition = {k: item[f] for k, f in names.items() if isinstance(item.get(f), str)}
        if "type" in condition:
            found.append(condition)
    return found


def _check(
    planned: _Planned,
    phase: str | None,
    conditions: Mapping[str, dict[str, Any]],
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None,
) -> tuple[Evidence, ...]:
    matcher = planned.matcher
    evidence = []
    if matcher.by_phase is not None:
        evidence.append(
            Evidence("phase", {"phase": matcher.by_phase}, phase, phase == matcher.by_phase)
        )
    for expected, wanted in planned.conditions:
        found = conditions.get(expected.type)
        holds = (
            found is not None
            and (expected.status is None or found.get("status") == expected.status)
            and (expected.reason is None or found.get("reason") == expected.reason)
        )
        evidence.append(Evidence("condition", wanted, found, holds))
    if matcher.by_expression is not None:
        outputs = issues.outputs(planned.expression, obj, variables)
        result = _text(outputs[0]) if outputs and outputs[0] is not None else None
        expected_result = matcher.by_expression.expected_result
        evidence.append(
            Evidence(
                "expression",
                {"expression": matcher.by_expression.expression, "result": expected_result},
                result,
                result == expected_result,
            )
        )
    return tuple(evidence)


@dataclass(frozen=True)
class _Planned:
    """One matcher prepared once per definition: its expression and expected conditions."""

    status: GenericStatus
    index: int
    matcher: StatusMatcher
    expression: Expr | None
    conditions: tuple[tuple[ConditionMatcher, dict[str, Any]], ...]


def _plan(compiled: CompiledDefinition, definition: StatusDefinition) -> tuple[_Planned, ...]:
    """Every matcher in evaluation order, prepared once and kept with the definition."""
    plan: tuple[_Planned, ...] | None = compiled.memo.get("status")
    if plan is None:
        plan = tuple(
            _Planned(
                status,
                index,
                matcher,
                compiled.expr(
                    f"{_BASE}.statusMappings.{status.value.lower()}[{index}].byExpression.expression"
                ),
                tuple((c, c.model_dump(exclude_none=True)) for c in matcher.by_conditions or ()),
            )
            for status, matchers in definition.status_mappings.entries()
            for index, matcher in enumerate(matchers)
        )
        compiled.memo["status"] = plan
    return plan


def _text(value: Any) -> str:
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
