"""Upstream ``scheduling.k8s.io`` Workload and PodGroups (KEP-4671/5832, alpha) for a workload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.schedulers._common import dns_label, gangs, group_name, object_meta, topology
from wlmap.workload import WorkloadView

API_VERSION = "scheduling.k8s.io/v1alpha2"


def workload_api_objects(view: WorkloadView, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A Workload with one gang template per gang, and one PodGroup per gang referring to it.

    Pods join a group through ``spec.schedulingGroup.podGroupName``.
    """
    workload_name = group_name(view, obj)
    templates, groups = [], []
    group = (view.api_version or "").rpartition("/")[0]
    for gang in gangs(view):
        template_name = dns_label(gang.name, *(gang.key or ()))
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
