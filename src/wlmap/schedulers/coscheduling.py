"""scheduler-plugins coscheduling PodGroups (``scheduling.x-k8s.io/v1alpha1``) for a
workload's gangs.

The Coscheduling plugin of kubernetes-sigs/scheduler-plugins holds a pod back until its
group's ``minMember`` pods can all be placed. A pod joins a group by the
``scheduling.x-k8s.io/pod-group`` label, whose value is the PodGroup's name in the pod's
namespace (releases before v0.25 used the ``scheduling.sigs.k8s.io`` group and the
``pod-group.scheduling.sigs.k8s.io`` label; wlmap writes the current ones). The group
has no subgroups and no topology: a gang with subgroups becomes one group of its whole
minimum, and topology stays with the schedulers that read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.schedulers._common import gangs, group_name, min_resources, object_meta
from wlmap.schedulers._profile import GangKind, PodLink, Profile
from wlmap.workload import WorkloadView

POD_GROUP = GangKind("scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup")
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"  # on each pod: its PodGroup's name


def coscheduling_podgroups(view: WorkloadView, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One PodGroup per gang: ``minMember``, and the ``minResources`` of the gang's
    minimum set of pods (the plugin's pre-filter compares them with the cluster's free
    capacity). ``scheduleTimeoutSeconds`` is left to the plugin's default."""
    groups = []
    for gang in gangs(view):
        spec: dict[str, Any] = {"minMember": gang.min_member}
        if resources := min_resources(view, gang):
            spec["minResources"] = resources
        groups.append(
            {
                "apiVersion": POD_GROUP.api_version,
                "kind": POD_GROUP.kind,
                "metadata": object_meta(view, obj, group_name(view, obj, *(gang.key or ()))),
                "spec": spec,
            }
        )
    return groups


PROFILE = Profile(
    name="coscheduling",
    build=coscheduling_podgroups,
    kinds=(POD_GROUP,),
    link=PodLink("labels", POD_GROUP_LABEL),
    labels=(POD_GROUP_LABEL,),
)
