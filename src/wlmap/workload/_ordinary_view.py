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

from collections.abc import Mapping
from typing import Any

from wlmap.errors import ExpressionError
from wlmap.workload._components import component_views
from wlmap.workload._instances_source import Unusual, instances_reader
from wlmap.workload._issues import Issues
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.gangs import GangGroup, gang_groups
from wlmap.workload.status import evaluate_status
from wlmap.workload.suspend import suspend_reader
from wlmap.workload.view import WorkloadView


def ordinary_view(
    compiled: CompiledDefinition, obj: Mapping[str, Any], strict: bool
) -> WorkloadView | None:
    """The view of ``obj`` when nothing in it is unusual, else None."""
    if compiled.references:
        return None
    try:
        instances = instances_reader(compiled)(obj)
    except (Unusual, ExpressionError):
        return None
    issues = Issues(strict=False, share=compiled.shares)
    components, totals = component_views(compiled, instances, None, None, issues)
    status = evaluate_status(compiled, obj, issues, None)
    if issues.errors:
        return None

    def gangs() -> tuple[GangGroup, ...]:
        # no pods: the gangs are counted from the instances alone, with no expression
        return tuple(gang_groups(compiled, instances, None, None, issues))

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
