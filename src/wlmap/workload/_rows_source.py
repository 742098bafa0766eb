"""Generated lines that turn an ordinary object's instances into its component rows.

They do what :func:`wlmap.workload._components.component_views` does for an object met
alone (no pods, no claims), written out per component: which counts a row has, whether
it bears pods, its parent and kind are known from the definition, so only the instances
are looked at. A pod spec whose resources cannot be read raises (the caller then takes
the general path, which reports it).
"""

from __future__ import annotations

from typing import Any

from wlmap.workload._components import ComponentRow, component_rows, scale_counts
from wlmap.workload._instances_source import Unusual
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.resources import PodResources, pod_resources
from wlmap.workload.structure import component_plans
from wlmap.workload.view import ComponentView


def row_lines(compiled: CompiledDefinition, names: dict[str, Any]) -> list[str]:
    """Function-body lines that build ``views`` (the component rows in definition order)
    and ``totals`` from ``instances``; the values they refer to are added to ``names``."""
    lines = ["    views = []", "    totals = NO_RESOURCES"]
    for index, row in enumerate(component_rows(compiled)):
        lines += _component(index, row, names, compiled)
    return lines


class NotWritten(Exception):
    """The definition's rows need the general lookup by id: no ordinary path for it."""


def row_runtime() -> dict[str, Any]:
    """The helpers :func:`row_lines` refers to, by name."""
    return {
        "View": ComponentView,
        "NO_RESOURCES": PodResources(),
        "pod_resources": pod_resources,
        "scale_counts": scale_counts,
        "Unusual": Unusual,
    }


def _counts(index: int, row: ComponentRow, compiled: CompiledDefinition) -> list[str]:
    """Lines setting ``counts``: each instance's desired and minimum pods.

    An ancestor read without instance ids has exactly one instance, whose counts multiply
    every row. An ancestor named by the same id expression as this component has the
    same ids in the same order, so its instance at the same position is the one of the
    same id, as long as no id repeats (a repeated id raises :class:`Unusual`: the general
    rule counts the last instance of an id for all of them). A definition with any other
    ancestor is not written out (:class:`NotWritten`): its rows are looked up by id, the
    general way.
    """
    plans = {p.name: p for p in component_plans(compiled)}
    order = {name: i for i, name in enumerate(compiled.order)}
    own = plans[row.name].ids
    single = [a for a in row.ancestors if not plans[a].named]
    aligned = [
        a
        for a in row.ancestors
        if own is not None and (ids := plans[a].ids) is not None and ids.text == own.text
    ]
    if len(single) + len(aligned) != len(row.ancestors):
        # an ancestor keyed otherwise: ids are looked up the general way
        raise NotWritten(f"component {row.name!r}: an ancestor named otherwise")
    lines = ["    fd = fm = 1"]
    for ancestor in single:
        lines += [
            f"    d, m = scale_counts(c{order[ancestor]}[0][2])",
            "    fd, fm = fd * d, fm * m",
        ]
    lines += [
        f"    if len(c{index}) > 1 and len({{x[0] for x in c{index}}}) < len(c{index}):",
        "        raise Unusual  # a repeated id: the general rule (its last instance counts)",
        "    counts = []",
        f"    for y, x in enumerate(c{index}):",
        "        d, m = scale_counts(x[2])",
        "        d, m = d * fd, m * fm",
    ]
    for ancestor in aligned:
        lines += [
            f"        a, b = scale_counts(c{order[ancestor]}[y][2])",
            "        d, m = d * a, m * b",
        ]
    lines.append("        counts.append((d, m))")
    return lines


def _component(
    index: int, row: ComponentRow, names: dict[str, Any], compiled: CompiledDefinition
) -> list[str]:
    head = f"{row.name!r}, i, {row.parent!r}, {row.kind!r}"
    if not row.bears_pods:  # a grouping component: no template, no pods of its own
        return [
            f"    for i, _, s in c{index}:",
            f"        views.append(View({head}, s.replicas, s.min_replicas, s.max_replicas,"
            " 0, 0, None, None, None, None, None, False))",
        ]
    return [
        *_counts(index, row, compiled),
        f"    for (i, t, s), (d, m) in zip(c{index}, counts):",
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
