"""Volcano PodGroups (``scheduling.volcano.sh/v1beta1``) for a workload's gangs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.schedulers._common import (
    dns_label,
    gang_components,
    gangs,
    group_name,
    min_resources,
    object_meta,
)
from wlmap.schedulers._profile import GangKind, PodLink, Profile
from wlmap.workload import WorkloadView

POD_GROUP = GangKind("scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup")
API_VERSION = POD_GROUP.api_version
POD_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"  # on each pod: its PodGroup's name
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"  # on the workload: its queue


def volcano_podgroups(view: WorkloadView, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One PodGroup per gang: ``minMember``, ``minTaskMember`` per component and the
    ``minResources`` of the minimum set of pods. Pods join through the
    ``scheduling.k8s.io/group-name`` annotation."""
    found = []
    for gang in gangs(view):
        components = gang_components(view, gang)
        tasks: dict[str, int] = {}
        for component in components:
            task = (
                component.name
                if component.instance is None
                else f"{component.name}-{component.instance}"
            )
            tasks[dns_label(task)] = component.min_pods
        spec: dict[str, Any] = {"minMember": gang.min_member, "minTaskMember": tasks}
        if resources := min_resources(view, gang):
            spec["minResources"] = resources
        queue = ((obj.get("metadata") or {}).get("annotations") or {}).get(QUEUE_ANNOTATION)
        if queue:
            spec["queue"] = queue
        found.append(
            {
                "apiVersion": API_VERSION,
                "kind": "PodGroup",
                "metadata": object_meta(view, obj, group_name(view, obj, *(gang.key or ()))),
                "spec": spec,
            }
        )
    return found


PROFILE = Profile(
    name="volcano",
    build=volcano_podgroups,
    kinds=(POD_GROUP,),
    link=PodLink("annotations", POD_GROUP_ANNOTATION),
    annotations=(POD_GROUP_ANNOTATION, QUEUE_ANNOTATION),
)
