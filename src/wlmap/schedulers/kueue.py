"""Kueue PodSets (``kueue.x-k8s.io/v1beta2``) describing what a workload asks for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.schedulers._common import dns_label, pod_components
from wlmap.workload import WorkloadView

MAX_PODSETS = 18


def kueue_podsets(view: WorkloadView, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One PodSet per pod-bearing component instance: template, count and, for elastic
    components, ``minCount``; topology requests come from the gang's topology."""
    del obj
    podsets = []
    required = {
        sub.name: sub.topology
        for gang in view.gang_groups
        for sub in gang.sub_groups
        if sub.topology
    }
    for component in pod_components(view)[:MAX_PODSETS]:
        assert component.template is not None
        metadata = component.template.get("metadata") or {}
        podset: dict[str, Any] = {
            "name": dns_label(component.name, component.instance or ""),
            "count": component.pods,
            "template": {
                "metadata": {k: metadata[k] for k in ("labels", "annotations") if metadata.get(k)},
                "spec": component.template.get("spec") or {},
            },
        }
        if component.min_pods < component.pods:
            podset["minCount"] = component.min_pods
        wanted = required.get(component.name)
        if wanted is not None:
            request = {}
            if wanted.required_topology_level:
                request["required"] = wanted.required_topology_level
            if wanted.preferred_topology_level:
                request["preferred"] = wanted.preferred_topology_level
            podset["topologyRequest"] = request
        podsets.append(podset)
    return podsets
