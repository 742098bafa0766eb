"""A plan in the forms people apply: node affinity, Kueue, KAI, and the Workload API.

Each form says as much of the decision as its API can:

- ``affinity``: per component, a JSON patch (and merge patch) through the map's safe
  write-back (:func:`wlmap.workload.patch_pods`) setting a required node affinity on the
  level labels of the chosen domain, coarsest level first: a rack ``r1`` is named with its
  block, since rack values repeat across blocks. Gangs of one component that chose
  different domains (the groups of a LeaderWorkerSet) give one node-selector term each,
  ORed, as the API reads terms. A term already on the template is kept and ANDed with ours.
- ``kueue``: the pod templates' ``kueue.x-k8s.io/podset-required-topology`` at the level
  the plan put the gang in one domain of, when the gang required a level (its required
  level tightened to the plan's); ``podset-preferred-topology`` at that level otherwise.
  Kueue accepts one of the two per pod set (KEP 2724, "Validation"), so the other is
  removed. Kueue picks the domain itself; the level is what can be asked.
- ``kai``: the workload's ``kai.scheduler/topology``, ``-required-placement`` or
  ``-preferred-placement`` (same rule), with the KAI ``Topology`` object they name
  (``kai.scheduler/v1alpha1``, levels as node labels coarsest first, as KAI's
  docs/topology/README.md shows).
- ``workload``: the upstream ``scheduling.k8s.io/v1alpha2`` Workload and PodGroups (the
  objects :mod:`wlmap.schedulers` writes, passed in) with each gang template's and
  PodGroup's ``schedulingConstraints.topology`` keyed on the plan's level.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.definitions import Definition
from wlmap.placement.plan.planner import GangPlan
from wlmap.placement.plan.room import CLUSTER, level_key, level_word
from wlmap.placement.topology import Topology
from wlmap.placement.topology.workload_gangs import (
    KAI_PREFERRED,
    KAI_REQUIRED,
    KAI_TOPOLOGY,
    KUEUE_PREFERRED,
    KUEUE_REQUIRED,
)
from wlmap.workload import PodChanges, WorkloadView, patch_pods

__all__ = ["RENDERS", "affinity_patches", "kai_objects", "kueue_patches", "workload_api_objects"]

RENDERS = ("affinity", "kueue", "kai", "workload")
KUEUE_UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
KAI_API = "kai.scheduler/v1alpha1"


def affinity_patches(
    definition: Definition,
    obj: Mapping[str, Any],
    view: WorkloadView,
    plans: Sequence[GangPlan],
    topology: Topology,
) -> list[dict[str, Any]]:
    """One node-affinity patch per component of the placed gangs."""
    terms: dict[str, list[dict[str, Any]]] = {}
    for plan in _placed(plans):
        expressions = _expressions(plan, topology)
        for component in plan.request.components:
            known = terms.setdefault(component, [])
            if expressions not in known:
                known.append(expressions)
    items = []
    for component, ours in terms.items():
        node_affinity = _merged(_existing(view, component), ours)
        patch = patch_pods(
            definition, obj, component, PodChanges(affinity={"nodeAffinity": node_affinity})
        )
        items.append(
            {
                "component": component,
                "nodeAffinity": node_affinity,
                "jsonPatch": patch.json_patch,
                "mergePatch": patch.merge_patch,
            }
        )
    return items


def kueue_patches(
    definition: Definition, obj: Mapping[str, Any], plans: Sequence[GangPlan], topology: Topology
) -> list[dict[str, Any]]:
    """One annotation patch per component of the placed gangs."""
    chosen: dict[str, tuple[str, str]] = {}
    for plan in _placed(plans):
        key, level = _annotation(plan, topology, KUEUE_REQUIRED, KUEUE_PREFERRED)
        for component in plan.request.components:
            chosen[component] = _coarser((key, level), chosen.get(component), topology)
    items = []
    for component, (key, level) in chosen.items():
        annotations: dict[str, str | None] = dict.fromkeys(
            (KUEUE_REQUIRED, KUEUE_PREFERRED, KUEUE_UNCONSTRAINED)
        )
        annotations[key] = level
        patch = patch_pods(definition, obj, component, PodChanges(annotations=annotations))
        items.append(
            {
                "component": component,
                "annotations": {key: level},
                "jsonPatch": patch.json_patch,
                "mergePatch": patch.merge_patch,
            }
        )
    return items


def kai_objects(
    obj: Mapping[str, Any], plans: Sequence[GangPlan], topology: Topology
) -> dict[str, Any] | None:
    """The workload's KAI annotations as patches, and the Topology they name; None when no
    gang is placed."""
    placed = _placed(plans)
    if not placed:
        return None
    found: tuple[str, str] | None = None
    for plan in placed:
        found = _coarser(_annotation(plan, topology, KAI_REQUIRED, KAI_PREFERRED), found, topology)
    assert found is not None
    key, level = found
    name = next((p.request.topology_name for p in placed if p.request.topology_name), None)
    name = name or "-".join(level_word(topology, i) for i in range(len(topology.levels) + 1))
    wanted: dict[str, str | None] = {KAI_TOPOLOGY: name, KAI_REQUIRED: None, KAI_PREFERRED: None}
    wanted[key] = level
    json_patch, merge_patch = _metadata_patch(obj, wanted)
    levels = [*topology.levels, level_key(topology, len(topology.levels))]
    return {
        "annotations": {k: v for k, v in wanted.items() if v is not None},
        "jsonPatch": json_patch,
        "mergePatch": merge_patch,
        "topology": {
            "apiVersion": KAI_API,
            "kind": "Topology",
            "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": label} for label in levels]},
        },
    }


def workload_api_objects(
    objects: Sequence[Mapping[str, Any]], plans: Sequence[GangPlan], topology: Topology
) -> list[dict[str, Any]]:
    """The Workload and PodGroups with each gang's topology constraint keyed on its level."""
    keys: dict[str, str] = {}
    for plan in _placed(plans):
        level = plan.level if plan.level is not None and plan.level != CLUSTER else None
        if level is None:
            continue
        label = _dns(_group_of(plan.request.name))
        previous = keys.get(label)
        keys[label] = (
            level_key(topology, level)
            if previous is None
            else _coarser_key(previous, level_key(topology, level), topology)
        )
    result = []
    for original in objects:
        obj = copy.deepcopy(dict(original))
        spec = obj.get("spec") or {}
        if obj.get("kind") == "Workload":
            for template in spec.get("podGroupTemplates") or ():
                key = _key_for(str(template.get("name", "")), keys)
                if key:
                    template["schedulingConstraints"] = {"topology": [{"key": key}]}
        elif obj.get("kind") == "PodGroup":
            reference = (spec.get("podGroupTemplateRef") or {}).get("workload") or {}
            key = _key_for(str(reference.get("podGroupTemplateName", "")), keys)
            if key:
                spec["schedulingConstraints"] = {"topology": [{"key": key}]}
        result.append(obj)
    return result


def _placed(plans: Sequence[GangPlan]) -> list[GangPlan]:
    return [p for p in plans if p.placement is not None]


def _expressions(plan: GangPlan, topology: Topology) -> dict[str, Any]:
    assert plan.level is not None
    if plan.level == CLUSTER:  # spread over top-level domains: name each one used
        assert plan.placement is not None
        used = sorted(plan.placement.domain_counts(topology, 0))
        values = [topology.domain_values[0][d][0] for d in used]
        return {
            "matchExpressions": [{"key": topology.levels[0], "operator": "In", "values": values}]
        }
    return {
        "matchExpressions": [
            {"key": level_key(topology, level), "operator": "In", "values": [plan.domain[level]]}
            for level in range(plan.level + 1)
        ]
    }


def _existing(view: WorkloadView, component: str) -> dict[str, Any]:
    for item in view.components:
        if item.name == component and item.template is not None:
            spec = item.template.get("spec") or {}
            found = (spec.get("affinity") or {}).get("nodeAffinity")
            return dict(found) if isinstance(found, Mapping) else {}
    return {}


def _merged(existing: Mapping[str, Any], ours: list[dict[str, Any]]) -> dict[str, Any]:
    """``existing`` node affinity with our terms ANDed into its required terms."""
    result = copy.deepcopy(dict(existing))
    required = result.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    theirs = [t for t in required.get("nodeSelectorTerms") or () if isinstance(t, Mapping)]
    terms = [
        {**t, "matchExpressions": [*(t.get("matchExpressions") or ()), *o["matchExpressions"]]}
        for t in theirs
        for o in ours
    ] or [copy.deepcopy(o) for o in ours]
    result["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
    return result


def _annotation(
    plan: GangPlan, topology: Topology, required: str, preferred: str
) -> tuple[str, str]:
    assert plan.level is not None
    if plan.level == CLUSTER:
        level = plan.gang.preferred_level if plan.gang.preferred_level is not None else 0
        return preferred, level_key(topology, level)
    key = required if plan.gang.required_level is not None else preferred
    return key, level_key(topology, plan.level)


def _coarser(
    new: tuple[str, str], old: tuple[str, str] | None, topology: Topology
) -> tuple[str, str]:
    """Of two (annotation, level) choices for one template, the one every gang meets."""
    if old is None:
        return new
    level = _coarser_key(new[1], old[1], topology)
    key = new[0] if new[0] == old[0] else min(new[0], old[0], key=lambda k: "preferred" in k)
    return key, level


def _coarser_key(first: str, second: str, topology: Topology) -> str:
    order = [*topology.levels, level_key(topology, len(topology.levels))]
    return first if order.index(first) <= order.index(second) else second


def _metadata_patch(
    obj: Mapping[str, Any], wanted: Mapping[str, str | None]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    current = ((obj.get("metadata") or {}).get("annotations")) or {}
    ops: list[dict[str, Any]] = []
    merge: dict[str, Any] = {}
    if not current and any(v is not None for v in wanted.values()):
        values = {k: v for k, v in wanted.items() if v is not None}
        return (
            [{"op": "add", "path": "/metadata/annotations", "value": values}],
            {"metadata": {"annotations": dict(values)}},
        )
    for key, value in wanted.items():
        path = "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1")
        if value is None and key in current:
            ops.append({"op": "remove", "path": path})
            merge[key] = None
        elif value is not None and current.get(key) != value:
            ops.append({"op": "replace" if key in current else "add", "path": path, "value": value})
            merge[key] = value
    return ops, ({"metadata": {"annotations": merge}} if merge else {})


def _group_of(name: str) -> str:
    """The gang group of a gang's name (``... gang <group>[/<n>gpu][#<unit>]``)."""
    group = name.rpartition(" gang ")[2]
    return re.sub(r"(/\d+gpu)?(#\d+)?$", "", group)


def _dns(text: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")


def _key_for(template: str, keys: Mapping[str, str]) -> str | None:
    return next(
        (
            key
            for label, key in keys.items()
            if template == label or template.startswith(label + "-")
        ),
        None,
    )
