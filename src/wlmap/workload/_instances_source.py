"""One generated function per definition that reads an ordinary object's instances.

:func:`wlmap.workload.structure.extract_instances` reads every component through a
general loop: a plan per component, a reading object per component, a call per column
and per count. For an ordinary object the same work is a fixed sequence of reads that
depends on the definition alone, so it is written out once per definition as Python
source and compiled: each instance-id expression read once, each column read once, each
count checked in place, no step between them.

The generated function covers the ordinary case only. Anything the general reader would
report or convert (an instance id that is not a non-empty string, a column with the
wrong number of results, a count that is not a whole number in range, an expression
that fails) raises :class:`Unusual`, and the caller reads the object the general way,
which gives the error or the conversion. Reading is pure, so starting over is safe.

The source holds only names chosen here and Python literals of the definition's
component names (``repr``); expressions are called through the names ``R0``, ``R1``...
"""

from __future__ import annotations

from typing import Any

from wlmap.definitions.expressions import FRAGMENT_FIELDS
from wlmap.workload._direct_values import HELPERS
from wlmap.workload._fused_source import FusedLines
from wlmap.workload.compiled import CompiledDefinition, Expr
from wlmap.workload.structure import (
    MAX_BOUND,
    MAX_COUNT,
    ComponentPlan,
    Scale,
    component_plans,
)
from wlmap.workload.templates import (
    template_from_fragments,
    template_from_pod_spec,
    template_from_template_spec,
)


class Unusual(Exception):
    """The object is not an ordinary case: read it with the general reader."""


def instance_lines(compiled: CompiledDefinition, names: dict[str, Any]) -> list[str]:
    """Function-body lines that read ``obj``'s instances into ``instances`` (a dict of
    component name to its list of instances, in definition order, each instance an
    ``(id, template, scale)`` tuple: the fields of a
    :class:`~wlmap.workload.structure.Instance` but its component, made for nothing); the
    values they refer to are added to ``names``."""
    return _Source(compiled, names).build()


def instance_runtime() -> dict[str, Any]:
    """The helpers :func:`instance_lines` refers to, by name."""
    return dict(_RUNTIME)


class _Source:
    """The lines reading one definition's instances, and the names they use."""

    def __init__(self, compiled: CompiledDefinition, names: dict[str, Any]) -> None:
        self.compiled = compiled
        self.names = names
        self.lines: list[str] = []
        self.ids_by_text: dict[str, str] = {}
        self.fused = FusedLines()

    def build(self) -> list[str]:
        found = []
        for index, plan in enumerate(component_plans(self.compiled)):
            self._component(index, plan)
            found.append(f"{plan.name!r}: c{index}")
        self.lines.append(f"    instances = {{{', '.join(found)}}}")
        self.names.update(self.fused.names())
        return self.lines

    def _name(self, value: Any, prefix: str) -> str:
        name = f"{prefix}{len(self.names)}"
        self.names[name] = value
        return name

    def _read(self, expr: Expr) -> str:
        """An expression giving the outputs of ``expr`` on the object."""
        return f"{self._name(expr.read, 'R')}(obj, None)"

    def _column(self, plan: ComponentPlan, field: str) -> str:
        """An expression giving one value per instance of the field (None when unset)."""
        expr = plan.fields[field]
        if expr is None:
            return "[None] * n"
        return f"column({self._read(expr)}, n)"

    def _component(self, index: int, plan: ComponentPlan) -> None:
        add = self.lines.append
        add(f"    # {plan.name}")
        if not plan.named:
            if plan.bare:  # always the same one instance
                add(f"    c{index} = [{self._name((None, None, _NO_SCALE), 'A')}]")
                return
            fused = self.fused.alone(index, plan)
            if fused is not None:  # every column read in place
                self.lines += fused
                return
            add("    ids = ONE")
        else:
            assert plan.ids is not None
            if not plan.bare:
                fused = self.fused.elements(index, plan, self.compiled.max_outputs)
                if fused is not None:  # every column read from one list's elements
                    self.lines += fused
                    return
            known = self.ids_by_text.get(plan.ids.text)
            if known is None:  # instances named alike share their ids (checked once)
                known = self.ids_by_text[plan.ids.text] = f"ids{index}"
                add(f"    {known} = checked_ids({self._read(plan.ids)})")
            add(f"    ids = {known}")
            if plan.bare:
                add(f"    c{index} = [(i, None, NO_SCALE) for i in ids]")
                return
        add("    n = len(ids)")
        templates = self._templates(plan)
        scales = self._scales(plan)
        add(f"    c{index} = list(zip(ids, {templates}, {scales}))")

    def _templates(self, plan: ComponentPlan) -> str:
        add = self.lines.append
        spec = "specDefinition."
        if plan.spec_shape is None:
            return "NONES(n)"
        if plan.spec_shape == "template":
            add(
                f"    t = [from_template(v) for v in {self._column(plan, spec + 'podTemplateSpecPath')}]"
            )
        elif plan.spec_shape == "pod spec":
            specs = self._column(plan, spec + "podSpecPath")
            metas = self._column(plan, spec + "metadataPath")
            add(f"    t = [from_pod_spec(s, m) for s, m in zip({specs}, {metas})]")
        else:
            columns = [
                (f, self._column(plan, f"{spec}fragmentedPodSpecDefinition.{f}"))
                for f in FRAGMENT_FIELDS
            ]
            for position, (_, column) in enumerate(columns):
                add(f"    f{position} = {column}")
            entries = ", ".join(f"{f!r}: f{p}[x]" for p, (f, _) in enumerate(columns))
            add(f"    t = [from_fragments({{{entries}}}) for x in range(n)]")
        return "t"

    def _scales(self, plan: ComponentPlan) -> str:
        add = self.lines.append
        if plan.scale is None:
            return "SAME(NO_SCALE, n)"
        _, minimum, maximum = plan.scale
        paths = ("replicasPath", "minReplicasPath", "maxReplicasPath")
        if minimum is None and maximum is None:
            column = self._column(plan, f"scaleDefinition.{paths[0]}")
            add(f"    s = [replicas_only(v) for v in {column}]")
            return "s"
        r, m, x = (self._column(plan, f"scaleDefinition.{p}") for p in paths)
        add(f"    s = [bounded(a, b, c) for a, b, c in zip({r}, {m}, {x})]")
        return "s"


_ONE: tuple[None] = (None,)
_NO_SCALE = Scale()
_BY_REPLICAS = {count: Scale(count) for count in range(65)}


def _column(values: list[Any], count: int) -> list[Any]:
    """Outputs zipped with ``count`` instances, as the general reader zips them."""
    if len(values) == count:
        return values
    if count == 1 and not values:
        return [None]
    raise Unusual


def _checked_ids(values: list[Any]) -> list[Any]:
    for value in values:
        if type(value) is not str or not value:
            raise Unusual
    return values


def _replicas_only(value: Any) -> Scale:
    if type(value) is int and 0 <= value <= MAX_COUNT:
        scale = _BY_REPLICAS.get(value)
        return Scale(value) if scale is None else scale
    if value is None:
        return _NO_SCALE
    raise Unusual


def _bounded(replicas: Any, minimum: Any, maximum: Any) -> Scale:
    if (
        (replicas is None or (type(replicas) is int and 0 <= replicas <= MAX_COUNT))
        and (minimum is None or (type(minimum) is int and 0 <= minimum <= MAX_COUNT))
        and (maximum is None or (type(maximum) is int and 0 <= maximum <= MAX_BOUND))
    ):
        return Scale(replicas, minimum, maximum)
    raise Unusual


# What the generated source calls, by the names it uses.
_RUNTIME: dict[str, Any] = {
    **HELPERS,
    "ONE": _ONE,
    "NO_SCALE": _NO_SCALE,
    "NONES": lambda count: [None] * count,
    "SAME": lambda value, count: [value] * count,
    "column": _column,
    "checked_ids": _checked_ids,
    "replicas_only": _replicas_only,
    "bounded": _bounded,
    "from_template": template_from_template_spec,
    "from_pod_spec": template_from_pod_spec,
    "from_fragments": template_from_fragments,
}
