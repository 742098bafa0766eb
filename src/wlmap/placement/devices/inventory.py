"""The DRA objects of a dump (``kubectl get resourceslices,deviceclasses -o yaml``) in one
inventory: devices in slice order, classes and claims by name.

Lists (``kind: List`` or ``<Kind>List`` with ``items``) are flattened; objects of other
kinds are ignored, so a dump holding workloads and DRA objects together can be read. Of a
pool's slices only those of its highest ``spec.pool.generation`` count, as in the API.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wlmap.errors import PlacementInputError
from wlmap.placement.devices.claims import read_claim
from wlmap.placement.devices.dra_objects import Claim, Device, DeviceClass
from wlmap.placement.devices.slices import read_device_class, read_slice, slice_generation

__all__ = ["DraInventory", "read_dra", "read_dra_file"]

_GROUP = "resource.k8s.io/"


@dataclass(frozen=True)
class DraInventory:
    """Devices, device classes and claims read together.

    Attributes:
        devices: every device of the current generation of its pool, in slice order.
        classes: DeviceClasses by name.
        claims: ResourceClaims and ResourceClaimTemplates by ``metadata.name``.
    """

    devices: tuple[Device, ...] = ()
    classes: Mapping[str, DeviceClass] = field(default_factory=dict)
    claims: Mapping[str, Claim] = field(default_factory=dict)


def read_dra(documents: Iterable[Any], file: str = "") -> DraInventory:
    """Read the ``resource.k8s.io`` objects among parsed YAML/JSON documents.

    Raises:
        PlacementInputError: an object has a bad field (the message names the file, the
            object and the field path).
    """
    objects = [o for o in _flatten(documents) if str(o.get("apiVersion", "")).startswith(_GROUP)]
    slices = [o for o in objects if o.get("kind") == "ResourceSlice"]
    newest: dict[tuple[str, str], int] = {}
    for obj in slices:
        driver, pool, generation = slice_generation(obj, file)
        newest[driver, pool] = max(generation, newest.get((driver, pool), generation))
    devices: list[Device] = []
    for obj in slices:
        driver, pool, generation = slice_generation(obj, file)
        if generation == newest[driver, pool]:
            devices.extend(read_slice(obj, file, len(devices)))
    classes = {}
    claims = {}
    for obj in objects:
        if obj.get("kind") == "DeviceClass":
            found = read_device_class(obj, file)
            classes[found.name] = found
        elif obj.get("kind") in ("ResourceClaim", "ResourceClaimTemplate"):
            name = str((obj.get("metadata") or {}).get("name"))
            claims[name] = read_claim(obj, file)
    return DraInventory(tuple(devices), classes, claims)


def read_dra_file(path: str | Path) -> DraInventory:
    """Read a YAML or JSON file (one or many documents).

    Raises:
        PlacementInputError: the file cannot be read or parsed, or an object is bad.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
        documents = list(yaml.safe_load_all(text))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PlacementInputError(
            f"cannot read DRA objects: {exc}", file=str(path), row=None, column=None
        ) from None
    return read_dra(documents, str(path))


def _flatten(documents: Iterable[Any]) -> Iterator[Mapping[str, Any]]:
    for doc in documents:
        if not isinstance(doc, Mapping):
            continue
        kind = str(doc.get("kind", ""))
        if kind.endswith("List") and isinstance(doc.get("items"), list):
            yield from _flatten(doc["items"])
        else:
            yield doc
