"""Objects a workload refers to: what the caller must fetch, and binding what it passed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.gvk import GroupVersionKind
from wlmap.errors import ExpressionError, WlmapError
from wlmap.workload._issues import Issues
from wlmap.workload.compiled import CompiledDefinition

_BASE = "spec.structureDefinition.references"


_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
# a label key: an optional DNS subdomain prefix and "/", then a name like a non-empty value
_LABEL_KEY = re.compile(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
)


@dataclass(frozen=True)
class ReferenceRequest:
    """What to fetch before interpreting: one object by name, or a selection.

    A selection (``many``) is every object of ``kind`` in ``namespace`` that carries all of
    ``labels`` and, when ``owner`` is set, whose controller owner is the workload.
    """

    reference: str
    kind: GroupVersionKind
    name: str | None
    namespace: str | None
    many: bool = False
    labels: Mapping[str, str] | None = None
    owner: OwnerKey | None = None

    @property
    def applies(self) -> bool:
        """There is something to fetch: a name, or a selection by owner or labels (a
        selector expression that gives nothing selects nothing, as a missing name does)."""
        if self.many:
            return self.owner is not None or self.labels is not None
        return self.name is not None

    @property
    def label_selector(self) -> str | None:
        """The labels as an API ``labelSelector`` (equality terms), or None."""
        if not self.labels:
            return None
        return ",".join(f"{key}={value}" for key, value in sorted(self.labels.items()))


@dataclass(frozen=True)
class OwnerKey:
    """The workload as a controller owner reference names it."""

    api_version: str | None
    kind: str | None
    name: str | None
    uid: str | None


def reference_requests(
    compiled: CompiledDefinition, obj: Mapping[str, Any]
) -> list[ReferenceRequest]:
    """The objects the definition's references point at, for the caller to fetch.

    A reference whose name expression gives nothing has ``name`` None (nothing to fetch).
    The namespace defaults to the workload's own.

    Raises:
        ExpressionError: an expression fails, or a label selector expression gives
            something other than a map of label names to valid label values.
    """
    issues = Issues(strict=True)
    metadata = obj.get("metadata") or {}
    own_namespace = metadata.get("namespace")
    requests = []
    for index, reference in enumerate(compiled.definition.spec.structure_definition.references):
        base = f"{_BASE}[{index}]"
        spaces = issues.outputs(compiled.expr(f"{base}.namespaceExpression"), obj, None)
        namespace = spaces[0] if spaces and isinstance(spaces[0], str) else own_namespace
        if reference.selects_many:
            labels = _labels(compiled, f"{base}.labelSelectorExpression", obj, issues)
            owner = None
            if reference.owned_by_workload:
                owner = OwnerKey(
                    obj.get("apiVersion"),
                    obj.get("kind"),
                    metadata.get("name"),
                    metadata.get("uid"),
                )
            requests.append(
                ReferenceRequest(
                    reference.name, reference.kind, None, namespace, True, labels, owner
                )
            )
            continue
        names = issues.outputs(compiled.expr(f"{base}.nameExpression"), obj, None) or []
        name = names[0] if names and isinstance(names[0], str) and names[0] else None
        requests.append(ReferenceRequest(reference.name, reference.kind, name, namespace))
    return requests


def _labels(
    compiled: CompiledDefinition, path: str, obj: Mapping[str, Any], issues: Issues
) -> dict[str, str] | None:
    """The label map a selector expression gives (its first output), checked."""
    expr = compiled.expr(path)
    outputs = issues.outputs(expr, obj, None)
    if expr is None or not outputs or outputs[0] is None:
        return None
    found = outputs[0]
    bad = (
        None
        if isinstance(found, dict)
        else "a map of label names to values, got " + type(found).__name__
    )
    for key, value in found.items() if isinstance(found, dict) else ():
        if not isinstance(key, str) or not _valid_key(key):
            bad = f"label names such as app.kubernetes.io/part-of, got {key!r}"
        elif not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
            bad = f"valid label values (at most 63 letters, digits, '-', '_', '.'), got {key}={value!r}"
        if bad:
            break
    if bad:
        raise expr.located(ExpressionError(f"expected {bad}", expr.text))
    return {str(key): str(value) for key, value in found.items()}


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
    A selection is bound as the list given (empty when none) and is never missing: an input
    cannot tell "none exist" from "none read".
    """
    if not compiled.references:
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
        if request.many:
            # a selection is whatever the input holds: none found is an empty list
            value = list(value) if isinstance(value, (list, tuple)) else []
        elif value is None and request.name is not None:
            missing.append(request.reference)
        bound[request.reference] = value
    for reference in compiled.definition.spec.structure_definition.references:
        bound.setdefault(reference.name, [] if reference.selects_many else None)
    return bound, tuple(missing)


def _valid_key(key: str) -> bool:
    prefix, _, name = key.rpartition("/")
    return len(prefix) <= 253 and len(name) <= 63 and bool(_LABEL_KEY.fullmatch(key))
