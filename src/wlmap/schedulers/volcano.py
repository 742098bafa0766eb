"""Volcano PodGroups (``scheduling.volcano.sh/v1beta1``) for a workload's gangs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.schedulers._common import dns_label, gangs, group_name, object_meta, pod_components
from wlmap.workload import WorkloadView
from wlmap.workload.resources import PodResources

API_VERSION = "scheduling.volcano.sh/v1beta1"
POD_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"  # on each pod: its PodGroup's name


def volcano_podgroups(view: WorkloadView, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One PodGroup per gang: ``minMember``, ``minTaskMember`` per component and the
    ``minResources`` of the minimum set of pods. Pods join through the
    ``scheduling.k8s.io/group-name`` annotation."""
    found = []
    for gang in gangs(view):
        components = [c for c in pod_components(view) if c.name in gang.members]
        tasks: dict[str, int] = {}
        minimum = PodResources()
        for component in components:
            task = (
                component.name
                if component.instance is None
                else f"{component.name}-{component.instance}"
            )
            tasks[dns_label(task)] = component.min_pods
            if component.per_pod is not None:
                minimum = minimum.add(component.per_pod.scaled(component.min_pods))
        resources = {k: v for k, v in minimum.to_dict()["requests"].items() if v}
        spec: dict[str, Any] = {"minMember": gang.min_member, "minTaskMember": tasks}
        if resources:
            spec["minResources"] = {k: _quantity(v) for k, v in resources.items()}
        queue = ((obj.get("metadata") or {}).get("annotations") or {}).get(
            "scheduling.volcano.sh/queue-name"
        )
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


def _quantity(value: int | float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"
