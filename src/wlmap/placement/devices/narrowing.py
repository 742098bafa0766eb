"""A claim narrowed to the devices a plan chose, so that any allocator gives exactly those.

A ResourceClaim's spec cannot change once created, and DRA has no field naming a device:
the only way to hand kube-scheduler's allocator a chosen device is a CEL selector it must
match. CEL sees a device's driver, attributes and capacity, not its name or pool, so the
devices are named by an attribute of their driver whose value no other device of that
driver shares (``uuid`` when the driver publishes one, as the NVIDIA driver does, else the
first such attribute by name). Each request of the claim gets one more selector, ANDed with
its own and its class's: the device is one of those chosen for that request. A
``firstAvailable`` request keeps only the alternative the plan chose. Constraints stay as
they are; the chosen devices keep them, since the plan did.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.errors import PlacementInputError
from wlmap.placement.devices.allocator import DeviceChoice
from wlmap.placement.devices.dra_objects import Device

__all__ = ["identifying_attributes", "narrowed_claim_spec", "selector_for"]

PREFERRED = "uuid"


def identifying_attributes(devices: Sequence[Device]) -> dict[str, str]:
    """Per driver, the attribute (fully qualified) whose value tells its devices apart:
    ``<driver>/uuid`` when unique, else the first unique string or int attribute of the
    driver's own domain by name. A driver with none is left out."""
    by_driver: dict[str, list[Device]] = {}
    for device in devices:
        by_driver.setdefault(device.driver, []).append(device)
    found: dict[str, str] = {}
    for driver, own in by_driver.items():
        names = sorted(
            {n for d in own for n, v in d.attributes.items() if n.startswith(driver + "/")},
            key=lambda n: (n != f"{driver}/{PREFERRED}", n),
        )
        for name in names:
            values = [d.attribute(name) for d in own]
            if all(isinstance(v, str | int) and not isinstance(v, bool) for v in values) and len(
                set(values)
            ) == len(values):
                found[driver] = name
                break
    return found


def selector_for(devices: Sequence[Device], identifying: Mapping[str, str]) -> str:
    """The CEL expression matching exactly ``devices`` (one driver's or several).

    Raises:
        PlacementInputError: a device's driver has no identifying attribute.
    """
    by_driver: dict[str, list[Device]] = {}
    for device in devices:
        by_driver.setdefault(device.driver, []).append(device)
    parts = []
    for driver, own in sorted(by_driver.items()):
        attribute = identifying.get(driver)
        if attribute is None:
            raise PlacementInputError(
                f"devices of driver {driver!r}: expected an attribute whose value no two "
                "devices share (such as uuid), to name the chosen devices in a selector",
                file="ResourceSlices",
                row=None,
                column=None,
            )
        domain, name = attribute.rsplit("/", 1)
        values = ", ".join(_literal(d.attribute(attribute)) for d in own)
        parts.append(
            f"(device.driver == {_literal(driver)}"
            f" && device.attributes[{_literal(domain)}].{name} in [{values}])"
        )
    return " || ".join(parts)


def narrowed_claim_spec(
    spec: Mapping[str, Any], choices: Sequence[DeviceChoice], identifying: Mapping[str, str]
) -> dict[str, Any]:
    """A copy of a claim's ``spec`` (``spec.devices.requests`` as the API has them) whose
    requests each select only the devices ``choices`` gave them.

    Raises:
        PlacementInputError: a request has no chosen device, or a driver has no
            identifying attribute.
    """
    result = copy.deepcopy(dict(spec))
    devices = result.get("devices") or {}
    requests = []
    for request in devices.get("requests") or ():
        name = str(request.get("name"))
        if "firstAvailable" in request:
            chosen = {
                c.request.split("/", 1)[1] for c in choices if c.request.startswith(name + "/")
            }
            kept = [a for a in request["firstAvailable"] if a.get("name") in chosen]
            own = [c.device for c in choices if c.request.startswith(name + "/")]
            for alternative in kept:
                _narrow(alternative, own, identifying, name)
            requests.append({**request, "firstAvailable": kept})
        else:
            own = [c.device for c in choices if c.request == name]
            body = dict(request.get("exactly") or {})
            _narrow(body, own, identifying, name)
            requests.append({**request, "exactly": body})
    devices["requests"] = requests
    result["devices"] = devices
    return result


def _narrow(
    body: dict[str, Any], devices: Sequence[Device], identifying: Mapping[str, str], name: str
) -> None:
    if not devices:
        raise PlacementInputError(
            f"request {name}: expected devices chosen by the plan, got none",
            file="ResourceClaim",
            row=None,
            column=None,
        )
    selectors = list(body.get("selectors") or ())
    body["selectors"] = [*selectors, {"cel": {"expression": selector_for(devices, identifying)}}]


def _literal(value: object) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(value)
