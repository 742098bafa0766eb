"""The view of an ordinary object, built without the general path's bookkeeping.

Most calls interpret one object alone (no pods, claims, references or variables) and meet
nothing unusual: every expression gives what it should and every count is in range. For
them the instances come from one generated function per definition
(:mod:`wlmap.workload._instances_source`), and the rest of the view is built from them
directly. When anything is not ordinary this returns None and :func:`interpret` takes the
general path, which reports each problem where it is; both paths give the same view for
an ordinary object (the tests compare them on every corpus object).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wlmap.errors import WlmapError
from wlmap.workload._gangs_source import gangs_reader
from wlmap.workload._instances_source import Unusual, instance_lines, instance_runtime
from wlmap.workload._rows_source import row_lines, row_runtime
from wlmap.workload._status_source import status_reader
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.gangs import GangGroup
from wlmap.workload.resources import PodResources
from wlmap.workload.structure import Instance
from wlmap.workload.suspend import suspend_reader
from wlmap.workload.view import ComponentView, WorkloadView


def ordinary_view(
    compiled: CompiledDefinition, obj: Mapping[str, Any], strict: bool
) -> WorkloadView | None:
    """The view of ``obj`` when nothing in it is unusual, else None."""
    if compiled.references:
        return None
    try:
        instances, components, totals = _reader(compiled)(obj)
        status = status_reader(compiled)(obj)
    except (Unusual, WlmapError):
        return None

    def gangs() -> tuple[GangGroup, ...]:
        # no pods: the gangs are counted from the instances alone, with no expression
        return gangs_reader(compiled)(instances)

    raw_metadata = obj.get("metadata")
    metadata: Mapping[str, Any] = (
        raw_metadata if type(raw_metadata) is dict or isinstance(raw_metadata, Mapping) else {}
    )
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    name, namespace = metadata.get("name"), metadata.get("namespace")
    # positional: the record's field order
    return WorkloadView(
        api_version if isinstance(api_version, str) else None,
        kind if isinstance(kind, str) else None,
        name if isinstance(name, str) else None,
        namespace if isinstance(namespace, str) else None,
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
    tuple[dict[str, list[Instance]], list[ComponentView], PodResources],
]


def _reader(compiled: CompiledDefinition) -> Reader:
    """The function generated for ``compiled``: its instances, component rows and totals
    from an object (made once per definition)."""
    reader: Reader | None = compiled.memo.get("ordinary reader")
    if reader is None:
        names: dict[str, Any] = {}
        lines = [
            "def read(obj):",
            *instance_lines(compiled, names),
            *row_lines(compiled, names),
            "    return instances, views, totals",
        ]
        namespace: dict[str, Any] = {**instance_runtime(), **row_runtime(), **names}
        source = "\n".join(lines) + "\n"
        exec(compile(source, f"<view of {compiled.name}>", "exec"), namespace)
        reader = compiled.memo["ordinary reader"] = namespace["read"]
    return reader
