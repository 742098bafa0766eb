"""A DRA gang's devices chosen over the cluster's inventory: the gang planned all at once
(:class:`wlmap.placement.devices.GangPlanner`), the devices every allocated or narrowed claim
holds taken, and, for replacements, every device outside the gang's domain taken too; and,
when it does not fit, the drivers whose new devices could change that (what a gated gang
waits for, see :mod:`._device_waits`). Pure: the caller reads the cluster and writes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.operator.placing._claims import held, template_claims

__all__ = ["plan_devices", "wanted_drivers"]


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
    from wlmap.placement.devices import (  # noqa: PLC0415 - start-up cost
        DeviceState,
        GangPlanner,
        PodClaims,
        identifying_attributes,
        why_not,
    )

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
    from wlmap.placement.devices import DeviceState  # noqa: PLC0415 - start-up cost

    state = DeviceState(inventory)
    drivers: set[str] = set()
    for template in sorted({t for p in gated for t in template_claims(p).values()}):
        claim = inventory.claims[template]
        for request in claim.requests:
            for option in request.alternatives or (request,):
                others = [d for d in inventory.devices if d.driver not in drivers]
                drivers.update(d.driver for d in state.candidates(claim, option, others))
    return frozenset(drivers)


def _name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name"))
