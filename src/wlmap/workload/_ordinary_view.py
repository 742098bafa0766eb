"""The view of an ordinary object, built by code generated once per definition.

Most calls interpret one object alone (no pods, claims, references or variables) with a
trusted definition and meet nothing unusual: every expression gives what it should and
every count is in range. For them the instances and component rows
(:mod:`~wlmap.workload._instances_source`, :mod:`~wlmap.workload._rows_source`), the
status report (:mod:`~wlmap.workload._status_source`) and the gangs
(:mod:`~wlmap.workload._gangs_source`) come from functions written out for the
definition, with no general step between them. When anything is not ordinary this
returns None and :func:`~wlmap.workload.interpret` takes the general path, which reports
each problem where it is. Both paths give the same view of an ordinary object; the tests
compare them on every corpus object and catalog case (decision 13).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wlmap.errors import WlmapError
from wlmap.workload._gangs_source import Row, gangs_reader
from wlmap.workload._instances_source import Unusual, instance_lines, instance_runtime
from wlmap.workload._rows_source import NotWritten, row_lines, row_runtime
from wlmap.workload._status_source import status_reader
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.gangs import GangGroup
from wlmap.workload.resources import PodResources
from wlmap.workload.suspend import suspend_reader
from wlmap.workload.view import ComponentView, WorkloadView, object_names


def ordinary_view(
    compiled: CompiledDefinition, obj: Mapping[str, Any], strict: bool
) -> WorkloadView | None:
    """The view of ``obj`` when nothing in it is unusual, else None."""
    # an untrusted definition keeps the general path alone: a hostile expression that
    # fails is then evaluated (and bounded) once, not once per path
    if compiled.references or not compiled.trusted:
        return None
    read = _reader(compiled)
    if read is None:
        return None
    try:
        instances, components, totals = read(obj)
        status = status_reader(compiled)(obj)
    except (Unusual, WlmapError):
        return None

    def gangs() -> tuple[GangGroup, ...]:
        # no pods: the gangs are counted from the instances alone, with no expression
        return gangs_reader(compiled)(instances)

    # positional: the record's field order
    return WorkloadView(
        *object_names(obj),
        compiled.name,
        status.phases,
        tuple(components),
        totals,
        sum([c.pods for c in components]),
        gangs,
        status,
        suspend_reader(compiled, obj, status.phases, strict),
        None,
        (),
        (),
        tuple,
        tuple,
    )


Reader = Callable[
    [Mapping[str, Any]],
    tuple[dict[str, list[Row]], list[ComponentView], PodResources],
]


def _reader(compiled: CompiledDefinition) -> Reader | None:
    """The function generated for ``compiled``: its instances, component rows and totals
    from an object (made once per definition); None when the definition's rows need the
    general lookup by id."""
    if "ordinary reader" in compiled.memo:
        known: Reader | None = compiled.memo["ordinary reader"]
        return known
    names: dict[str, Any] = {}
    try:
        lines = [
            "def read(obj):",
            *instance_lines(compiled, names),
            *row_lines(compiled, names),
            "    return instances, views, totals",
        ]
    except NotWritten:
        compiled.memo["ordinary reader"] = None
        return None
    namespace: dict[str, Any] = {**instance_runtime(), **row_runtime(), **names}
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<view of {compiled.name}>", "exec"), namespace)
    reader: Reader = namespace["read"]
    compiled.memo["ordinary reader"] = reader
    return reader
