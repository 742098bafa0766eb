"""DRA gangs in the placement controller: plan a gated gang's devices, narrow each pod's
claims to them, and release the pods for kube-scheduler to allocate and bind.

A workload whose gated pods name ResourceClaimTemplates is placed by devices, not by
node-affinity domain. Once every such pod exists and the claim controller has made each
pod's claims (``status.resourceClaimStatuses``), the gang is planned with
:class:`wlmap.placement.dra.GangPlanner` over the cluster's ResourceSlices, DeviceClasses
and the devices every allocated ResourceClaim holds: all pods at once, each claim's
``matchAttribute`` constraints kept, aligned groups kept whole, and, when the workload's
``wlmap.dev/device-gang-attributes`` annotation names attributes (``gpu.nvidia.com/cliqueId``),
every device of the gang sharing one value of each.

A claim's spec is immutable, so each generated claim is replaced: a copy narrowed to the
chosen devices (:mod:`wlmap.placement.dra.narrowing`) is created with the same owner and
pod-claim annotation, the pod's ``status.resourceClaimStatuses`` is pointed at it, and the
old claim is deleted, in that order: the claim controller finds the pod's claim at every
step and never makes a third. The pod's gate is then removed; kube-scheduler's allocator
can give each claim only the planned devices, so the pod lands on their node. A narrowed
claim records its devices (``wlmap.dev/planned-devices``): until it is allocated no other
plan takes them, and a pod whose claims were all narrowed before a restart is released
as it is.

A gang some of whose pods are bound is being refilled: its gated pods replace pods lost
(to devices removed from their slice, see :mod:`._slice_faults`, or to a faulty node).
They are planned only over the devices that share the gang attributes' values with the
devices the bound pods' claims hold (:func:`._claims.gang_domain`), so the gang stays in
its clique; while that domain has no room they stay gated (``ReplacementWaiting``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.errors import WlmapError
from wlmap.operator._claims import (
    NARROWED_FROM,
    PLANNED,
    gang_domain,
    generated,
    held,
    narrowed,
    template_claims,
)
from wlmap.operator.gating import is_gated
from wlmap.operator.placement import FINISHED, release
from wlmap.operator.placement_condition import report
from wlmap.operator.state import State
from wlmap.sources.cluster import ApiError
from wlmap.sources.cluster.connection import MERGE_PATCH
from wlmap.workload import WorkloadView

__all__ = [
    "GANG_ATTRIBUTES",
    "NARROWED_FROM",
    "PLANNED",
    "place_devices",
    "plan_devices",
    "template_claims",
    "wanted_drivers",
]

GANG_ATTRIBUTES = "wlmap.dev/device-gang-attributes"  # annotation on the workload
_RESOURCE = "/apis/resource.k8s.io/v1"
CLAIMS_WAIT_SECONDS = 5.0


async def place_devices(
    state: State, obj: Mapping[str, Any], view: WorkloadView, live: Sequence[Mapping[str, Any]]
) -> bool | None:
    """Place the workload's gated DRA gang; None when no gated pod names a claim
    template (the domain placement applies), else whether to look again later."""
    if not any(template_claims(p) for p in live if is_gated(p)):
        return None
    from wlmap.placement.dra.inventory import read_dra  # noqa: PLC0415 - the CEL engine
    from wlmap.placement.dra.workload_claims import workload_claims  # noqa: PLC0415

    assert state.cluster is not None
    meta = obj.get("metadata") or {}
    namespace = str(meta.get("namespace"))
    listed = await asyncio.gather(
        _list(state, f"{_RESOURCE}/resourceslices"),
        _list(state, f"{_RESOURCE}/deviceclasses"),
        _list(state, f"{_RESOURCE}/namespaces/{namespace}/resourceclaimtemplates"),
        _list(state, f"{_RESOURCE}/resourceclaims"),
    )
    slices, classes, templates, claims = listed
    try:
        inventory = read_dra([*slices, *classes, *templates], "cluster")
        expected = len(workload_claims(view, inventory))
    except WlmapError as exc:
        await report(state, obj, False, "CannotPlan", str(exc))
        return False
    pods = sorted(
        (
            p
            for p in live
            if template_claims(p) and (p.get("status") or {}).get("phase") not in FINISHED
        ),
        key=_name,
    )
    if len(pods) < expected:
        said = f"{len(pods)} of {expected} pods with device claims exist"
        await report(state, obj, False, "WaitingForPods", said, event=False)
        return False
    gated = [p for p in pods if is_gated(p)]
    if not gated:
        return False
    gated = await _with_claims(state, gated)
    unmade = [_name(p) for p in gated if len(generated(p)) < len(template_claims(p))]
    if unmade:
        said = f"waiting for the claims of {', '.join(unmade)} to be created"
        await report(state, obj, False, "WaitingForClaims", said, event=False)
        return True
    by_name = {str((c.get("metadata") or {}).get("name")): c for c in claims}
    # narrowed before a restart, not released: their claims hold the plan already
    done = [p for p in gated if all(narrowed(by_name.get(c)) for c in generated(p).values())]
    if done:
        await release(state, done, None)
        gated = [p for p in gated if p not in done]
        if not gated:
            return False
    attributes = str((meta.get("annotations") or {}).get(GANG_ATTRIBUTES) or "")
    gang = [a.strip() for a in attributes.split(",") if a.strip()]
    # replacements (of pods lost to a fault) join the devices their bound peers hold
    bound = [p for p in pods if not is_gated(p) and (p.get("spec") or {}).get("nodeName")]
    domain = gang_domain(
        inventory, [by_name.get(c) for p in bound for c in generated(p).values()], gang
    )
    try:
        allocation, reason, identifying = await asyncio.to_thread(
            plan_devices, inventory, gated, claims, gang, domain
        )
        if allocation is None:  # a device published again plans it at once
            state.device_waits.wait(obj, await asyncio.to_thread(wanted_drivers, inventory, gated))
    except WlmapError as exc:
        await report(state, obj, False, "CannotPlan", str(exc))
        return False
    if allocation is None:
        await _report(state, obj, bool(bound), gang, domain, len(gated), None, reason)
        return True
    try:
        placed = await _apply(state, allocation, gated, by_name, inventory, identifying)
    except WlmapError as exc:
        await report(state, obj, False, "CannotPlan", str(exc))
        return False
    await _report(state, obj, bool(bound), gang, domain, len(gated), placed, reason)
    return False


async def _report(
    state: State,
    obj: Mapping[str, Any],
    refill: bool,
    gang: Sequence[str],
    domain: Mapping[str, Any],
    count: int,
    placed: Sequence[str] | None,
    reason: str,
) -> None:
    """Say what a plan did: the gang placed or not, or (``refill``) its replacements."""
    inside = _in_words(domain)
    if placed is None and refill:
        said = f"{count} replacement pod(s) wait for devices{inside}: {reason}"
        await report(state, obj, False, "ReplacementWaiting", said)
    elif placed is None:
        await report(state, obj, False, "DoesNotFit", reason)
    elif refill:
        said = f"{count} replacement pod(s) given devices{inside}: " + "; ".join(placed)
        await report(state, obj, True, "Replaced", said)
    else:
        shared = f"; sharing {', '.join(gang)}" if gang else ""
        await report(state, obj, True, "Placed", "devices: " + "; ".join(placed) + shared)


def _in_words(domain: Mapping[str, Any]) -> str:
    if not domain:
        return ""
    return " in the gang's domain " + ", ".join(f"{k}={v}" for k, v in sorted(domain.items()))


async def _apply(
    state: State,
    allocation: Any,
    gated: Sequence[Mapping[str, Any]],
    claims: Mapping[str, Mapping[str, Any]],
    inventory: Any,
    identifying: Mapping[str, str],
) -> list[str]:
    """Narrow each planned pod's claims and release it; what was placed where."""
    pods = {_name(p): p for p in gated}
    placed = []
    for pod_name, node, choices in allocation.pods:
        await _narrow(state, pods[pod_name], claims, inventory, choices, identifying)
        await release(state, [pods[pod_name]], None)
        devices = ", ".join(c.device.name for c in choices)
        placed.append(f"{pod_name} on {node} ({devices})")
    return placed


def plan_devices(
    inventory: Any,
    gated: Sequence[Mapping[str, Any]],
    claims: Sequence[Any],
    gang: list[str],
    domain: Mapping[str, Any],
) -> tuple[Any, str, dict[str, str]]:
    """The gang's allocation (or None and why the first pod fits nowhere), and the
    attribute naming each driver's devices; only devices with the ``domain``'s attribute
    values are given."""
    from wlmap.placement.dra import DeviceState, GangPlanner, PodClaims  # noqa: PLC0415
    from wlmap.placement.dra.diagnose import why_not  # noqa: PLC0415
    from wlmap.placement.dra.narrowing import identifying_attributes  # noqa: PLC0415

    devices = {d.key: d for d in inventory.devices}
    state = DeviceState(inventory)
    state.take(devices[key] for claim in claims for key in held(claim) if key in devices)
    if domain:  # outside the gang's domain: as if taken
        state.take(
            d
            for d in state.free_devices()
            if any(d.attributes.get(a) != v for a, v in domain.items())
        )
    pods = [
        PodClaims(_name(p), tuple(inventory.claims[t] for t in template_claims(p).values()))
        for p in gated
    ]
    groups = sorted({c.attribute for p in pods for claim in p.claims for c in claim.constraints})
    allocation = GangPlanner(state, gang, groups).plan(pods)
    reason = "" if allocation is not None else f"{pods[0].name}: {why_not(pods[0], state)}"
    return allocation, reason, identifying_attributes(inventory.devices)


def wanted_drivers(inventory: Any, gated: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The drivers whose devices (free or not) the gated pods' claims may be given: those
    whose new devices can let the gang fit."""
    from wlmap.placement.dra import DeviceState  # noqa: PLC0415

    state = DeviceState(inventory)
    drivers: set[str] = set()
    for template in sorted({t for p in gated for t in template_claims(p).values()}):
        claim = inventory.claims[template]
        for request in claim.requests:
            for option in request.alternatives or (request,):
                others = [d for d in inventory.devices if d.driver not in drivers]
                drivers.update(d.driver for d in state.candidates(claim, option, others))
    return frozenset(drivers)


async def _narrow(
    state: State,
    pod: Mapping[str, Any],
    claims: Mapping[str, Mapping[str, Any]],
    inventory: Any,
    choices: Sequence[Any],
    identifying: Mapping[str, str],
) -> None:
    """Replace each of the pod's generated claims by one narrowed to ``choices``."""
    from wlmap.placement.dra.narrowing import narrowed_claim_spec  # noqa: PLC0415

    assert state.cluster is not None
    meta = pod.get("metadata") or {}
    namespace, name = meta.get("namespace"), meta.get("name")
    statuses = generated(pod)
    templates = template_claims(pod)
    replaced = dict(statuses)
    for entry, template in templates.items():
        old = claims.get(statuses[entry])
        if old is None or narrowed(old):
            continue  # gone meanwhile, or narrowed before a restart
        label = inventory.claims[template].name
        own = [c for c in choices if c.claim == label]
        old_meta = old.get("metadata") or {}
        body = {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "generateName": f"{name}-{entry}-"[:57],
                "namespace": namespace,
                "labels": old_meta.get("labels") or {},
                "annotations": {
                    **(old_meta.get("annotations") or {}),
                    NARROWED_FROM: old_meta["name"],
                    PLANNED: ",".join("/".join(c.device.key) for c in own),
                },
                "ownerReferences": old_meta.get("ownerReferences") or [],
            },
            "spec": narrowed_claim_spec(old.get("spec") or {}, own, identifying),
        }
        made = await state.cluster.request(
            "POST", f"{_RESOURCE}/namespaces/{namespace}/resourceclaims", body=body
        )
        replaced[entry] = str(made["metadata"]["name"])
    if replaced == statuses:
        return
    listed = [{"name": k, "resourceClaimName": v} for k, v in replaced.items()]
    await state.cluster.request(
        "PATCH",
        f"/api/v1/namespaces/{namespace}/pods/{name}/status",
        body={"status": {"resourceClaimStatuses": listed}},
        content_type=MERGE_PATCH,
    )
    for entry, old_name in statuses.items():
        if replaced[entry] != old_name:
            path = f"{_RESOURCE}/namespaces/{namespace}/resourceclaims/{old_name}"
            try:
                await state.cluster.request("DELETE", path)
            except ApiError as exc:
                if exc.code != 404:
                    raise


async def _with_claims(state: State, pods: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The pods, each read again (for up to ``CLAIMS_WAIT_SECONDS``) until the claim
    controller has recorded its claims: it makes them right after the pod, and no event of
    the workload follows."""
    assert state.cluster is not None
    current = list(pods)
    for _ in range(int(CLAIMS_WAIT_SECONDS / 0.5)):
        missing = [i for i, p in enumerate(current) if len(generated(p)) < len(template_claims(p))]
        if not missing:
            break
        await asyncio.sleep(0.5)
        for i in missing:
            meta = current[i].get("metadata") or {}
            path = f"/api/v1/namespaces/{meta.get('namespace')}/pods/{meta.get('name')}"
            try:
                current[i] = await state.cluster.request("GET", path)
            except ApiError as exc:
                if exc.code != 404:
                    raise
    return current


async def _list(state: State, path: str) -> list[dict[str, Any]]:
    assert state.cluster is not None
    found = await state.cluster.request("GET", path)
    kind = str(found.get("kind", "")).removesuffix("List")
    return [
        {"apiVersion": "resource.k8s.io/v1", "kind": kind, **i} for i in found.get("items") or ()
    ]


def _name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name"))
