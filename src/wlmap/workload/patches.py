"""Write-back: pod scheduling fields of one component, as a patch that touches nothing else."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wlmap.definitions import Definition
from wlmap.errors import ExpressionError, WriteBackError
from wlmap.workload._jsonpatch import PatchBuilder, Path, lookup
from wlmap.workload.compiled import CompiledDefinition, Expr, component_base, prepare


@dataclass(frozen=True)
class PodChanges:
    """Scheduling fields to write into a component's pods.

    Maps merge key by key (a ``None`` value removes the key); tolerations and scheduling
    gates are appended unless already present; resource claims are added or replaced by
    name; ``affinity`` replaces the given parts (``nodeAffinity``, ``podAffinity``,
    ``podAntiAffinity``) and keeps the others.
    """

    scheduler_name: str | None = None
    priority_class_name: str | None = None
    labels: Mapping[str, str | None] = field(default_factory=dict)
    annotations: Mapping[str, str | None] = field(default_factory=dict)
    node_selector: Mapping[str, str | None] = field(default_factory=dict)
    tolerations: Sequence[Mapping[str, Any]] = ()
    scheduling_gates: Sequence[str] = ()
    resource_claims: Sequence[Mapping[str, Any]] = ()
    affinity: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Patch:
    """A change to a workload object in both patch formats, and the object it produces."""

    json_patch: list[dict[str, Any]]
    merge_patch: dict[str, Any]
    patched: dict[str, Any]


# Where each pod field lives: (fragmented path field, path inside a normalized template).
_FIELDS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "schedulerName": ("schedulerNamePath", ("spec", "schedulerName")),
    "priorityClassName": ("priorityClassNamePath", ("spec", "priorityClassName")),
    "labels": ("labelsPath", ("metadata", "labels")),
    "annotations": ("annotationsPath", ("metadata", "annotations")),
    "nodeSelector": (None, ("spec", "nodeSelector")),
    "tolerations": (None, ("spec", "tolerations")),
    "schedulingGates": (None, ("spec", "schedulingGates")),
    "resourceClaims": ("resourceClaimsPath", ("spec", "resourceClaims")),
    "affinity.nodeAffinity": ("nodeAffinityPath", ("spec", "affinity", "nodeAffinity")),
    "affinity.podAffinity": ("podAffinityPath", ("spec", "affinity", "podAffinity")),
    "affinity.podAntiAffinity": (None, ("spec", "affinity", "podAntiAffinity")),
}


def patch_pods(
    definition: Definition | CompiledDefinition,
    obj: Mapping[str, Any],
    component: str,
    changes: PodChanges,
    *,
    instance: str | None = None,
    variables: Mapping[str, Any] | None = None,
) -> Patch:
    """The patch that writes ``changes`` into the pods of ``component`` (one or all instances).

    Raises:
        WriteBackError: unknown component or instance, no pod spec, a field the spec shape
            has no path for, or a read-only projection.
    """
    locator = _Locator(prepare(definition), obj, component, instance, variables)
    builder = PatchBuilder(obj)
    for index in locator.indexes:
        _write(builder, locator, index, changes)
    return Patch(builder.ops, builder.merge_patch(), builder.doc)


def _write(builder: PatchBuilder, locator: _Locator, index: int, changes: PodChanges) -> None:
    if changes.scheduler_name is not None:
        builder.set(locator.path("schedulerName", index), changes.scheduler_name)
    if changes.priority_class_name is not None:
        builder.set(locator.path("priorityClassName", index), changes.priority_class_name)
    for name, values in (
        ("labels", changes.labels),
        ("annotations", changes.annotations),
        ("nodeSelector", changes.node_selector),
    ):
        if values:
            base = locator.path(name, index)
            for key, value in values.items():
                if value is None:
                    builder.remove([*base, key])
                else:
                    builder.set([*base, key], value)
    for toleration in changes.tolerations:
        path = locator.path("tolerations", index)
        if toleration not in (_list_at(builder.doc, path)):
            builder.append(path, dict(toleration))
    for gate in changes.scheduling_gates:
        path = locator.path("schedulingGates", index)
        if all(
            g.get("name") != gate for g in _list_at(builder.doc, path) if isinstance(g, Mapping)
        ):
            builder.append(path, {"name": gate})
    for claim in changes.resource_claims:
        path = locator.path("resourceClaims", index)
        current = _list_at(builder.doc, path)
        position = next(
            (
                i
                for i, c in enumerate(current)
                if isinstance(c, Mapping) and c.get("name") == claim.get("name")
            ),
            None,
        )
        if position is None:
            builder.append(path, dict(claim))
        else:
            builder.set([*path, position], dict(claim))
    for part, value in changes.affinity.items():
        builder.set(locator.path(f"affinity.{part}", index), value)


def _list_at(doc: Any, path: Path) -> list[Any]:
    value = lookup(doc, path)
    return value if isinstance(value, list) else []


class _Locator:
    """Resolves where a pod field of a component instance lives in the object."""

    def __init__(
        self,
        compiled: CompiledDefinition,
        obj: Mapping[str, Any],
        component: str,
        instance: str | None,
        variables: Mapping[str, Any] | None,
    ) -> None:
        if component not in compiled.components:
            known = ", ".join(compiled.order)
            raise WriteBackError(f"{compiled.name}: no component {component!r} (known: {known})")
        self.compiled, self.obj, self.component, self.variables = (
            compiled,
            obj,
            component,
            variables,
        )
        self.base = component_base(compiled, component)
        self.spec = compiled.components[component].spec_definition
        if self.spec is None:
            raise WriteBackError(
                f"{compiled.name}: component {component!r} describes no pods to write to"
            )
        ids: list[str | None] = [None]
        id_expr = compiled.expr(f"{self.base}.instanceIdPath")
        if id_expr is not None:
            ids = [str(i) for i in id_expr.all(obj, variables)]
        if instance is not None and instance not in ids:
            raise WriteBackError(
                f"{compiled.name}: component {component!r} has no instance {instance!r}"
            )
        self.count = len(ids)
        self.indexes = [ids.index(instance)] if instance is not None else list(range(len(ids)))
        self._cache: dict[str, list[Path]] = {}

    def path(self, name: str, index: int) -> Path:
        fragment_field, inner = _FIELDS[name]
        assert self.spec is not None
        if self.spec.pod_template_spec_path is not None:
            return [*self._paths("specDefinition.podTemplateSpecPath")[index], *inner]
        if self.spec.pod_spec_path is not None or self.spec.metadata_path is not None:
            holder = "podSpecPath" if inner[0] == "spec" else "metadataPath"
            if (
                getattr(self.spec, "pod_spec_path" if holder == "podSpecPath" else "metadata_path")
                is None
            ):
                raise self._refuse(name, f"the component has no {holder}")
            return [*self._paths(f"specDefinition.{holder}")[index], *inner[1:]]
        if fragment_field is None:
            raise self._refuse(name, "fragmentedPodSpecDefinition has no path for it")
        if (
            self.compiled.expr(
                f"{self.base}.specDefinition.fragmentedPodSpecDefinition.{fragment_field}"
            )
            is None
        ):
            raise self._refuse(name, f"fragmentedPodSpecDefinition sets no {fragment_field}")
        return list(
            self._paths(f"specDefinition.fragmentedPodSpecDefinition.{fragment_field}")[index]
        )

    def _paths(self, field_name: str) -> list[Path]:
        if field_name not in self._cache:
            expr = self.compiled.expr(f"{self.base}.{field_name}")
            assert expr is not None
            self._cache[field_name] = self._resolve(expr, field_name)
        return self._cache[field_name]

    def _resolve(self, expr: Expr, field_name: str) -> list[Path]:
        try:
            paths = expr.paths(self.obj, self.variables)
        except ExpressionError as exc:
            raise WriteBackError(
                f"{self.compiled.name}: component {self.component!r}: {field_name} {expr.text!r} is a "
                f"read-only projection, so it cannot be written back ({exc.reason})"
            ) from exc
        if len(paths) != self.count:
            raise WriteBackError(
                f"{self.compiled.name}: component {self.component!r}: {field_name} designates "
                f"{len(paths)} location(s) for {self.count} instance(s)"
            )
        return [list(p) for p in paths]

    def _refuse(self, name: str, why: str) -> WriteBackError:
        return WriteBackError(
            f"{self.compiled.name}: component {self.component!r}: cannot write {name}: {why}"
        )
