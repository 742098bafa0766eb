"""ResourceSlices and DeviceClasses read into :class:`Device` and :class:`DeviceClass`.

A slice's devices carry typed attributes (exactly one of ``int``, ``bool``, ``string``,
``version``) and capacities (``value`` quantities, kept in base units rounded up). Short
attribute and capacity names are qualified with the slice's driver. Only node-local
devices (``spec.nodeName``) and devices of ``allNodes`` slices (node None) are modelled;
a slice with a node selector is an error, since the planner could not tell which nodes
reach its devices. A device's ``NoSchedule`` and ``NoExecute`` taints are kept: the
allocator gives no new claim a tainted device (tolerations are not read).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from wlmap.errors import WlmapError
from wlmap.placement.devices._fields import Fields
from wlmap.placement.devices.dra_objects import (
    AttributeValue,
    Device,
    DeviceClass,
    Version,
    qualified,
)
from wlmap.quantity import parse_quantity

__all__ = ["read_device_class", "read_slice", "slice_generation"]

_TYPES = ("int", "bool", "string", "version")


def slice_generation(obj: Mapping[str, Any], file: str) -> tuple[str, str, int]:
    """``(driver, pool, generation)`` of a slice: only a pool's highest generation counts."""
    fields = Fields(obj, file)
    spec = fields.mapping(obj.get("spec"), "spec")
    driver = fields.text(spec.get("driver"), "spec.driver")
    pool = fields.mapping(spec.get("pool"), "spec.pool")
    name = fields.text(pool.get("name"), "spec.pool.name")
    generation = pool.get("generation", 0)
    if isinstance(generation, bool) or not isinstance(generation, int) or generation < 0:
        raise fields.fail("spec.pool.generation", f"expected a whole number, got {generation!r}")
    return driver, name, generation


def read_slice(obj: Mapping[str, Any], file: str, first_index: int) -> list[Device]:
    """The devices of one ResourceSlice, numbered from ``first_index`` in slice order.

    Raises:
        PlacementInputError: a field is missing or has the wrong type; the message names
            the file, the slice and the field path.
    """
    fields = Fields(obj, file)
    spec = fields.mapping(obj.get("spec"), "spec")
    driver, pool, _ = slice_generation(obj, file)
    node = fields.text(spec.get("nodeName"), "spec.nodeName", required=False) or None
    if node is None and not spec.get("allNodes"):
        raise fields.fail(
            "spec",
            "expected nodeName or allNodes: true (slices with a node selector or per-device "
            "node selection are not modelled)",
        )
    devices = []
    for position, entry in enumerate(fields.items(spec.get("devices"), "spec.devices")):
        at = f"spec.devices[{position}]"
        device = fields.mapping(entry, at)
        # v1beta1 nests the fields under "basic"; v1 has them on the device itself
        body = fields.mapping(device.get("basic"), f"{at}.basic") if "basic" in device else device
        devices.append(
            Device(
                name=fields.text(device.get("name"), f"{at}.name"),
                driver=driver,
                pool=pool,
                node=node,
                attributes=_attributes(fields, body.get("attributes"), f"{at}.attributes", driver),
                capacity=_capacity(fields, body.get("capacity"), f"{at}.capacity", driver),
                index=first_index + position,
                taints=_taints(fields, body.get("taints"), f"{at}.taints"),
            )
        )
    return devices


def _attributes(fields: Fields, value: Any, path: str, driver: str) -> dict[str, AttributeValue]:
    found: dict[str, AttributeValue] = {}
    for name, typed in fields.mapping(value, path, required=False).items():
        at = f"{path}[{name!r}]"
        entry = fields.mapping(typed, at)
        kinds = [k for k in _TYPES if k in entry]
        if len(kinds) != 1:
            raise fields.fail(
                at, f"expected exactly one of {', '.join(_TYPES)}, got {dict(entry)!r}"
            )
        kind = kinds[0]
        raw = entry[kind]
        # bool is an int in Python: an int attribute must not be a bool, and vice versa
        is_int = isinstance(raw, int) and not isinstance(raw, bool)
        typed_value: AttributeValue
        if (kind == "int" and is_int) or (kind == "bool" and isinstance(raw, bool)):
            typed_value = raw
        elif kind in ("string", "version") and isinstance(raw, str):
            typed_value = Version(raw) if kind == "version" else raw
        else:
            raise fields.fail(f"{at}.{kind}", f"expected a value of type {kind}, got {raw!r}")
        found[qualified(str(name), driver)] = typed_value
    return found


def _taints(fields: Fields, value: Any, path: str) -> tuple[str, ...]:
    """The taints that keep new claims off the device (``key=effect``): ``NoSchedule``
    and ``NoExecute``; ``None`` is only said, not acted on."""
    found = []
    for index, entry in enumerate(fields.items(value, path)):
        at = f"{path}[{index}]"
        taint = fields.mapping(entry, at)
        key = fields.text(taint.get("key"), f"{at}.key")
        effect = fields.text(taint.get("effect"), f"{at}.effect")
        if effect in ("NoSchedule", "NoExecute"):
            found.append(f"{key}={effect}")
    return tuple(found)


def _capacity(fields: Fields, value: Any, path: str, driver: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for name, entry in fields.mapping(value, path, required=False).items():
        at = f"{path}[{name!r}].value"
        raw = fields.mapping(entry, f"{path}[{name!r}]").get("value")
        try:
            amount = parse_quantity(raw, at)
        except WlmapError as exc:
            raise fields.fail(at, f"expected a quantity, got {raw!r} ({exc})") from None
        found[qualified(str(name), driver)] = math.ceil(amount)
    return found


def read_device_class(obj: Mapping[str, Any], file: str) -> DeviceClass:
    """A DeviceClass with its CEL selectors, in order.

    Raises:
        PlacementInputError: a selector is not ``{cel: {expression: <text>}}``.
    """
    fields = Fields(obj, file)
    spec = fields.mapping(obj.get("spec"), "spec", required=False)
    return DeviceClass(
        name=fields.name, selectors=cel_selectors(fields, spec.get("selectors"), "spec.selectors")
    )


def cel_selectors(fields: Fields, value: Any, path: str) -> tuple[str, ...]:
    """The CEL expressions of a ``selectors`` list."""
    found = []
    for index, entry in enumerate(fields.items(value, path)):
        at = f"{path}[{index}]"
        cel = fields.mapping(fields.mapping(entry, at).get("cel"), f"{at}.cel")
        found.append(fields.text(cel.get("expression"), f"{at}.cel.expression"))
    return tuple(found)
