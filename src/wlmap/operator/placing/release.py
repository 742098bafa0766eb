"""Releasing gated pods: the gate removed, each pod's node affinity narrowed to its
planned domain first, and the group link its reconciliation kept written in the same
patch; and the cluster's nodes and bound pods, as the plans of replacements read them."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.operator.core.gate import GATE
from wlmap.operator.core.shared import Shared
from wlmap.sources.cluster import ApiError
from wlmap.sources.cluster.connection import MERGE_PATCH

__all__ = ["FINISHED", "cluster_objects", "release"]

FINISHED = frozenset({"Succeeded", "Failed"})


async def cluster_objects(state: Shared) -> list[dict[str, Any]]:
    """What plans read: the cluster's nodes and bound pods."""
    assert state.cluster is not None
    cluster = state.cluster
    nodes = await cluster.request("GET", "/api/v1/nodes")
    bound = await cluster.request(
        "GET", "/api/v1/pods", params={"fieldSelector": "spec.nodeName!="}
    )
    return [
        *({"apiVersion": "v1", "kind": "Node", **n} for n in nodes.get("items") or ()),
        *({"apiVersion": "v1", "kind": "Pod", **p} for p in bound.get("items") or ()),
    ]


async def release(
    state: Shared, pods: Sequence[Mapping[str, Any]], term: Mapping[str, Any] | None
) -> None:
    """Remove the gate from each pod, narrowing its node affinity by ``term`` first; the
    group link its reconciliation kept for the release is written in the same patch."""
    assert state.cluster is not None
    for pod in pods:
        meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        gates = [g for g in spec.get("schedulingGates") or () if g.get("name") != GATE]
        body: dict[str, Any] = {"spec": {"schedulingGates": gates or None}}
        link = state.written.deferred(pod)
        if link is not None:
            body["metadata"] = link[0].patch(link[1])
        if term is not None:
            affinity = copy.deepcopy(dict(spec.get("affinity") or {}))
            affinity["nodeAffinity"] = _narrowed(affinity.get("nodeAffinity") or {}, term)
            body["spec"]["affinity"] = affinity
        path = f"/api/v1/namespaces/{meta.get('namespace')}/pods/{meta.get('name')}"
        try:
            await state.cluster.request("PATCH", path, body=body, content_type=MERGE_PATCH)
        except ApiError as exc:
            if exc.code != 404:  # deleted meanwhile
                raise
            continue
        if link is not None:
            state.written.linked(pod, link[1])


def _narrowed(node_affinity: Mapping[str, Any], term: Mapping[str, Any]) -> dict[str, Any]:
    """The node affinity with ``term`` ANDed into each required term (the only change the
    API allows to terms a gated pod already has), or as the one term when it has none."""
    result = copy.deepcopy(dict(node_affinity))
    required = result.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    theirs = list(required.get("nodeSelectorTerms") or ())
    ours = list(term["matchExpressions"])
    fields = list(term.get("matchFields") or ())
    terms = [
        {
            **t,
            "matchExpressions": [*(t.get("matchExpressions") or ()), *ours],
            **({"matchFields": [*(t.get("matchFields") or ()), *fields]} if fields else {}),
        }
        for t in theirs
    ] or [{"matchExpressions": ours, **({"matchFields": fields} if fields else {})}]
    result["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
    return result
