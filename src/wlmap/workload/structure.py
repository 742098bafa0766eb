"""Component instances: their ids, pod templates and replica counts, zipped safely."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.expressions import FRAGMENT_FIELDS
from wlmap.definitions.structure import ComponentDefinition
from wlmap.errors import WorkloadShapeError
from wlmap.workload._issues import Issues
from wlmap.workload._keys import key_text
from wlmap.workload._records import record
from wlmap.workload.compiled import CompiledDefinition, Expr, component_base
from wlmap.workload.templates import (
    template_from_fragments,
    template_from_pod_spec,
    template_from_template_spec,
)


@record
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


@record
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
    # Ids read so far, by expression text: a child keyed like its parent (a JobSet's
    # replicatedJob and its pods) names its instances with the same expression.
    ids: dict[str, list[Any]] = {}
    return {
        plan.name: _component_instances(compiled.name, plan, obj, issues, variables, ids)
        for plan in component_plans(compiled)
    }


@dataclass(frozen=True)
class ComponentPlan:
    """One component's reading, worked out once per definition: its expressions by field
    (``None`` when unset) and which shape its pod spec has."""

    component: ComponentDefinition
    name: str
    named: bool  # instances are named by instanceIdPath
    ids: Expr | None
    fields: Mapping[str, Expr | None]
    # "template", "pod spec", "fragments", or None without a specDefinition
    spec_shape: str | None
    scale: tuple[Expr | None, Expr | None, Expr | None] | None
    # neither a pod spec nor a scale: instances are their ids alone
    bare: bool
    # the one instance of a bare component without instance ids
    alone: Instance


def component_plans(compiled: CompiledDefinition) -> tuple[ComponentPlan, ...]:
    plans: tuple[ComponentPlan, ...] | None = compiled.memo.get("structure")
    if plans is None:
        plans = compiled.memo["structure"] = tuple(
            _plan(compiled, compiled.components[name]) for name in compiled.order
        )
    return plans


_FIELDS = (
    "specDefinition.podTemplateSpecPath",
    "specDefinition.podSpecPath",
    "specDefinition.metadataPath",
    *(f"specDefinition.fragmentedPodSpecDefinition.{f}" for f in FRAGMENT_FIELDS),
)


def _plan(compiled: CompiledDefinition, component: ComponentDefinition) -> ComponentPlan:
    base = component_base(compiled, component.name)
    fields = {f: compiled.expr(f"{base}.{f}") for f in (*_FIELDS, *_SCALE_PATHS)}
    spec = component.spec_definition
    shape = None
    if spec is not None:
        shape = "fragments"
        if spec.pod_template_spec_path is not None:
            shape = "template"
        elif spec.pod_spec_path is not None or spec.metadata_path is not None:
            shape = "pod spec"
    scale = None
    if component.scale_definition is not None:
        scale = (fields[_SCALE_PATHS[0]], fields[_SCALE_PATHS[1]], fields[_SCALE_PATHS[2]])
    return ComponentPlan(
        component,
        component.name,
        component.instance_id_path is not None,
        compiled.expr(f"{base}.instanceIdPath"),
        fields,
        shape,
        scale,
        spec is None and scale is None,
        Instance(component.name, None, None, _NO_SCALE),
    )


class _Reading:
    """What reading one component's columns needs: where they come from and how many."""

    __slots__ = ("count", "definition", "issues", "obj", "plan", "variables")

    def __init__(
        self,
        plan: ComponentPlan,
        definition: str,
        obj: Mapping[str, Any],
        issues: Issues,
        variables: Mapping[str, Any] | None,
        count: int,
    ) -> None:
        self.plan, self.definition, self.obj = plan, definition, obj
        self.issues, self.variables, self.count = issues, variables, count

    def column(self, field: str) -> list[Any]:
        """One value per instance from the field's expression (``None`` when unset)."""
        return self.values(self.plan.fields[field], field)

    def values(self, expr: Expr | None, field: str) -> list[Any]:
        """One value per instance from ``expr``, the expression of ``field``."""
        if expr is None:
            return [None] * self.count
        values = self.issues.outputs(expr, self.obj, self.variables)
        if values is not None and len(values) == self.count:
            return values
        name = self.plan.name
        return _align(values, self.count, name, field, self.definition, self.issues, True)


_ONE_UNNAMED: tuple[None] = (None,)


def _component_instances(
    definition: str,
    plan: ComponentPlan,
    obj: Mapping[str, Any],
    issues: Issues,
    variables: Mapping[str, Any] | None,
    known_ids: dict[str, list[Any]],
) -> list[Instance]:
    name = plan.name
    ids: Sequence[str | None]
    if not plan.named:
        if plan.bare:  # a grouping component read from nothing: always the same
            return [plan.alone]
        ids = _ONE_UNNAMED
    else:
        text = plan.ids.text if plan.ids is not None else ""
        id_outputs = known_ids.get(text)
        if id_outputs is None:  # a failed read is repeated: its error names this component
            id_outputs = issues.outputs(plan.ids, obj, variables)
            if id_outputs is None:
                return []
            known_ids[text] = id_outputs
        ids = id_outputs
        for value in id_outputs:
            if type(value) is not str or not value:
                checked = _instance_ids(definition, plan.component, id_outputs, issues)
                if checked is None:
                    return []
                ids = checked
                break
        if plan.bare:
            return [Instance(name, instance_id, None, _NO_SCALE) for instance_id in ids]
    reading = _Reading(plan, definition, obj, issues, variables, len(ids))
    templates = _templates(plan.spec_shape, reading)
    scales = _scales(plan.scale, reading)
    if len(ids) == 1:
        return [Instance(name, ids[0], templates[0], scales[0])]
    return [
        Instance(name, instance_id, template, scale)
        for instance_id, template, scale in zip(ids, templates, scales, strict=True)
    ]


def _instance_ids(
    definition: str, component: ComponentDefinition, outputs: list[Any], issues: Issues
) -> list[str] | None:
    """Instance ids from the outputs of ``instanceIdPath``; None (and an error) when one is
    not a non-empty scalar."""
    ids = []
    for value in outputs:
        if value is None or value == "" or isinstance(value, (dict, list)):
            issues.report(
                WorkloadShapeError(
                    f"{definition}: component {component.name!r}: instanceIdPath "
                    f"{component.instance_id_path!r} gave {value!r}; every instance id must be a "
                    "non-empty string"
                )
            )
            return None
        ids.append(value if type(value) is str else key_text(value))
    return ids


def _templates(shape: str | None, reading: _Reading) -> list[dict[str, Any] | None]:
    if shape is None:
        return [None] * reading.count
    if shape == "template":
        return [
            template_from_template_spec(v)
            for v in reading.column("specDefinition.podTemplateSpecPath")
        ]
    if shape == "pod spec":
        specs = reading.column("specDefinition.podSpecPath")
        metas = reading.column("specDefinition.metadataPath")
        return [template_from_pod_spec(s, m) for s, m in zip(specs, metas, strict=True)]
    columns = {
        f: reading.column(f"specDefinition.fragmentedPodSpecDefinition.{f}")
        for f in FRAGMENT_FIELDS
    }
    return [
        template_from_fragments({f: columns[f][i] for f in FRAGMENT_FIELDS})
        for i in range(reading.count)
    ]


_SCALE_FIELDS = ("replicasPath", "minReplicasPath", "maxReplicasPath")
_SCALE_PATHS = tuple(f"scaleDefinition.{f}" for f in _SCALE_FIELDS)
_NO_SCALE = Scale()
# Scales of the commonest replica counts, shared (they are immutable)
_BY_REPLICAS = {count: Scale(count) for count in range(65)}


def _scales(
    exprs: tuple[Expr | None, Expr | None, Expr | None] | None, reading: _Reading
) -> list[Scale]:
    if exprs is None:
        return [_NO_SCALE] * reading.count
    definition, name, issues = reading.definition, reading.plan.name, reading.issues
    replicas, minimum, maximum = exprs
    if minimum is None and maximum is None:  # the common case: replicas alone
        scales = []
        for value in reading.values(replicas, _SCALE_PATHS[0]):
            if type(value) is int and 0 <= value <= MAX_COUNT:
                scale = _BY_REPLICAS.get(value)
                scales.append(Scale(value) if scale is None else scale)
            else:
                scales.append(Scale(_count(value, definition, name, "replicasPath", issues)))
        return scales
    values = [reading.values(e, p) for e, p in zip(exprs, _SCALE_PATHS, strict=True)]
    scales = []
    for replicas, minimum, maximum in zip(*values, strict=True):
        if (  # whole counts in range or absent, the usual values, are taken as they are
            (replicas is None or (type(replicas) is int and 0 <= replicas <= MAX_COUNT))
            and (minimum is None or (type(minimum) is int and 0 <= minimum <= MAX_COUNT))
            and (maximum is None or (type(maximum) is int and 0 <= maximum <= MAX_BOUND))
        ):
            scales.append(Scale(replicas, minimum, maximum))
            continue
        scales.append(
            Scale(
                _count(replicas, definition, name, _SCALE_FIELDS[0], issues),
                _count(minimum, definition, name, _SCALE_FIELDS[1], issues),
                _count(maximum, definition, name, _SCALE_FIELDS[2], issues, MAX_BOUND),
            )
        )
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


def _count(
    value: Any,
    definition: str,
    component: str,
    field: str,
    issues: Issues,
    ceiling: int | None = None,
) -> int | None:
    """A replica count from a number or a numeric string; None when absent or impossible.

    A count must be a whole number from 0 to :data:`MAX_COUNT` (``ceiling`` for a bound
    that asks for no pods, such as maxReplicas); numeric strings are
    decimal (``"3"``, ``" 3 "``, ``"3.0"``), without exponents, underscores or
    ``inf``/``nan``, which Python's ``float`` would otherwise accept.
    """
    if value is None:
        return None
    most = MAX_COUNT if ceiling is None else ceiling
    if type(value) is int and 0 <= value <= most:
        return value
    number: float | None = None
    if type(value) is int or type(value) is float:
        number = value
    elif type(value) is str and _DECIMAL.fullmatch(value):
        number = float(value)
    if (
        number is None
        or not math.isfinite(number)
        or not 0 <= number <= most
        or number != int(number)
    ):
        issues.report(
            WorkloadShapeError(
                f"{definition}: component {component!r}: scaleDefinition.{field} gave "
                f"{_shown(value)}; "
                f"expected a whole number from 0 to {most:,} (or a string holding one)"
            )
        )
        return None
    return int(number)


def _shown(value: Any) -> str:
    """A value as the message shows it: integers beyond doubles' precision (jq's numbers)
    as the double they came from (``1e+38``, not 38 digits of noise)."""
    if type(value) is int and abs(value) > 2**53:
        return repr(float(value))
    return repr(value)


# More pods than any cluster runs for one component: a count above it is a mistake (or
# hostile), and multiplied through nested components it would overflow every total.
MAX_COUNT = 1_000_000
# An upper bound asks for no pods and operators write int32's largest value for "none"
# (KubeRay's maxReplicas): the largest a Kubernetes replica field holds.
MAX_BOUND = 2**31 - 1
_DECIMAL = re.compile(r"\s*[+-]?[0-9]+(?:\.[0-9]*)?\s*")
