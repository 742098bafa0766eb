"""A planned DRA pod's claims narrowed to its devices, and the pod released.

A claim's spec is immutable, so each generated claim is replaced: a copy narrowed to the
chosen devices (:mod:`wlmap.placement.devices.narrowing`) is created with the same owner and
pod-claim annotation, the pod's ``status.resourceClaimStatuses`` is pointed at it, and the
old claim is deleted, in that order: the claim controller finds the pod's claim at every
step and never makes a third. The pod's gate is then removed; kube-scheduler's allocator
can give each claim only the planned devices, so the pod lands on their node. A narrowed
claim records its devices (``wlmap.dev/planned-devices``): until it is allocated no other
plan takes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.operator.placing._claims import (
    NARROWED_FROM,
    PLANNED,
    generated,
    narrowed,
    template_claims,
)
from wlmap.operator.placing.release import release
from wlmap.operator.placing.state import PlacingState
from wlmap.sources.cluster import ApiError
from wlmap.sources.cluster.connection import MERGE_PATCH

__all__ = ["narrow_and_release"]

_RESOURCE = "/apis/resource.k8s.io/v1"


async def narrow_and_release(
    state: PlacingState,
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


async def _narrow(
    state: PlacingState,
    pod: Mapping[str, Any],
    claims: Mapping[str, Mapping[str, Any]],
    inventory: Any,
    choices: Sequence[Any],
    identifying: Mapping[str, str],
) -> None:
    """Replace each of the pod's generated claims by one narrowed to ``choices``."""
    from wlmap.placement.devices import narrowed_claim_spec  # noqa: PLC0415 - start-up cost

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


def _name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name"))
