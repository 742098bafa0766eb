"""Which level a rendering asks for, shared by the scheduler forms of a plan.

A gang placed inside one domain is asked at that domain's level: as required when the gang
required a level (its required level tightened to the plan's), as preferred when it did
not, and never at or below its slice level (Kueue requires a slice level below the pod
set's). Gangs sharing one pod template are asked at the coarsest of their levels, which
every one of them meets. A template the map's write-back cannot write (a read-only
projection) is reported with the reason instead of a patch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.definitions import Definition
from wlmap.errors import WriteBackError
from wlmap.placement.gangs import Topology
from wlmap.placement.plan.gang_plan import GangPlan
from wlmap.placement.plan.room import CLUSTER, level_key
from wlmap.workload import PodChanges, patch_pods

__all__ = ["annotation_for", "coarser", "coarser_key", "patch_item", "placed"]


def placed(plans: Sequence[GangPlan]) -> list[GangPlan]:
    return [p for p in plans if p.placement is not None]


def annotation_for(
    plan: GangPlan, topology: Topology, required: str, preferred: str
) -> tuple[str, str]:
    assert plan.level is not None
    if plan.level == CLUSTER:
        level = plan.gang.preferred_level if plan.gang.preferred_level is not None else 0
        return preferred, level_key(topology, level)
    key = required if plan.gang.required_level is not None else preferred
    level = plan.level
    slice_level = plan.gang.slice_level
    if slice_level is not None and level >= slice_level:
        # a slice's level must stay below the gang's (Kueue's validation): ask no finer
        # than the level above the slices, and never coarser than what the gang required
        level = max(slice_level - 1, plan.gang.required_level or 0)
    return key, level_key(topology, level)


def coarser(
    new: tuple[str, str], old: tuple[str, str] | None, topology: Topology
) -> tuple[str, str]:
    """Of two (annotation, level) choices for one template, the one every gang meets."""
    if old is None:
        return new
    level = coarser_key(new[1], old[1], topology)
    key = new[0] if new[0] == old[0] else min(new[0], old[0], key=lambda k: "preferred" in k)
    return key, level


def coarser_key(first: str, second: str, topology: Topology) -> str:
    order = [*topology.levels, level_key(topology, len(topology.levels))]
    return first if order.index(first) <= order.index(second) else second


def patch_item(
    definition: Definition,
    obj: Mapping[str, Any],
    component: str,
    changes: PodChanges,
    shown: Mapping[str, Any],
) -> dict[str, Any]:
    """A component's patch with what it sets (``shown``), or the reason it cannot be written."""
    try:
        patch = patch_pods(definition, obj, component, changes)
    except WriteBackError as exc:
        return {"component": component, **shown, "error": str(exc)}
    return {
        "component": component,
        **shown,
        "jsonPatch": patch.json_patch,
        "mergePatch": patch.merge_patch,
    }
