"""What the placement controller reads and writes on a DRA gang's pods and claims: the
claim entries made from templates, the claims the claim controller recorded for them, and
the annotations of a claim narrowed to planned devices, and the gang domain the devices
of bound pods' claims share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "NARROWED_FROM",
    "PLANNED",
    "gang_domain",
    "generated",
    "held",
    "narrowed",
    "template_claims",
]

NARROWED_FROM = "wlmap.dev/narrowed-from"  # annotation on a replacement claim
PLANNED = "wlmap.dev/planned-devices"  # and the devices it was narrowed to


def template_claims(pod: Mapping[str, Any]) -> dict[str, str]:
    """The pod's claim entries made from templates: entry name -> template name."""
    entries = (pod.get("spec") or {}).get("resourceClaims") or ()
    return {
        str(e.get("name")): str(e["resourceClaimTemplateName"])
        for e in entries
        if isinstance(e, Mapping) and e.get("resourceClaimTemplateName")
    }


def generated(pod: Mapping[str, Any]) -> dict[str, str]:
    """Entry name -> the claim made for it, as the pod's status records them."""
    statuses = (pod.get("status") or {}).get("resourceClaimStatuses") or ()
    return {
        str(s.get("name")): str(s["resourceClaimName"])
        for s in statuses
        if isinstance(s, Mapping) and s.get("resourceClaimName")
    }


def held(claim: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The devices a claim holds: those allocated, or, for a narrowed claim not allocated
    yet, those planned for it (no other gang may be planned onto them meanwhile)."""
    allocation = (claim.get("status") or {}).get("allocation") or {}
    results = (allocation.get("devices") or {}).get("results") or ()
    if results:
        return [(str(r.get("driver")), str(r.get("pool")), str(r.get("device"))) for r in results]
    planned = str(((claim.get("metadata") or {}).get("annotations") or {}).get(PLANNED) or "")
    found = []
    for key in filter(None, planned.split(",")):
        driver, _, rest = key.partition("/")
        pool, _, device = rest.rpartition("/")  # pool names may hold slashes, the others not
        found.append((driver, pool, device))
    return found


def narrowed(claim: Mapping[str, Any] | None) -> bool:
    """Whether a claim is one the controller made in place of a generated one."""
    return claim is not None and bool(
        ((claim.get("metadata") or {}).get("annotations") or {}).get(NARROWED_FROM)
    )


def gang_domain(
    inventory: Any, claims: Sequence[Mapping[str, Any] | None], gang: Sequence[str]
) -> dict[str, Any]:
    """The values of the gang attributes that the devices held by ``claims`` (the bound
    pods' claims) share: the domain the gang's replacements must stay in. An attribute
    the held devices do not agree on (or no device holds) is left free."""
    devices = {d.key: d for d in inventory.devices}
    held_devices = [devices[k] for c in claims if c is not None for k in held(c) if k in devices]
    domain: dict[str, Any] = {}
    for attribute in gang:
        values = {d.attributes.get(attribute) for d in held_devices}
        if len(values) == 1 and None not in values:
            domain[attribute] = values.pop()
    return domain
