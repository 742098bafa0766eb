"""Status: where conditions and phases are, and which native values mean which state.

Conditions are found by shape (a list under ``.status`` whose items have a ``type`` and
a ``status``), phases by a string field under ``.status`` with an enum or named like a
phase. The values come from the schema's enums and from sample objects; each is mapped
by the vocabulary (:mod:`wlmap.infer._vocabulary`). Where a state's values would also
match a state of higher precedence, the matcher excludes it, so that one object shows
one state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._containers import find_container_state
from wlmap.infer._evidence import Evidence, Strength, unmapped
from wlmap.infer._failures import degraded_matcher, find_failures, matcher_jq, replica_failure
from wlmap.infer._inner_phase import find_inner_phase, refine_by_inner_phase
from wlmap.infer._parts import find_parts
from wlmap.infer._phase import by_expression, find_phase, plan_phase, unset_phase
from wlmap.infer._readiness import find_readiness, readiness_matchers
from wlmap.infer._ready import find_last_ready, ready_matchers, serving_matchers
from wlmap.infer._retry import failing_phase
from wlmap.infer._rollout import find_rollout, rollout_matchers
from wlmap.infer._samples import values_at
from wlmap.infer._schema import ITEMS, Node, Path, jq_path, show, walk
from wlmap.infer._stopping import stopping_matchers
from wlmap.infer._vocabulary import COMMON_CONDITION_TYPES, PRECEDENCE, classify


@dataclass
class StatusPlan:
    """The status part of the draft."""

    conditions_path: str | None = None
    phase_path: str | None = None
    mappings: dict[GenericStatus, list[dict[str, Any]]] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)


# Kubernetes API conventions put conditions here; assumed where the schema is silent.
_CONVENTIONAL_CONDITIONS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "type": {"type": "string"},
            "status": {"type": "string"},
            "reason": {"type": "string"},
        },
    },
}


def _conventional(status: Node) -> Node:
    return Node((*status.path, "conditions"), _CONVENTIONAL_CONDITIONS)


def _conditions(status: Node) -> Node | None:
    """The shallowest conditions list: the object's own before one a sub-object copies in
    (RayService's ``.status.conditions`` before ``.status.activeServiceStatus...``)."""
    found = [
        node
        for node in walk(status)
        if len(node.path) <= 4
        and node.type == "array"
        and node.items is not None
        and {"type", "status"} <= node.items.properties.keys()
    ]
    return min(found, key=lambda node: len(node.path), default=None)


def _phase_first(conditions: Node, phase: Node, samples: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the phase field speaks for the object rather than its conditions list.

    Conditions below a sub-object of ``.status`` (``.status.clusterStatus.conditions``,
    ``.status.parts[].conditions``) are another object's, copied in: a phase field
    nearer to ``.status`` is the object's own. Own conditions whose types neither the
    schema nor a sample lists give way to a field named plainly ``phase``, ``state`` or
    ``status``, whose values the vocabulary reads directly.
    """
    if len(conditions.path) > 2:
        return len(phase.path) < len(conditions.path)
    item = conditions.items
    type_node = item.child("type") if item is not None else None
    listed = bool(type_node is not None and type_node.schema.get("enum")) or any(
        next(values_at(s, (*conditions.path, ITEMS, "type")), None) is not None for s in samples
    )
    return not listed and phase.path[-1] in ("phase", "state", "status") and len(phase.path) == 2


def _starts(values: Sequence[str]) -> bool:
    """Whether a listed phase value names the start (``Pending``): then an empty phase is
    not how the controller says it has not started."""
    return any((found := classify(v)) and found[0] is GenericStatus.INITIALIZING for v in values)


def _any(path: str, types: Sequence[str], type_field: str, status_field: str) -> str:
    test = " or ".join(f'.{type_field} == "{t}"' for t in types)
    if len(types) > 1:
        test = f"({test})"
    return f'any({path}[]?; {test} and .{status_field} == "True")'


def plan_status(
    status: Node | None,
    samples: Sequence[Mapping[str, Any]],
    suspend_path: str | None,
    spec: Node | None = None,
) -> StatusPlan:
    """Conditions, phase, readiness counts and state mappings from the schema and samples."""
    plan = StatusPlan()
    # A status the CRD declares without a schema follows the API conventions; one it does
    # not declare has nothing to read (a draft path there would not pass --crd).
    conditions = _conventional(status) if status is not None and status.schemaless else None
    if status is None:
        status = Node(("status",), {"x-kubernetes-preserve-unknown-fields": True})
    conditions = conditions or _conditions(status)
    phase = find_phase(status, samples)
    own = conditions
    # Own conditions giving way to the phase still carry the apps/v1 ReplicaFailure.
    given_way: Node | None = None
    if conditions is not None and phase is not None and _phase_first(conditions, phase[0], samples):
        given_way = conditions if len(conditions.path) == 2 else None
        conditions = None
    by_state: dict[GenericStatus, list[str]] = {}
    if conditions is not None:
        _conditions_plan(plan, conditions, samples, by_state, suspend_path, status)
    elif phase is not None:
        _phase_plan(plan, phase[0], phase[1], spec, suspend_path, status)
    readiness = find_readiness(status, spec)
    if readiness is not None:
        others = []
        if conditions is not None and by_state:
            mapped = [t for types in by_state.values() for t in types]
            others.append(_any(jq_path(conditions.path, optional=False), mapped, "type", "status"))
        if plan.phase_path is not None:
            others.append(f'({plan.phase_path} // "") != ""')
        for state, test in readiness_matchers(readiness, others, suspend_path).items():
            plan.mappings.setdefault(state, []).append(by_expression(test))
        plan.evidence.append(readiness.evidence)
    elif plan.phase_path is not None and phase is not None and not _starts(phase[1]):
        matcher, evidence_unset = unset_phase(plan.phase_path, suspend_path)
        plan.mappings.setdefault(GenericStatus.INITIALIZING, []).append(matcher)
        plan.evidence.append(evidence_unset)
    rollout = find_rollout(status)
    if rollout is not None:
        above = PRECEDENCE[: PRECEDENCE.index(GenericStatus.RUNNING)]
        signals = (plan.phase_path, plan.conditions_path)
        higher = [matcher_jq(m, *signals) for s in above for m in plan.mappings.get(s, ())]
        rollout_matchers(rollout, plan.mappings, higher, suspend_path, signals)
        plan.evidence.append(rollout.evidence)
    # A phase written at once beside conditions that say more: where the conditions are
    # read themselves, their own Suspended type is the controller's verdict.
    if own is not None and conditions is None and plan.phase_path is not None:
        stopping = stopping_matchers(own, plan.mappings, plan.phase_path, None)
        if stopping is not None:
            plan.evidence.append(stopping)
    found = [find_failures(status), replica_failure(given_way) if given_way else None]
    ended = [
        matcher_jq(m, plan.phase_path, plan.conditions_path)
        for state in (GenericStatus.FAILED, GenericStatus.COMPLETED)
        for m in plan.mappings.get(state, ())
    ]
    more = (find_container_state(status), find_parts(status))
    for failures in (f for f in (*found, *more) if f is not None):
        plan.mappings.setdefault(GenericStatus.DEGRADED, []).append(
            degraded_matcher(failures, ended, suspend_path)
        )
        plan.evidence.append(failures.evidence)
    if suspend_path is not None and GenericStatus.SUSPENDED not in plan.mappings:
        plan.mappings[GenericStatus.SUSPENDED] = [
            {"byExpression": {"expression": f"{suspend_path} == true", "expectedResult": "true"}}
        ]
        plan.evidence.append(
            Evidence(
                "suspended",
                f"{suspend_path} == true",
                suspend_path,
                "no native suspended value; the suspend field is set",
                Strength.GUESS,
            )
        )
    return plan


def _phase_plan(
    plan: StatusPlan,
    node: Node,
    values: Sequence[str],
    spec: Node | None,
    suspend_path: str | None,
    status: Node,
) -> None:
    """The phase's own values, a failing value read through the spec's restart policy, and
    an inner phase that settles it."""
    plan.phase_path, mappings, evidence = plan_phase(node, values, suspend_path)
    plan.mappings.update(mappings)
    failing = failing_phase(plan.phase_path, values, spec, suspend_path)
    if failing is not None:
        for state, test in failing.tests.items():
            plan.mappings.setdefault(state, []).append(by_expression(test))
        read = {e.subject for e in failing.evidence}
        evidence = [e for e in evidence if e.subject not in read] + failing.evidence
    plan.evidence += evidence
    inner = find_inner_phase(status, node)
    if inner is not None:
        plan.evidence.append(
            refine_by_inner_phase(plan.mappings, plan.phase_path, inner, spec, status)
        )


def _conditions_plan(
    plan: StatusPlan,
    conditions: Node,
    samples: Sequence[Mapping[str, Any]],
    by_state: dict[GenericStatus, list[str]],
    suspend_path: str | None,
    status: Node | None = None,
) -> None:
    path = jq_path(conditions.path, optional=False)
    plan.conditions_path = path
    item = conditions.items
    assert item is not None
    type_path: Path = (*conditions.path, ITEMS, "type")
    enum = [str(v) for v in (item.child("type") or item).schema.get("enum") or ()]
    seen = [str(v) for s in samples for v in values_at(s, type_path) if isinstance(v, str)]
    known = list(dict.fromkeys([*enum, *seen]))
    common = [] if enum else [t for t in COMMON_CONDITION_TYPES if t not in known]
    exact: dict[str, bool] = {}
    for value in [*known, *common]:
        guessed = value in common
        source = (
            "common condition type (the schema has no enum of types)"
            if guessed
            else "enum"
            if value in enum
            else "samples"
        )
        found = classify(value)
        if found is None:
            plan.evidence.append(unmapped(f"condition {value}", show(type_path)))
            continue
        state, is_exact = found
        by_state.setdefault(state, []).append(value)
        exact[value] = is_exact and not guessed
        strength = Strength.VOCABULARY if exact[value] else Strength.GUESS
        plan.evidence.append(
            Evidence(
                f"condition {value}",
                state.value,
                show(type_path),
                f"{source}; vocabulary",
                strength,
            )
        )
    _condition_mappings(plan, path, by_state, suspend_path)
    if "Ready" in by_state.get(GenericStatus.RUNNING, ()):
        reasons = "reason" in item.properties
        ready = ready_matchers(path, by_state, suspend_path, reasons)
        last_ready = find_last_ready(status)
        if last_ready is not None:
            ready = serving_matchers(ready, last_ready, path, by_state, suspend_path)
        for state, matcher, evidence in ready:
            plan.mappings.setdefault(state, []).append(matcher)
            plan.evidence.append(evidence)


def _condition_mappings(
    plan: StatusPlan,
    path: str,
    by_state: dict[GenericStatus, list[str]],
    suspend: str | None,
) -> None:
    """One matcher per state: its values hold and no value of a higher state does.

    With a suspend field, the suspend states follow the request and its outcome:
    suspending while asked and not yet suspended, resuming while no longer asked and
    still suspended; the active states need the request to be off.
    """
    higher: list[str] = []
    pause = by_state.get(GenericStatus.SUSPENDED, [])
    ended = by_state.get(GenericStatus.FAILED, []) + by_state.get(GenericStatus.COMPLETED, [])
    for state in PRECEDENCE:
        types = by_state.get(state)
        if suspend is not None and state is GenericStatus.SUSPENDED and pause:
            held = f"{suspend} == true and {_any(path, pause, 'type', 'status')}"
            if ended:
                held += f" and ({_any(path, ended, 'type', 'status')} | not)"
            plan.mappings[state] = [by_expression(held)]
            plan.mappings[GenericStatus.SUSPENDING] = [
                by_expression(
                    f"{suspend} == true and ({_any(path, pause + ended, 'type', 'status')} | not)"
                )
            ]
            plan.mappings[GenericStatus.RESUMING] = [
                by_expression(f"{suspend} != true and {_any(path, pause, 'type', 'status')}")
            ]
            higher.extend(pause)
            continue
        if not types:
            continue
        active = suspend is not None and state in (
            GenericStatus.RUNNING,
            GenericStatus.INITIALIZING,
            GenericStatus.DEGRADED,
        )
        held = _any(path, types, "type", "status")
        if higher:
            held += f" and ({_any(path, higher, 'type', 'status')} | not)"
        if active:
            held = f"{suspend} != true and {held}"
        if held == _any(path, types, "type", "status"):
            plan.mappings[state] = [
                {"byConditions": [{"type": t, "status": "True"}]} for t in types
            ]
        else:
            plan.mappings[state] = [by_expression(held)]
        higher.extend(types)
