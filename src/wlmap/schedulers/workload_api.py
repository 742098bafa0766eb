"""Upstream ``scheduling.k8s.io`` Workload and PodGroups (KEP-4671/5832, alpha) for a workload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.schedulers._common import dns_label, gangs, group_name, object_meta, topology
from wlmap.schedulers._profile import GangKind, PlanInput, PlanRender, PodLink, Profile
from wlmap.workload import WorkloadView

POD_GROUP = GangKind("scheduling.k8s.io", "v1alpha2", "podgroups", "PodGroup")
WORKLOAD = GangKind("scheduling.k8s.io", "v1alpha2", "workloads", "Workload")
API_VERSION = POD_GROUP.api_version
# Immutable after creation: only an admission webhook can set it, so the operator cannot.
POD_FIELD = "spec.schedulingGroup.podGroupName"


def workload_api_objects(view: WorkloadView, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A Workload with one gang template per gang, and one PodGroup per gang referring to it.

    Pods join a group through ``spec.schedulingGroup.podGroupName`` (``POD_FIELD``).
    """
    workload_name = group_name(view, obj)
    templates, groups = [], []
    group = (view.api_version or "").rpartition("/")[0]
    for gang in gangs(view):
        # a key that starts with the gang's name (gangs told apart by name) says it once
        template_name = dns_label(*dict.fromkeys((gang.name, *(gang.key or ()))))
        template: dict[str, Any] = {
            "name": template_name,
            "schedulingPolicy": {"gang": {"minCount": gang.min_member}},
        }
        level = topology(gang)
        if level and (
            key := level.get("requiredTopologyLevel") or level.get("preferredTopologyLevel")
        ):
            template["schedulingConstraints"] = {"topology": [{"key": key}]}
        templates.append(template)
        groups.append(
            {
                "apiVersion": API_VERSION,
                "kind": "PodGroup",
                "metadata": object_meta(view, obj, group_name(view, obj, template_name)),
                "spec": {
                    "podGroupTemplateRef": {
                        "workload": {
                            "workloadName": workload_name,
                            "podGroupTemplateName": template_name,
                        }
                    },
                    "schedulingPolicy": {"gang": {"minCount": gang.min_member}},
                },
            }
        )
    if not templates:
        return []  # no gang to hold pods together: a Workload would say nothing
    workload = {
        "apiVersion": API_VERSION,
        "kind": "Workload",
        "metadata": object_meta(view, obj, workload_name),
        "spec": {
            "controllerRef": {"apiGroup": group, "kind": view.kind, "name": view.name},
            "podGroupTemplates": templates[:8],
        },
    }
    return [workload, *groups]


def _render_plan(given: PlanInput) -> list[dict[str, Any]]:
    """The Workload and PodGroups with each gang template's placement constraint."""
    # lazy: numpy and the planner load only when a plan is rendered
    from wlmap.placement.plan import workload_api_objects as placed  # noqa: PLC0415

    return placed(workload_api_objects(given.view, given.obj), given.plans, given.topology)


PROFILE = Profile(
    name="workload-api",
    build=workload_api_objects,
    kinds=(POD_GROUP, WORKLOAD),
    link=PodLink("field", POD_FIELD),
    render=PlanRender("workload", _render_plan, as_list=True),
)
