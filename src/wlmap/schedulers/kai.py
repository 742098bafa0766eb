"""KAI Scheduler PodGroups (``scheduling.run.ai/v2alpha2``) for a workload's gangs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.scheduler_names import (
    KAI_POD_GROUP,
    KAI_PREFERRED,
    KAI_QUEUE,
    KAI_REQUIRED,
    KAI_SEGMENT_LEVEL,
    KAI_SEGMENT_SIZE,
    KAI_TOPOLOGY,
)
from wlmap.schedulers._common import dns_label, gangs, group_name, object_meta, topology
from wlmap.schedulers._profile import GangKind, PlanInput, PlanRender, PodLink, Profile
from wlmap.workload import GangGroup, WorkloadView

POD_GROUP = GangKind("scheduling.run.ai", "v2alpha2", "podgroups", "PodGroup")
API_VERSION = POD_GROUP.api_version
POD_GROUP_ANNOTATION = KAI_POD_GROUP  # on each pod: the name of its PodGroup


def kai_podgroups(view: WorkloadView, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One PodGroup per gang; subgroups become ``subGroups`` with ``minSubGroup`` on top.

    KAI links pods to their group by the ``pod-group-name`` annotation on the pods.
    """
    return [_podgroup(view, obj, gang) for gang in gangs(view)]


def _constraint(gang: GangGroup) -> dict[str, Any] | None:
    found = topology(gang)
    if found is None:
        return None
    constraint = {"topology": found.pop("topologyName")}
    constraint.update(found)
    return constraint


def _podgroup(view: WorkloadView, obj: Mapping[str, Any], gang: GangGroup) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if gang.sub_groups:
        spec["minSubGroup"] = len(gang.sub_groups)
        spec["subGroups"] = []
        for sub in gang.sub_groups:
            entry: dict[str, Any] = {"name": dns_label(sub.name), "minMember": sub.min_member}
            if (constraint := _constraint(sub)) is not None:
                entry["topologyConstraint"] = constraint
            spec["subGroups"].append(entry)
    else:
        spec["minMember"] = gang.min_member
    if (constraint := _constraint(gang)) is not None:
        spec["topologyConstraint"] = constraint
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if isinstance(labels, Mapping) and labels.get(KAI_QUEUE):
        spec["queue"] = labels[KAI_QUEUE]
    name = group_name(view, obj, *(gang.key or ()))
    return {
        "apiVersion": API_VERSION,
        "kind": "PodGroup",
        "metadata": object_meta(view, obj, name),
        "spec": spec,
    }


def _render_plan(given: PlanInput) -> list[dict[str, Any]]:
    """The workload's KAI topology annotations as a patch, with the Topology they name."""
    # lazy: numpy and the planner load only when a plan is rendered
    from wlmap.placement.plan import kai_objects  # noqa: PLC0415

    found = kai_objects(given.obj, given.plans, given.topology)
    return [] if found is None else [{"workload": given.workload, **found}]


PROFILE = Profile(
    name="kai",
    build=kai_podgroups,
    kinds=(POD_GROUP,),
    link=PodLink("annotations", POD_GROUP_ANNOTATION),
    annotations=(
        POD_GROUP_ANNOTATION,
        KAI_TOPOLOGY,
        KAI_REQUIRED,
        KAI_PREFERRED,
        KAI_SEGMENT_SIZE,
        KAI_SEGMENT_LEVEL,
    ),
    labels=(KAI_QUEUE,),
    render=PlanRender("kai", _render_plan),
)
