"""KAI Scheduler PodGroups (``scheduling.run.ai/v2alpha2``) for a workload's gangs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.schedulers._common import dns_label, gangs, group_name, object_meta, topology
from wlmap.workload import GangGroup, WorkloadView

API_VERSION = "scheduling.run.ai/v2alpha2"
POD_GROUP_ANNOTATION = "pod-group-name"  # on each pod: the name of its PodGroup


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
    if isinstance(labels, Mapping) and labels.get("kai.scheduler/queue"):
        spec["queue"] = labels["kai.scheduler/queue"]
    name = group_name(view, obj, *(gang.key or ()))
    return {
        "apiVersion": API_VERSION,
        "kind": "PodGroup",
        "metadata": object_meta(view, obj, name),
        "spec": spec,
    }
