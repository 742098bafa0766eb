"""The placement controller: plan a gated gang, narrow its pods to the chosen domain, and
release them to kube-scheduler.

Run after each reconciliation of a workload that has pods carrying the placement gate
(see :mod:`.gating`). Once every pod of each gang exists, the gangs are planned with
:mod:`wlmap.placement.plan` over the cluster's nodes and pods as the watches of
:mod:`.capacity` keep them (no request per plan), with the configured gang policy. Each
pod of a placed gang gets a required node-affinity term on the level labels of its gang's
domain and on its planned node's name (ANDed into its own terms; allowed on a gated pod)
and loses the gate in the same patch; kube-scheduler then binds it there. A gang that
does not fit (a required level no domain can hold) stays gated. A workload whose
definition declares no gang (a StatefulSet) is one gang of its GPU pods when they carry a
topology intent (:func:`~wlmap.placement.topology.workload_gangs.gang_requests`), and is
released untouched without one. Faulty nodes are left out of plans
(:mod:`.placement_faults`), the gated replacements of a gang whose other pods are bound
(pods lost to a faulty node, or failed) are placed beside them by
:func:`wlmap.operator._refill.refill`, not planned afresh, and a gang of DRA claims is
placed by devices (:mod:`.devices`).

What happened is written as the workload's condition ``WlmapPlacement`` (``True`` placed,
``False`` waiting, with the reason: pods still to come, or the plan's shortfall) and, when
the condition changes, as an Event; it is written again when the workload's status
loses it (a StatefulSet's controller rewrites the whole status). A workload no longer
opted in has its gated pods released untouched.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.errors import WlmapError
from wlmap.operator.gating import GATE, is_gated, opted_in
from wlmap.operator.placement_condition import forget, report
from wlmap.operator.reports import log_name
from wlmap.operator.state import State
from wlmap.sources.cluster import ApiError
from wlmap.sources.cluster.connection import MERGE_PATCH
from wlmap.workload import WorkloadView

log = logging.getLogger("wlmap.operator")
FINISHED = frozenset({"Succeeded", "Failed"})


async def place(
    state: State, obj: Mapping[str, Any], view: WorkloadView, pods: Sequence[Mapping[str, Any]]
) -> bool:
    """Place the workload's gated gangs; True when it should be looked at again later (a
    gang does not fit now: other pods finishing can make room)."""
    live = [p for p in pods if not (p.get("metadata") or {}).get("deletionTimestamp")]
    # a pod released by an earlier plan still looks gated until its watch event arrives
    gated = [p for p in live if _held(state, p)]
    if not gated:
        return False
    if not opted_in(state, obj):
        forget(state, obj)  # nothing to say again
        await release(state, gated, None)
        log.info("placement off: %d pod(s) released", len(gated), extra={"workload": log_name(obj)})
        return False
    from wlmap.operator.devices import place_devices  # noqa: PLC0415 - it imports this module

    by_devices = await place_devices(state, obj, view, live)
    if by_devices is not None:  # a DRA gang: its claims are narrowed, not its domain
        return by_devices
    # numpy and the policies load with the first plan: the operator runs without them
    from wlmap.placement.plan.render import node_selector_term  # noqa: PLC0415
    from wlmap.placement.topology.workload_gangs import gang_requests  # noqa: PLC0415

    meta = obj.get("metadata") or {}
    try:
        requests = gang_requests(view, annotations=meta.get("annotations"))
    except WlmapError as exc:
        await report(state, obj, False, "CannotPlan", str(exc))
        return False
    if not requests:
        await release(state, gated, None)
        await report(state, obj, True, "NoGang", _no_gang(view) + "; pods released")
        return False
    members, waiting = _members(requests, live, view)
    if waiting:
        why = "; ".join([*waiting, *_one_at_a_time(obj)])
        await report(state, obj, False, "WaitingForPods", why, event=False)
        return False
    chosen = [i for i, own in enumerate(members) if any(_held(state, p) for p in own)]
    if not chosen:
        return False  # every gated pod was released by an earlier plan: its events lag
    # replacements of a gang whose other pods are bound join them (see placement_faults)
    refills = [i for i in chosen if any(_bound(p) for p in members[i])]
    if refills:
        from wlmap.operator._refill import refill  # noqa: PLC0415 - it imports this; numpy

        again = [await refill(state, obj, requests[i], members[i], pods) for i in refills]
        chosen = [i for i in chosen if i not in refills]
        if not chosen:
            return any(again)
    held = [[p for p in members[i] if _held(state, p)] for i in chosen]
    try:
        plans, topology, nodes = await _plan(state, [requests[i] for i in chosen], held)
    except WlmapError as exc:
        await report(state, obj, False, "CannotPlan", str(exc))
        return False
    short = [f"{p.request.name}: {p.shortfall.text}" for p in plans if p.shortfall is not None]
    if short:
        await report(state, obj, False, "DoesNotFit", "; ".join(short))
        return True
    said = []
    for own, plan in zip(held, plans, strict=True):
        term = node_selector_term(plan, topology)
        await _release_pinned(state, own, term, nodes)
        where = ", ".join(f"{e['key']}={','.join(e['values'])}" for e in term["matchExpressions"])
        said.append(f"{plan.request.name}: {plan.request.pods} pods in {where} ({plan.policy})")
    await report(state, obj, True, "Placed", "; ".join(said))
    return False


def _no_gang(view: WorkloadView) -> str:
    if view.gang_groups:
        return "no gang of GPU pods to place"
    return (
        "no gang in its definition and no GPU pods with a topology intent (a Kueue "
        "podset-required-topology or podset-preferred-topology annotation on the pod "
        "template, or KAI's topology placement annotations on the workload)"
    )


def _one_at_a_time(obj: Mapping[str, Any]) -> list[str]:
    """Why a StatefulSet's pods may never all exist: ``OrderedReady`` (the default)
    creates a pod only once the one before is Ready, which a gated pod never is."""
    spec = obj.get("spec") or {}
    if obj.get("kind") != "StatefulSet" or spec.get("podManagementPolicy") == "Parallel":
        return []
    return [
        "podManagementPolicy OrderedReady creates each pod once the one before is Ready, "
        "which a gated pod never is: set it to Parallel"
    ]


def _members(
    requests: Sequence[Any], live: Sequence[Mapping[str, Any]], view: WorkloadView
) -> tuple[list[list[Mapping[str, Any]]], list[str]]:
    """Each gang's unfinished pods (by name, as many as it asks for), and what each gang
    still waits for."""
    component = {p.name: p.component for p in view.pods or ()}
    members: list[list[Mapping[str, Any]]] = []
    taken: set[str] = set()
    waiting = []
    for request in requests:
        own = sorted(
            (
                p
                for p in live
                if component.get(_name(p)) in request.components
                and _name(p) not in taken
                and (p.get("status") or {}).get("phase") not in FINISHED
            ),
            key=_name,
        )[: request.pods]
        taken.update(_name(p) for p in own)
        members.append(own)
        if len(own) < request.pods:
            waiting.append(f"{request.name}: waiting for its {request.pods} pods to exist")
    return members, waiting


async def _plan(
    state: State, requests: Sequence[Any], members: Sequence[Sequence[Mapping[str, Any]]]
) -> tuple[list[Any], Any, dict[str, str]]:
    """The gangs planned on the cluster as the capacity cache holds it, its topology, and
    each gated pod's node by name. When every gang fits, their gated pods are assumed on
    the planned nodes before any other plan reads the cluster."""
    from wlmap.placement.plan import plan_gangs  # noqa: PLC0415
    from wlmap.placement.topology.registry import make_gang_policy  # noqa: PLC0415

    capacity = state.capacity
    assert capacity is not None
    policy = make_gang_policy(state.settings.placement_policy)
    async with capacity.planning:  # no other plan between this one's read and its pods
        occupancy = await capacity.occupancy()
        # the policies are CPU work
        plans = await asyncio.to_thread(plan_gangs, occupancy, requests, policy)
        placed = [plan.placement for plan in plans if plan.placement is not None]
        nodes: dict[str, str] = {}
        if len(placed) == len(plans):
            for plan, placement, own in zip(plans, placed, members, strict=True):
                nodes.update(capacity.assume(own, placement, occupancy, plan.request.gpus_per_pod))
    return plans, occupancy.topology, nodes


async def _release_pinned(
    state: State,
    pods: Sequence[Mapping[str, Any]],
    term: Mapping[str, Any],
    nodes: Mapping[str, str],
) -> None:
    """Release a placed gang's pods, each narrowed to the domain and pinned to its planned
    node: kube-scheduler spreading a gang over its domain would leave no whole node there
    for the next gang planned into it. A pod whose release fails is planned again."""
    assert state.capacity is not None
    for done, pod in enumerate(pods):
        node = nodes.get(_name(pod))
        pinned = [{"key": "metadata.name", "operator": "In", "values": [node]}] if node else []
        try:
            await release(state, [pod], {**term, "matchFields": pinned})
        except BaseException:
            state.capacity.forget(pods[done:])
            raise


async def cluster_objects(state: State) -> list[dict[str, Any]]:
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
    state: State, pods: Sequence[Mapping[str, Any]], term: Mapping[str, Any] | None
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


def _bound(pod: Mapping[str, Any]) -> bool:
    return not is_gated(pod) and bool((pod.get("spec") or {}).get("nodeName"))


def _held(state: State, pod: Mapping[str, Any]) -> bool:
    """Whether a pod carries the gate and no plan has released it yet."""
    capacity = state.capacity
    return is_gated(pod) and (capacity is None or not capacity.released(pod))


def _name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name"))
