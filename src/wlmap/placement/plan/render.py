"""A plan in the forms people apply: node affinity, Kueue, KAI, and the Workload API.

Each form says as much of the decision as its API can:

- ``affinity``: per component, a JSON patch (and merge patch) through the map's safe
  write-back (:func:`wlmap.workload.patch_pods`) setting a required node affinity on the
  level labels of the chosen domain, coarsest level first: a rack ``r1`` is named with its
  block, since rack values repeat across blocks. Gangs of one component that chose
  different domains (the groups of a LeaderWorkerSet) give one node-selector term each,
  ORed, as the API reads terms. A term already on the template is kept and ANDed with ours.
  Templates in one Kueue pod-set group with a gang's (a LeaderWorkerSet leader) get the
  same terms, so the group stays together as Kueue would keep it.
- ``kueue``: the pod templates' ``kueue.x-k8s.io/podset-required-topology`` or
  ``podset-preferred-topology`` at the plan's level (see :mod:`._levels` and
  :mod:`._kueue_patches` for Kueue's validation rules the patches keep). Kueue picks the domain
  itself; the level is what can be asked.
- ``kai``: the workload's ``kai.scheduler/topology``, ``-required-placement`` or
  ``-preferred-placement`` (the same level rule), with the KAI ``Topology`` object they name
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
from wlmap.placement.gangs import Topology
from wlmap.placement.plan._kueue_patches import kueue_patches, with_companions
from wlmap.placement.plan._levels import (
    annotation_for,
    coarser,
    coarser_key,
    patch_item,
    placed,
)
from wlmap.placement.plan.gang_plan import GangPlan
from wlmap.placement.plan.room import CLUSTER, level_key, level_word
from wlmap.scheduler_names import KAI_PREFERRED, KAI_REQUIRED, KAI_TOPOLOGY
from wlmap.scheduler_names import KAI_TOPOLOGY_API as KAI_API
from wlmap.workload import PodChanges, WorkloadView

__all__ = [
    "affinity_patches",
    "kai_objects",
    "kueue_patches",
    "node_selector_term",
    "workload_api_objects",
]


def affinity_patches(
    definition: Definition,
    obj: Mapping[str, Any],
    view: WorkloadView,
    plans: Sequence[GangPlan],
    topology: Topology,
) -> list[dict[str, Any]]:
    """One node-affinity patch per component of the placed gangs."""
    terms: dict[str, list[dict[str, Any]]] = {}
    for plan in placed(plans):
        expressions = node_selector_term(plan, topology)
        for component in with_companions(view, plan.request.components):
            known = terms.setdefault(component, [])
            if expressions not in known:
                known.append(expressions)
    items = []
    for component, ours in terms.items():
        node_affinity = _merged(_existing(view, component), ours)
        changes = PodChanges(affinity={"nodeAffinity": node_affinity})
        shown = {"nodeAffinity": node_affinity}
        items.append(patch_item(definition, obj, component, changes, shown))
    return items


def kai_objects(
    obj: Mapping[str, Any], plans: Sequence[GangPlan], topology: Topology
) -> dict[str, Any] | None:
    """The workload's KAI annotations as patches, and the Topology they name; None when no
    gang is placed."""
    chosen = placed(plans)
    if not chosen:
        return None
    found: tuple[str, str] | None = None
    for plan in chosen:
        found = coarser(
            annotation_for(plan, topology, KAI_REQUIRED, KAI_PREFERRED), found, topology
        )
    assert found is not None
    key, level = found
    name = next((p.request.topology_name for p in chosen if p.request.topology_name), None)
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
    for plan in placed(plans):
        level = plan.level if plan.level is not None and plan.level != CLUSTER else None
        if level is None:
            continue
        label = _dns(_group_of(plan.request.name))
        previous = keys.get(label)
        keys[label] = (
            level_key(topology, level)
            if previous is None
            else coarser_key(previous, level_key(topology, level), topology)
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


def node_selector_term(plan: GangPlan, topology: Topology) -> dict[str, Any]:
    """The node-selector term that holds a placed gang: its domain's level labels, coarsest
    first (rack names repeat across blocks), or the top-level domains it spans."""
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
