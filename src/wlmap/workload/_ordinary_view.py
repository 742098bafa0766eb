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
from wlmap.workload._direct_values import Fallback
from wlmap.workload._gangs_source import GangsReader, Row, gangs_reader
from wlmap.workload._instances_source import Unusual, instance_lines, instance_runtime
from wlmap.workload._issues import Issues
from wlmap.workload._rows_source import NotWritten, row_lines, row_runtime
from wlmap.workload._stages import read_stages, stage_component
from wlmap.workload._status_source import StatusReader, status_reader
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.gangs import GangGroup, gang_groups
from wlmap.workload.resources import PodResources
from wlmap.workload.structure import Instance
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
    generated = _generated(compiled)
    if generated is None:
        return None
    read, read_status, read_gangs = generated
    try:
        instances, components, totals = read(obj)
        status = read_status(obj)
    except (Unusual, Fallback, WlmapError):
        return None

    staged = stage_component(compiled)

    def gangs() -> tuple[GangGroup, ...]:
        if staged is not None:
            # a podGroup split by start stages reads what each instance waits for; when
            # nothing waits, the gangs are the generated reader's
            issues = Issues(strict=strict)
            ids = [row[0] for row in instances.get(staged, ())]
            stages = read_stages(compiled, obj, ids, None, issues)
            if stages is not None:
                found = {n: [Instance(n, *row) for row in rows] for n, rows in instances.items()}
                split = gang_groups(compiled, found, None, None, issues, stages=stages)
                return tuple(split)
        # no pods: the gangs are counted from the instances alone, with no expression
        return read_gangs(instances)

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


def _generated(
    compiled: CompiledDefinition,
) -> tuple[Reader, StatusReader, GangsReader] | None:
    """The functions generated for ``compiled`` (made once per definition): its instances,
    component rows and totals, its status report, its gangs. None when the definition's
    rows need the general lookup by id, or its expressions nest too deeply for Python to
    compile them written out."""
    if "ordinary" in compiled.memo:
        known: tuple[Reader, StatusReader, GangsReader] | None = compiled.memo["ordinary"]
        return known
    names: dict[str, Any] = {}
    try:
        lines = [
            "def read(obj):",
            *instance_lines(compiled, names),
            *row_lines(compiled, names),
            "    return instances, views, totals",
        ]
        namespace: dict[str, Any] = {**instance_runtime(), **row_runtime(), **names}
        source = "\n".join(lines) + "\n"
        exec(compile(source, f"<view of {compiled.name}>", "exec"), namespace)
        found = (namespace["read"], status_reader(compiled), gangs_reader(compiled))
    except (NotWritten, RecursionError, SyntaxError, MemoryError):
        found = None
    compiled.memo["ordinary"] = found
    return found
