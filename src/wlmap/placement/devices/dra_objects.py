"""The ``resource.k8s.io/v1`` objects the device planner works on, as frozen values.

Only what allocation reads is kept: a device's driver, pool, node, typed attributes and
capacity; a class's CEL selectors; a claim's requests (``exactly`` or ``firstAvailable``,
with class, selectors, count or ``All``) and its ``matchAttribute`` constraints. Attribute
names are kept fully qualified (``gpu.nvidia.com/productName``): a slice's short names are
qualified with its driver when read, as the API defines them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

__all__ = [
    "AttributeValue",
    "Claim",
    "Constraint",
    "Device",
    "DeviceClass",
    "Request",
    "Version",
    "qualified",
]


@dataclass(frozen=True, order=True)
class Version:
    """A ``version`` attribute value (semantic version text, compared as such in CEL)."""

    text: str


AttributeValue = int | bool | str | Version
"""One typed attribute value: ``int``, ``bool``, ``string`` or ``version``."""


def qualified(name: str, driver: str) -> str:
    """The fully qualified form of an attribute or capacity name of ``driver``'s device."""
    return name if "/" in name else f"{driver}/{name}"


@dataclass(frozen=True)
class Device:
    """One device a ResourceSlice publishes.

    Attributes:
        name: the device name, unique within its pool.
        driver: the driver that publishes it (``gpu.nvidia.com``).
        pool: the pool name.
        node: the node it is local to (``spec.nodeName``), or None for a device reachable
            from several nodes.
        attributes: typed values by fully qualified name.
        capacity: amounts in base units by fully qualified name.
        index: position in the input (slice order, then device order): the order the
            in-tree allocator tries devices in.
        taints: ``key=effect`` of the taints that keep new claims off the device
            (``NoSchedule``, ``NoExecute``): a driver's word that it is unhealthy.
    """

    name: str
    driver: str
    pool: str
    node: str | None
    attributes: dict[str, AttributeValue] = field(default_factory=dict, compare=False)
    capacity: dict[str, int] = field(default_factory=dict, compare=False)
    index: int = 0
    taints: tuple[str, ...] = field(default=(), compare=False)

    @cached_property
    def key(self) -> tuple[str, str, str]:
        """``(driver, pool, device)``: the identity an allocation result names."""
        return (self.driver, self.pool, self.name)

    def attribute(self, name: str) -> AttributeValue | None:
        """An attribute by fully qualified name, or None when the device has none."""
        return self.attributes.get(name)


@dataclass(frozen=True)
class DeviceClass:
    """A DeviceClass: the CEL selectors every device of the class matches."""

    name: str
    selectors: tuple[str, ...] = ()


@dataclass(frozen=True)
class Request:
    """One device request of a claim (an ``exactly`` request or one alternative of
    ``firstAvailable``).

    Attributes:
        name: the request name (``<request>/<alternative>`` for an alternative).
        device_class: the DeviceClass name.
        selectors: CEL selectors of the request itself, ANDed with the class's.
        count: devices to allocate in ``ExactCount`` mode.
        mode: ``ExactCount`` or ``All`` (every matching device of the node).
        alternatives: for ``firstAvailable``, the alternatives in preference order; the
            request's own fields are then unused.
    """

    name: str
    device_class: str = ""
    selectors: tuple[str, ...] = ()
    count: int = 1
    mode: Literal["ExactCount", "All"] = "ExactCount"
    alternatives: tuple[Request, ...] = ()


@dataclass(frozen=True)
class Constraint:
    """A ``matchAttribute`` constraint: the devices of ``requests`` (all requests when
    empty) share one value of ``attribute`` (fully qualified); a device without the
    attribute does not satisfy it."""

    attribute: str
    requests: tuple[str, ...] = ()

    def covers(self, request: str) -> bool:
        """Whether a request (or an alternative ``<request>/<name>``, named whole or by
        its request) is constrained."""
        return (
            not self.requests
            or request in self.requests
            or request.split("/", 1)[0] in self.requests
        )


@dataclass(frozen=True)
class Claim:
    """A ResourceClaim, or the claim a ResourceClaimTemplate makes for each pod.

    Attributes:
        name: ``<kind> <namespace>/<name>``, used in messages.
        requests: the device requests, in order.
        constraints: the ``matchAttribute`` constraints across requests.
    """

    name: str
    requests: tuple[Request, ...]
    constraints: tuple[Constraint, ...] = ()
