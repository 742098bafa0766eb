"""Kueue PodSets (``kueue.x-k8s.io/v1beta2``) describing what a workload asks for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.scheduler_names import (
    KUEUE_GROUP_NAME,
    KUEUE_PREFERRED,
    KUEUE_REQUIRED,
    KUEUE_SLICE_LEVEL,
    KUEUE_SLICE_SIZE,
    KUEUE_UNCONSTRAINED,
)
from wlmap.schedulers._common import dns_label, pod_components
from wlmap.schedulers._profile import PlanInput, PlanRender, Profile
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


def _render_plan(given: PlanInput) -> list[dict[str, Any]]:
    """The pod templates' Kueue topology annotations as patches."""
    # lazy: numpy and the planner load only when a plan is rendered
    from wlmap.placement.plan import kueue_patches  # noqa: PLC0415

    parts = kueue_patches(given.definition, given.obj, given.view, given.plans, given.topology)
    return [{"workload": given.workload, **part} for part in parts]


# PodSets describe a workload to Kueue inside its own Workload object: nothing standalone
# for the operator to keep, and no pod link.
PROFILE = Profile(
    name="kueue",
    build=kueue_podsets,
    annotations=(
        KUEUE_REQUIRED,
        KUEUE_PREFERRED,
        KUEUE_UNCONSTRAINED,
        KUEUE_SLICE_LEVEL,
        KUEUE_SLICE_SIZE,
        KUEUE_GROUP_NAME,
    ),
    render=PlanRender("kueue", _render_plan),
)
