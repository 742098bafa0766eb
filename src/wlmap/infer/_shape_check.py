"""Checking the shape of what the inference reads: a malformed input is refused by place.

The API server refuses a CRD or an object whose structure is wrong, but a file may hold
anything: a list where a map belongs, an ``enum`` that is not a list, labels that are not
a map. The inference reads those fields as the API defines them, so each one it reads is
checked first and the first that is wrong is named with where it is (``spec.versions[0]
.schema.openAPIV3Schema.properties.spec.properties.suspend.enum: expected a list, got
true``; ``sample 2 (TrainJob demo): metadata.labels: expected a map, got []``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.errors import ManifestError

_MAX_DEPTH = 64  # deeper than any real schema: the rest is not read

# keyword -> (the types it may have, what to call them)
_KEYWORDS: dict[str, tuple[tuple[type, ...], str]] = {
    "type": ((str,), "a string"),
    "description": ((str,), "a string"),
    "format": ((str,), "a string"),
    "properties": ((Mapping,), "a map of field schemas"),
    "items": ((Mapping,), "a schema (a map)"),
    "additionalProperties": ((Mapping, bool), "a schema (a map) or a boolean"),
    "enum": ((list,), "a list"),
    "required": ((list,), "a list of field names"),
    "x-kubernetes-list-map-keys": ((list,), "a list of field names"),
    "minimum": ((int, float), "a number"),
    "maximum": ((int, float), "a number"),
}


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _fail(where: str, expected: str, value: Any) -> ManifestError:
    return ManifestError(f"{where}: expected {expected}, got {_shown(value)}")


def _check_schema(schema: Any, where: str, depth: int = 0) -> None:
    if not isinstance(schema, Mapping):
        raise _fail(where, "a schema (a map)", schema)
    if depth >= _MAX_DEPTH:
        return
    for keyword, (types, expected) in _KEYWORDS.items():
        value = schema.get(keyword)
        if value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise _fail(f"{where}.{keyword}", expected, value)
    for keyword in ("required", "x-kubernetes-list-map-keys"):
        for index, name in enumerate(schema.get(keyword) or ()):
            if not isinstance(name, str):
                raise _fail(f"{where}.{keyword}[{index}]", "a field name", name)
    for name, child in (schema.get("properties") or {}).items():
        _check_schema(child, f"{where}.properties.{name}", depth + 1)
    for keyword in ("items", "additionalProperties"):
        if isinstance(schema.get(keyword), Mapping):
            _check_schema(schema[keyword], f"{where}.{keyword}", depth + 1)


def check_crd(crd: Mapping[str, Any]) -> None:
    """Refuse a CRD whose fields the inference reads are not shaped as the API defines.

    Raises:
        ManifestError: the first malformed field, with its place in the CRD.
    """
    metadata = crd.get("metadata")
    named = metadata.get("name") if isinstance(metadata, Mapping) else None
    name = named if isinstance(named, str) and named else "the CRD"
    spec = crd.get("spec")
    if not isinstance(spec, Mapping):
        raise _fail(f"{name}: spec", "a map", spec)
    if not isinstance(spec.get("group"), str):
        raise _fail(f"{name}: spec.group", "a string", spec.get("group"))
    names = spec.get("names")
    if not isinstance(names, Mapping):
        raise _fail(f"{name}: spec.names", "a map", names)
    if not isinstance(names.get("kind"), str):
        raise _fail(f"{name}: spec.names.kind", "a string", names.get("kind"))
    versions = spec.get("versions")
    if not isinstance(versions, list):
        raise _fail(f"{name}: spec.versions", "a list", versions)
    for index, version in enumerate(versions):
        where = f"{name}: spec.versions[{index}]"
        if not isinstance(version, Mapping):
            raise _fail(where, "a map", version)
        if not isinstance(version.get("name"), str):
            raise _fail(f"{where}.name", "a string", version.get("name"))
        schema = version.get("schema")
        if schema is None:
            continue
        if not isinstance(schema, Mapping):
            raise _fail(f"{where}.schema", "a map", schema)
        if schema.get("openAPIV3Schema") is not None:
            _check_schema(schema["openAPIV3Schema"], f"{where}.schema.openAPIV3Schema")


def check_objects(objects: Sequence[Any], what: str) -> None:
    """Refuse sample objects or pods whose metadata is not shaped as the API defines.

    Raises:
        ManifestError: the first malformed one, by its place in the list, kind and name.
    """
    for index, obj in enumerate(objects, 1):
        if not isinstance(obj, Mapping):
            raise _fail(f"{what} {index}", "an object (a map)", obj)
        metadata = obj.get("metadata")
        named = metadata.get("name") if isinstance(metadata, Mapping) else None
        where = f"{what} {index} ({obj.get('kind')}{f' {named}' if named else ''})"
        if metadata is None:
            continue
        if not isinstance(metadata, Mapping):
            raise _fail(f"{where}: metadata", "a map", metadata)
        for field in ("labels", "annotations"):
            value = metadata.get(field)
            if value is not None and not isinstance(value, Mapping):
                raise _fail(f"{where}: metadata.{field}", "a map", value)
        owners = metadata.get("ownerReferences")
        if owners is None:
            continue
        if not isinstance(owners, list):
            raise _fail(f"{where}: metadata.ownerReferences", "a list", owners)
        for at, owner in enumerate(owners):
            if not isinstance(owner, Mapping):
                raise _fail(f"{where}: metadata.ownerReferences[{at}]", "a map", owner)
