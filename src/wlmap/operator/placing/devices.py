"""DRA gangs in the placement controller: plan a gated gang's devices, narrow each pod's
claims to them, and release the pods for kube-scheduler to allocate and bind.

A workload whose gated pods name ResourceClaimTemplates is placed by devices, not by
node-affinity domain. Once every such pod exists and the claim controller has made each
pod's claims (``status.resourceClaimStatuses``), the gang is planned with
:class:`wlmap.placement.devices.GangPlanner` over the cluster's ResourceSlices, DeviceClasses
and the devices every allocated ResourceClaim holds: all pods at once, each claim's
``matchAttribute`` constraints kept, aligned groups kept whole, and, when the workload's
``wlmap.dev/device-gang-attributes`` annotation names attributes (``gpu.nvidia.com/cliqueId``),
every device of the gang sharing one value of each.

The plan itself is :mod:`._device_plan`; each planned pod's claims are then replaced by
copies narrowed to its devices and the pod released (:mod:`._claim_narrowing`). A pod
whose claims were all narrowed before a restart is released as it is.

A gang some of whose pods are bound is being refilled: its gated pods replace pods lost
(to devices removed from their slice, see :mod:`._slice_faults`, or to a faulty node).
They are planned only over the devices that share the gang attributes' values with the
devices the bound pods' claims hold (:func:`._claims.gang_domain`), so the gang stays in
its clique; while that domain has no room they stay gated (``ReplacementWaiting``), and
a gang that does not fit waits for devices (:mod:`._device_waits`): planned again on a
timer, and at once when a slice adds devices of a driver it may use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.errors import WlmapError
from wlmap.operator.core.gate import is_gated
from wlmap.operator.placing._claim_narrowing import narrow_and_release
from wlmap.operator.placing._claims import (
    NARROWED_FROM,
    PLANNED,
    gang_domain,
    generated,
    narrowed,
    template_claims,
)
from wlmap.operator.placing._device_plan import plan_devices, wanted_drivers
from wlmap.operator.placing.placement_condition import report
from wlmap.operator.placing.release import FINISHED, release
from wlmap.operator.placing.state import PlacingState
from wlmap.sources.cluster import ApiError
from wlmap.workload import WorkloadView

__all__ = [
    "GANG_ATTRIBUTES",
    "NARROWED_FROM",
    "PLANNED",
    "place_devices",
    "plan_devices",
    "template_claims",
]

GANG_ATTRIBUTES = "wlmap.dev/device-gang-attributes"  # annotation on the workload
_RESOURCE = "/apis/resource.k8s.io/v1"
CLAIMS_WAIT_SECONDS = 5.0


async def place_devices(
    state: PlacingState,
    obj: Mapping[str, Any],
    view: WorkloadView,
    live: Sequence[Mapping[str, Any]],
) -> bool | None:
    """Place the workload's gated DRA gang; None when no gated pod names a claim
    template (the domain placement applies), else whether to look again later."""
    if not any(template_claims(p) for p in live if is_gated(p)):
        return None
    from wlmap.placement.devices import read_dra  # noqa: PLC0415 - the CEL engine
    from wlmap.placement.feed import workload_claims  # noqa: PLC0415

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
        placed = await narrow_and_release(state, allocation, gated, by_name, inventory, identifying)
    except WlmapError as exc:
        await report(state, obj, False, "CannotPlan", str(exc))
        return False
    await _report(state, obj, bool(bound), gang, domain, len(gated), placed, reason)
    return False


async def _report(
    state: PlacingState,
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


async def _with_claims(
    state: PlacingState, pods: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
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


async def _list(state: PlacingState, path: str) -> list[dict[str, Any]]:
    assert state.cluster is not None
    found = await state.cluster.request("GET", path)
    kind = str(found.get("kind", "")).removesuffix("List")
    return [
        {"apiVersion": "resource.k8s.io/v1", "kind": kind, **i} for i in found.get("items") or ()
    ]


def _name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name"))
