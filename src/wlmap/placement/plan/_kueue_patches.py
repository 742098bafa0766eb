"""The Kueue rendering of a plan: topology annotations on the pod templates.

Kueue's rules for these annotations (KEP 2724, "Validation"): required, preferred and
unconstrained are mutually exclusive; when one template of a job carries required or
preferred, every template must carry one of them; templates sharing a
``kueue.x-k8s.io/podset-group-name`` must carry the same value. So a template outside the
planned gangs (a LeaderWorkerSet leader without GPUs) gets its group's annotation, and
one without a group or an annotation of its own the loosest request, preferred at the
coarsest level.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from wlmap.definitions import Definition
from wlmap.placement.gangs import Topology
from wlmap.placement.plan._levels import annotation_for, coarser, patch_item, placed
from wlmap.placement.plan.gang_plan import GangPlan
from wlmap.scheduler_names import KUEUE_GROUP_NAME as GROUP_NAME
from wlmap.scheduler_names import KUEUE_PREFERRED, KUEUE_REQUIRED
from wlmap.scheduler_names import KUEUE_UNCONSTRAINED as UNCONSTRAINED
from wlmap.workload import PodChanges, WorkloadView

__all__ = ["GROUP_NAME", "kueue_patches", "with_companions"]


def _annotations(view: WorkloadView) -> dict[str, Mapping[str, Any]]:
    """Each pod-template component's template annotations, by component name."""
    found: dict[str, Mapping[str, Any]] = {}
    for component in view.components:
        if component.template is not None and component.name not in found:
            metadata = component.template.get("metadata") or {}
            found[component.name] = metadata.get("annotations") or {}
    return found


def with_companions(view: WorkloadView, components: Iterable[str]) -> list[str]:
    """``components`` and the templates sharing a Kueue pod-set group with one of them."""
    annotations = _annotations(view)
    chosen = list(dict.fromkeys(components))
    groups = {annotations.get(c, {}).get(GROUP_NAME) for c in chosen} - {None}
    chosen += [c for c, a in annotations.items() if c not in chosen and a.get(GROUP_NAME) in groups]
    return chosen


def kueue_patches(
    definition: Definition,
    obj: Mapping[str, Any],
    view: WorkloadView,
    plans: Sequence[GangPlan],
    topology: Topology,
) -> list[dict[str, Any]]:
    """One annotation patch per pod template the rules above touch."""
    chosen: dict[str, tuple[str, str]] = {}
    for plan in placed(plans):
        wanted = annotation_for(plan, topology, KUEUE_REQUIRED, KUEUE_PREFERRED)
        for component in with_companions(view, plan.request.components):
            chosen[component] = coarser(wanted, chosen.get(component), topology)
    if not chosen:
        return []
    for component, present in _annotations(view).items():
        if component not in chosen and not {KUEUE_REQUIRED, KUEUE_PREFERRED} & set(present):
            chosen[component] = (KUEUE_PREFERRED, topology.levels[0])
    items = []
    for component, (key, level) in chosen.items():
        changes: dict[str, str | None] = dict.fromkeys(
            (KUEUE_REQUIRED, KUEUE_PREFERRED, UNCONSTRAINED)
        )
        changes[key] = level
        shown = {"annotations": {key: level}}
        items.append(patch_item(definition, obj, component, PodChanges(annotations=changes), shown))
    return items
