"""ResourceClaims and ResourceClaimTemplates read into :class:`Claim`.

Reads ``spec.devices`` (``spec.spec.devices`` for a template): requests in the
``resource.k8s.io/v1`` shape (``exactly`` or ``firstAvailable``) or the v1beta1 shape
(class, selectors, count and mode on the request), and ``matchAttribute`` constraints.
A ``distinctAttribute`` constraint is an error rather than silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.placement.devices._fields import Fields
from wlmap.placement.devices.dra_objects import Claim, Constraint, Request
from wlmap.placement.devices.slices import cel_selectors

__all__ = ["read_claim"]

_MODES = ("ExactCount", "All")


def read_claim(obj: Mapping[str, Any], file: str) -> Claim:
    """A claim, or the per-pod claim a template describes.

    Raises:
        PlacementInputError: a field is missing or has the wrong type, a constraint names
            a request the claim does not have, or the claim asks for something the planner
            does not model; the message names the file, the object and the field path.
    """
    fields = Fields(obj, file)
    spec = fields.mapping(obj.get("spec"), "spec")
    root = "spec"
    if obj.get("kind") == "ResourceClaimTemplate" or "spec" in spec:
        spec, root = fields.mapping(spec.get("spec"), "spec.spec"), "spec.spec"
    devices = fields.mapping(spec.get("devices"), f"{root}.devices", required=False)
    requests = tuple(
        _request(fields, entry, f"{root}.devices.requests[{index}]")
        for index, entry in enumerate(
            fields.items(devices.get("requests"), f"{root}.devices.requests")
        )
    )
    if not requests:
        raise fields.fail(f"{root}.devices.requests", "expected at least one request")
    names = {r.name for r in requests} | {a.name for r in requests for a in r.alternatives}
    constraints = []
    for index, entry in enumerate(
        fields.items(devices.get("constraints"), f"{root}.devices.constraints")
    ):
        at = f"{root}.devices.constraints[{index}]"
        body = fields.mapping(entry, at)
        if "distinctAttribute" in body:
            raise fields.fail(f"{at}.distinctAttribute", "distinctAttribute is not modelled")
        attribute = fields.text(body.get("matchAttribute"), f"{at}.matchAttribute")
        if "/" not in attribute:
            raise fields.fail(
                f"{at}.matchAttribute",
                f"expected a fully qualified name <domain>/<name>, got {attribute!r}",
            )
        covered = tuple(
            fields.text(r, f"{at}.requests[{i}]")
            for i, r in enumerate(fields.items(body.get("requests"), f"{at}.requests"))
        )
        unknown = sorted(set(covered) - names)
        if unknown:
            raise fields.fail(
                f"{at}.requests", f"names requests the claim does not have: {', '.join(unknown)}"
            )
        constraints.append(Constraint(attribute, covered))
    return Claim(fields.label, requests, tuple(constraints))


def _request(fields: Fields, entry: Any, at: str) -> Request:
    body = fields.mapping(entry, at)
    name = fields.text(body.get("name"), f"{at}.name")
    if "firstAvailable" in body:
        options = fields.items(body["firstAvailable"], f"{at}.firstAvailable")
        if not options:
            raise fields.fail(f"{at}.firstAvailable", "expected at least one alternative")
        alternatives = []
        for index, option in enumerate(options):
            where = f"{at}.firstAvailable[{index}]"
            sub = fields.text(fields.mapping(option, where).get("name"), f"{where}.name")
            alternatives.append(_exactly(fields, option, where, f"{name}/{sub}"))
        return Request(name=name, alternatives=tuple(alternatives))
    if "exactly" in body:
        return _exactly(fields, body["exactly"], f"{at}.exactly", name)
    return _exactly(fields, body, at, name)


def _exactly(fields: Fields, value: Any, at: str, name: str) -> Request:
    body = fields.mapping(value, at)
    mode = body.get("allocationMode", "ExactCount")
    if mode not in _MODES:
        raise fields.fail(f"{at}.allocationMode", f"expected ExactCount or All, got {mode!r}")
    if body.get("adminAccess"):
        raise fields.fail(f"{at}.adminAccess", "admin access requests are not modelled")
    return Request(
        name=name,
        device_class=fields.text(body.get("deviceClassName"), f"{at}.deviceClassName"),
        selectors=cel_selectors(fields, body.get("selectors"), f"{at}.selectors"),
        count=fields.count(body.get("count"), f"{at}.count", 1) if mode == "ExactCount" else 0,
        mode=mode,
    )
