"""The component rows of a view: per instance its pod counts, resources and observed pods.

One pass over the instances gives each row and the workload's resource totals. Desired
and minimum pods are the instance's own replicas times every ancestor's: an ancestor
with several instances contributes the instance whose id equals this instance's id when
there is one (children keyed like their parent), else the sum over its instances
(children not scoped per parent instance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.errors import WlmapError
from wlmap.workload._issues import Issues
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.pods import PodPlacement
from wlmap.workload.resources import PodResources, pod_resources
from wlmap.workload.structure import Instance, Scale
from wlmap.workload.view import ComponentView


@dataclass(frozen=True, slots=True)
class ComponentRow:
    """What every row of one component shares, worked out once per definition."""

    name: str
    kind: str | None
    parent: str | None
    bears_pods: bool
    # the field path its pod spec is reported under
    where: str
    # ancestors, nearest first (their replicas multiply the pods of a pod-bearing one)
    ancestors: tuple[str, ...]


def component_rows(compiled: CompiledDefinition) -> tuple[ComponentRow, ...]:
    rows: tuple[ComponentRow, ...] | None = compiled.memo.get("component rows")
    if rows is None:
        rows = compiled.memo["component rows"] = tuple(
            ComponentRow(
                name,
                component.kind.kind if component.kind else None,
                compiled.parent.get(name),
                name in compiled.pod_bearing,
                f"{name}.spec",
                tuple(compiled.ancestors(name)),
            )
            for name, component in ((n, compiled.components[n]) for n in compiled.order)
        )
    return rows


def component_views(
    compiled: CompiledDefinition,
    instances: Mapping[str, list[Instance]],
    placements: Sequence[PodPlacement] | None,
    claims: Mapping[str, Mapping[str, Any]] | None,
    issues: Issues,
) -> tuple[list[ComponentView], PodResources]:
    """One view per component instance, in definition order, and the resources of all."""
    views = []
    totals = PodResources()
    for row in component_rows(compiled):
        name, bears_pods = row.name, row.bears_pods
        mine = instances.get(name, ())
        counts = instance_counts(row, mine, instances) if bears_pods else None
        for index, instance in enumerate(mine):
            key = instance.instance
            scale = instance.scale
            template = instance.template
            desired = minimum = 0
            asks = False
            if counts is not None:
                desired, minimum = counts[index]
                # it asks for pods when it has a template or an explicit count (see runs_pods)
                asks = (
                    template is not None
                    or scale.replicas is not None
                    or scale.min_replicas is not None
                )
            per_pod: PodResources | None = None
            total: PodResources | None = None
            if template is not None:
                try:
                    per_pod = pod_resources(
                        template["spec"], template["metadata"], claims, where=row.where
                    )
                except WlmapError as exc:
                    issues.report(exc)
                else:
                    total = per_pod.scaled(desired)
                    totals = totals.add(total)
            observed = ready = None
            if placements is not None:
                placed = [p for p in placements if p.component == name and p.instance == key]
                observed, ready = len(placed), sum(p.ready for p in placed)
            # positional: the record's field order (quicker than keywords, dozens per object)
            views.append(
                ComponentView(
                    name,
                    key,
                    row.parent,
                    row.kind,
                    scale.replicas,
                    scale.min_replicas,
                    scale.max_replicas,
                    desired if asks else 0,
                    minimum if asks else 0,
                    template,
                    per_pod,
                    total,
                    observed,
                    ready,
                    bears_pods
                    and template is None
                    and not scale.replicas
                    and not scale.min_replicas
                    and not observed,
                )
            )
    return views, totals


def instance_counts(
    row: ComponentRow, mine: Sequence[Instance], instances: Mapping[str, list[Instance]]
) -> list[tuple[int, int]]:
    """Desired and minimum pods of each instance of a pod-bearing component; instances
    that share an id share the count of the last of them (counts are kept by id)."""
    # An ancestor with one instance (or none) multiplies every instance alike: its factor
    # is worked out once; the others are looked up per instance id.
    shared_desired = shared_minimum = 1
    keyed: list[tuple[dict[str | None, tuple[int, int]], tuple[int, int]]] = []
    for ancestor in row.ancestors:
        parents = instances.get(ancestor, ())
        if len(parents) > 1:
            by_id: dict[str | None, tuple[int, int]] = {}
            for parent in parents:
                by_id.setdefault(parent.instance, scale_counts(parent.scale))
            every = (
                sum(p.scale.desired for p in parents),
                sum(p.scale.minimum for p in parents),
            )
            keyed.append((by_id, every))
        else:
            d, m = scale_counts(parents[0].scale) if parents else (0, 0)
            shared_desired, shared_minimum = shared_desired * d, shared_minimum * m
    counts = []
    for instance in mine:
        desired, minimum = scale_counts(instance.scale)
        desired, minimum = desired * shared_desired, minimum * shared_minimum
        for by_id, every in keyed:
            d, m = by_id.get(instance.instance, every)
            desired, minimum = desired * d, minimum * m
        counts.append((desired, minimum))
    if len(counts) > 1:
        last = {i.instance: c for i, c in zip(mine, counts, strict=True)}
        counts = [last[i.instance] for i in mine]
    return counts


def scale_counts(scale: Scale) -> tuple[int, int]:
    """``(scale.desired, scale.minimum)`` in one step."""
    desired = scale.replicas
    if desired is None:
        desired = 1 if scale.min_replicas is None else scale.min_replicas
    return desired, desired if scale.min_replicas is None else scale.min_replicas
