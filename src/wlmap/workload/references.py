"""Objects a workload refers to: what the caller must fetch, and binding what it passed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.gvk import GroupVersionKind
from wlmap.errors import WlmapError
from wlmap.workload._issues import Issues
from wlmap.workload.compiled import CompiledDefinition

_BASE = "spec.structureDefinition.references"


@dataclass(frozen=True)
class ReferenceRequest:
    """One object to fetch before interpreting: its kind, name and namespace."""

    reference: str
    kind: GroupVersionKind
    name: str | None
    namespace: str | None


def reference_requests(
    compiled: CompiledDefinition, obj: Mapping[str, Any]
) -> list[ReferenceRequest]:
    """The objects the definition's references point at, for the caller to fetch.

    A reference whose name expression gives nothing has ``name`` None (nothing to fetch).
    The namespace defaults to the workload's own.
    """
    issues = Issues(strict=True)
    own_namespace = (obj.get("metadata") or {}).get("namespace")
    requests = []
    for index, reference in enumerate(compiled.definition.spec.structure_definition.references):
        names = issues.outputs(compiled.expr(f"{_BASE}[{index}].nameExpression"), obj, None) or []
        spaces = issues.outputs(compiled.expr(f"{_BASE}[{index}].namespaceExpression"), obj, None)
        name = names[0] if names and isinstance(names[0], str) and names[0] else None
        namespace = spaces[0] if spaces and isinstance(spaces[0], str) else own_namespace
        requests.append(ReferenceRequest(reference.name, reference.kind, name, namespace))
    return requests


def bind_references(
    compiled: CompiledDefinition,
    obj: Mapping[str, Any],
    references: Mapping[str, Any] | None,
    variables: Mapping[str, Any] | None,
    issues: Issues,
) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """Variables for evaluation with every declared reference bound (``null`` when not
    given), and the references the object names that were not provided.

    A reference whose name expression gives no name does not apply to this object (a
    TrainJob names either a TrainingRuntime or a ClusterTrainingRuntime) and is not missing.
    """
    if not compiled.definition.spec.structure_definition.references:
        return (dict(variables) if variables else None), ()
    given = references or {}
    bound = dict(variables or {})
    missing = []
    try:
        requests = reference_requests(compiled, obj)
    except WlmapError as exc:
        issues.report(exc)
        requests = []
    for request in requests:
        value = given.get(request.reference)
        if value is None and request.name is not None:
            missing.append(request.reference)
        bound[request.reference] = value
    for reference in compiled.definition.spec.structure_definition.references:
        bound.setdefault(reference.name, None)
    return bound, tuple(missing)
