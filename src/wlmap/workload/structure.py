"""Component instances: their ids, pod templates and replica counts, zipped safely."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.expressions import FRAGMENT_FIELDS
from wlmap.definitions.structure import ComponentDefinition
from wlmap.errors import WorkloadShapeError
from wlmap.workload._issues import Issues
from wlmap.workload._keys import key_text
from wlmap.workload.compiled import CompiledDefinition, component_base
from wlmap.workload.templates import (
    template_from_fragments,
    template_from_pod_spec,
    template_from_template_spec,
)


@dataclass(frozen=True)
class Scale:
    """Replica counts of one component instance, per unit of its parent."""

    replicas: int | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None

    @property
    def desired(self) -> int:
        """Replicas, else minReplicas, else 1."""
        if self.replicas is not None:
            return self.replicas
        return self.min_replicas if self.min_replicas is not None else 1

    @property
    def minimum(self) -> int:
        """minReplicas, else the desired count (what a gang needs at least)."""
        return self.min_replicas if self.min_replicas is not None else self.desired


@dataclass(frozen=True)
class Instance:
    """One instance of a component as read from the object."""

    component: str
    instance: str | None
    template: dict[str, Any] | None
    scale: Scale


def extract_instances(
    compiled: CompiledDefinition,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None = None,
) -> dict[str, list[Instance]]:
    """Every component's instances, keyed by component name, in definition order."""
    out: dict[str, list[Instance]] = {}
    for name in compiled.order:
        out[name] = _component_instances(
            compiled, compiled.components[name], obj, issues, variables
        )
    return out


def _component_instances(
    compiled: CompiledDefinition,
    component: ComponentDefinition,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None,
) -> list[Instance]:
    base = component_base(compiled, component.name)
    ids: list[str | None] = [None]
    id_outputs = issues.outputs(compiled.expr(f"{base}.instanceIdPath"), obj, variables)
    if component.instance_id_path is not None:
        if id_outputs is None:
            return []
        ids = []
        for value in id_outputs:
            if value is None or value == "" or isinstance(value, (dict, list)):
                issues.report(
                    WorkloadShapeError(
                        f"{compiled.name}: component {component.name!r}: instanceIdPath "
                        f"{component.instance_id_path!r} gave {value!r}; every instance id must be a "
                        "non-empty string"
                    )
                )
                return []
            ids.append(key_text(value))

    def column(field: str) -> list[Any]:
        expr = compiled.expr(f"{base}.{field}")
        values = issues.outputs(expr, obj, variables)
        return _align(
            values, len(ids), component.name, field, compiled.name, issues, expr is not None
        )

    templates = _templates(component, column, len(ids))
    scales = _scales(component, column, compiled.name, issues, len(ids))
    return [
        Instance(component.name, instance_id, templates[i], scales[i])
        for i, instance_id in enumerate(ids)
    ]


def _templates(
    component: ComponentDefinition, column: Callable[[str], list[Any]], count: int
) -> list[dict[str, Any] | None]:
    spec = component.spec_definition
    if spec is None:
        return [None] * count
    if spec.pod_template_spec_path is not None:
        return [
            template_from_template_spec(v) for v in column("specDefinition.podTemplateSpecPath")
        ]
    if spec.pod_spec_path is not None or spec.metadata_path is not None:
        specs = column("specDefinition.podSpecPath")
        metas = column("specDefinition.metadataPath")
        return [template_from_pod_spec(s, m) for s, m in zip(specs, metas, strict=True)]
    columns = {
        f: column(f"specDefinition.fragmentedPodSpecDefinition.{f}") for f in FRAGMENT_FIELDS
    }
    return [
        template_from_fragments({f: columns[f][i] for f in FRAGMENT_FIELDS}) for i in range(count)
    ]


def _scales(
    component: ComponentDefinition,
    column: Callable[[str], list[Any]],
    definition: str,
    issues: Issues,
    count: int,
) -> list[Scale]:
    fields = ("replicasPath", "minReplicasPath", "maxReplicasPath")
    if component.scale_definition is None:
        return [Scale()] * count
    values = [column(f"scaleDefinition.{f}") for f in fields]
    scales = []
    for replicas, minimum, maximum in zip(*values, strict=True):
        numbers = []
        for field, raw in zip(fields, (replicas, minimum, maximum), strict=True):
            numbers.append(_count(raw, definition, component.name, field, issues))
        scales.append(Scale(*numbers))
    return scales


def _align(
    values: list[Any] | None,
    count: int,
    component: str,
    field: str,
    definition: str,
    issues: Issues,
    present: bool,
) -> list[Any]:
    """Zip a stream of outputs with the instance ids; a count mismatch is an error."""
    if values is None:
        return [None] * count
    if count == 1 and len(values) <= 1:
        return [values[0] if values else None]
    if len(values) != count:
        if present:
            issues.report(
                WorkloadShapeError(
                    f"{definition}: component {component!r}: {field} gave {len(values)} result(s) for "
                    f"{count} instance(s); each instance needs exactly one (instances left without it)"
                )
            )
        return [None] * count
    return values


def _count(value: Any, definition: str, component: str, field: str, issues: Issues) -> int | None:
    """A replica count from a number or a numeric string; None when absent."""
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        return value
    elif isinstance(value, float):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not math.isfinite(number) or number != int(number) or number < 0:
        issues.report(
            WorkloadShapeError(
                f"{definition}: component {component!r}: scaleDefinition.{field} gave {value!r}; "
                "expected a whole non-negative number (or a string holding one)"
            )
        )
        return None
    return int(number)
