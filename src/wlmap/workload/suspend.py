"""Native suspend and resume: the current state and the patch that changes it."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.definitions import Definition
from wlmap.errors import ExpressionError, WlmapError, WriteBackError
from wlmap.workload._jsonpatch import MISSING, PatchBuilder, lookup
from wlmap.workload.compiled import CompiledDefinition, Expr, component_base, prepare
from wlmap.workload.patches import Patch


@dataclass(frozen=True)
class SuspendState:
    """Whether the workload supports native suspend, and whether it is suspended now."""

    supported: bool
    suspended: bool | None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"supported": self.supported, "suspended": self.suspended}


def _suspendable(compiled: CompiledDefinition) -> list[str]:
    return [n for n in compiled.order if compiled.components[n].suspend_definition is not None]


def suspend_state(
    compiled: CompiledDefinition, obj: Mapping[str, Any], phases: tuple[str, ...] = ()
) -> SuspendState:
    """Suspended when the status says so, or when every suspend action's target already
    holds its suspend value (a ``null`` value means the field is absent)."""
    checks = _suspend_checks(compiled)
    if not checks:
        return SuspendState(False, None)
    if "Suspended" in phases:
        return SuspendState(True, True)
    for expr, wanted in checks:
        try:
            paths = expr.paths(obj)
        except ExpressionError:
            return SuspendState(True, None)
        found = [lookup(obj, p) for p in paths]
        held = [None if value is MISSING else value for value in found]
        if not paths or any(value != wanted for value in held):
            return SuspendState(True, False)
    return SuspendState(True, True)


def _suspend_checks(compiled: CompiledDefinition) -> list[tuple[Expr, Any]]:
    """Each suspend action's path and decoded value, prepared once per definition (empty
    when the kind has no native suspend: every suspendDefinition has actions)."""
    if "suspend" not in compiled.memo:
        checks: list[tuple[Expr, Any]] = []
        for name in _suspendable(compiled):
            definition = compiled.components[name].suspend_definition
            assert definition is not None
            base = component_base(compiled, name)
            for index, action in enumerate(definition.suspend_actions):
                expr = compiled.expr(f"{base}.suspendDefinition.suspendActions[{index}].path")
                assert expr is not None
                checks.append((expr, json.loads(action.value)))
        compiled.memo["suspend"] = checks
    found: list[tuple[Expr, Any]] = compiled.memo["suspend"]
    return found


def suspend_patch(
    definition: Definition | CompiledDefinition, obj: Mapping[str, Any], *, resume: bool = False
) -> Patch:
    """The patch that suspends (or resumes) the workload.

    Suspend writes children before the root, resume writes the root first, each
    component's actions in order (later actions may overwrite earlier ones).

    Raises:
        WriteBackError: the definition has no suspendDefinition, or a path is not writable.
    """
    compiled = prepare(definition)
    names = _suspendable(compiled)
    if not names:
        raise WriteBackError(f"{compiled.name}: this workload kind has no native suspend")
    ordered = sorted(names, key=lambda n: compiled.depth[n], reverse=not resume)
    builder = PatchBuilder(obj)
    label = "resumeActions" if resume else "suspendActions"
    for name in ordered:
        suspend = compiled.components[name].suspend_definition
        assert suspend is not None
        actions = suspend.resume_actions if resume else suspend.suspend_actions
        for index, action in enumerate(actions):
            expr = compiled.expr(
                f"{component_base(compiled, name)}.suspendDefinition.{label}[{index}].path"
            )
            assert expr is not None
            try:
                paths = expr.paths(builder.doc)
            except ExpressionError as exc:
                raise WriteBackError(f"{compiled.name}: component {name!r}: {exc.reason}") from exc
            value = json.loads(action.value)
            for path in paths:
                try:
                    if value is None:  # null unsets the field (an annotation, say)
                        builder.remove(list(path))
                    else:
                        builder.set(list(path), value)
                except ValueError as exc:
                    raise WriteBackError(f"{compiled.name}: component {name!r}: {exc}") from exc
    return Patch(builder.ops, builder.merge_patch(), builder.doc)


def suspend_reader(
    compiled: CompiledDefinition, obj: Mapping[str, Any], phases: tuple[str, ...], strict: bool
) -> Callable[[], SuspendState]:
    """What the view's ``suspend`` reads: worked out at once in strict mode (raising
    there), else when first read, an unreadable state reading as supported and unknown."""
    if strict:
        state = suspend_state(compiled, obj, phases)
        return lambda: state

    def read() -> SuspendState:
        try:
            return suspend_state(compiled, obj, phases)
        except WlmapError:
            return SuspendState(True, None)

    return read
