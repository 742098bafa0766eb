"""Generated lines that turn an ordinary object's instances into its component rows.

They do what :func:`wlmap.workload._components.component_views` does for an object met
alone (no pods, no claims), written out per component: which counts a row has, whether
it bears pods, its parent and kind are known from the definition, so only the instances
are looked at. A pod spec whose resources cannot be read raises (the caller then takes
the general path, which reports it).
"""

from __future__ import annotations

from typing import Any

from wlmap.workload._components import ComponentRow, component_rows, instance_counts
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.resources import PodResources, pod_resources
from wlmap.workload.view import ComponentView


def row_lines(compiled: CompiledDefinition, names: dict[str, Any]) -> list[str]:
    """Function-body lines that build ``views`` (the component rows in definition order)
    and ``totals`` from ``instances``; the values they refer to are added to ``names``."""
    lines = ["    views = []", "    totals = NO_RESOURCES"]
    for index, row in enumerate(component_rows(compiled)):
        lines += _component(index, row, names)
    return lines


def row_runtime() -> dict[str, Any]:
    """The helpers :func:`row_lines` refers to, by name."""
    return {
        "View": ComponentView,
        "NO_RESOURCES": PodResources(),
        "pod_resources": pod_resources,
        "instance_counts": instance_counts,
    }


def _component(index: int, row: ComponentRow, names: dict[str, Any]) -> list[str]:
    head = f"{row.name!r}, x.instance, {row.parent!r}, {row.kind!r}"
    if not row.bears_pods:  # a grouping component: no template, no pods of its own
        return [
            f"    for x in c{index}:",
            "        s = x.scale",
            f"        views.append(View({head}, s.replicas, s.min_replicas, s.max_replicas,"
            " 0, 0, None, None, None, None, None, False))",
        ]
    names[f"W{index}"] = row
    return [
        f"    for x, (d, m) in zip(c{index}, instance_counts(W{index}, c{index}, instances)):",
        "        s = x.scale",
        "        t = x.template",
        "        if t is None:",
        "            per = total = None",
        "            if s.replicas is None and s.min_replicas is None:",
        "                d = m = 0",  # an optional role the object does not have
        "        else:",
        f"            per = pod_resources(t['spec'], t['metadata'], None, where={row.where!r})",
        "            total = per.scaled(d)",
        "            totals = totals.add(total)",
        f"        views.append(View({head}, s.replicas, s.min_replicas, s.max_replicas,"
        " d, m, t, per, total, None, None,"
        " t is None and not s.replicas and not s.min_replicas))",
    ]
