"""Proving a definition against a CRD: every field it reads exists in the OpenAPI schema of
the version it names, and every field it writes is a spec field.

The check follows each jq expression over the schema instead of over an object: ``.a``
moves to property ``a``, ``[]`` to the items, ``select(f)`` checks ``f`` and keeps its
input, and so on. Where the schema stops saying anything (free-form maps, preserved
unknown fields, computed values), the check stops too, so it never reports a field that
might exist.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wlmap import jq
from wlmap.definitions.document import Definition
from wlmap.definitions.expressions import Role, expression_sites
from wlmap.errors import ExpressionError, Problem
from wlmap.jq import syntax as s

_MAP_OF_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
OBJECT_META: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{
            k: {"type": "string"}
            for k in (
                "name",
                "generateName",
                "namespace",
                "uid",
                "resourceVersion",
                "creationTimestamp",
                "deletionTimestamp",
            )
        },
        "generation": {"type": "integer"},
        "labels": _MAP_OF_STRINGS,
        "annotations": _MAP_OF_STRINGS,
        "ownerReferences": {"type": "array", "items": {"type": "object"}},
        "finalizers": {"type": "array", "items": {"type": "string"}},
    },
}
# Functions whose arguments read the elements of their input rather than the input.
_ELEMENT_ARGS = frozenset(
    {"map", "sort_by", "group_by", "unique_by", "min_by", "max_by", "any", "all"}
)
# Functions whose arguments see something unrelated to the input's schema.
_OPAQUE_ARGS = frozenset({"with_entries", "map_values", "from_entries", "getpath", "path", "paths"})


@dataclass(frozen=True)
class _At:
    """A place in the schema and the field path that leads to it."""

    schema: Mapping[str, Any]
    path: str


def crd_schema(crd: Mapping[str, Any], version: str) -> Mapping[str, Any] | None:
    """The OpenAPI schema of one served version of a CRD, with ObjectMeta filled in."""
    for entry in (crd.get("spec") or {}).get("versions") or ():
        if entry.get("name") == version and entry.get("served", True):
            schema = dict(((entry.get("schema") or {}).get("openAPIV3Schema")) or {})
            properties = dict(schema.get("properties") or {})
            properties["metadata"] = OBJECT_META
            schema["properties"] = properties
            return schema
    return None


def crd_problems(
    definition: Definition, crd: Mapping[str, Any], origin: str = "CRD"
) -> list[Problem]:
    """Every path of the definition that its CRD's schema does not have, or cannot write."""
    name = definition.name
    gvk = definition.root_gvk
    spec = crd.get("spec") or {}
    if gvk is None:
        return [
            Problem(name, "spec.structureDefinition.rootComponent.kind", "the root has no kind")
        ]
    names = spec.get("names") or {}
    if (spec.get("group"), names.get("kind")) != (gvk.group, gvk.kind):
        return [
            Problem(
                name,
                "spec.structureDefinition.rootComponent.kind",
                f"{origin} defines {names.get('kind')}.{spec.get('group')}, not {gvk.kind}.{gvk.group}",
            )
        ]
    schema = crd_schema(crd, gvk.version)
    if schema is None:
        served = [v.get("name") for v in spec.get("versions") or () if v.get("served", True)]
        return [
            Problem(
                name,
                "spec.structureDefinition.rootComponent.kind.version",
                f"{origin} does not serve version {gvk.version!r} (served: {', '.join(map(str, served))})",
            )
        ]
    problems: list[Problem] = []
    for site in expression_sites(definition):
        if site.role is Role.POD or site.path.startswith("spec.structureDefinition.references"):
            continue
        try:
            node = jq.parse(site.text)
        except ExpressionError:
            continue  # reported by validation
        walker = _Walker(f"{gvk.kind} {gvk.version}")
        result = walker.eval(node, _At(schema, ""))
        for message in walker.problems:
            problems.append(Problem(name, site.path, message, site.component))
        writes = site.role in (Role.SPEC_WRITE, Role.SUSPEND_WRITE)
        if writes and result is not None and result.path.startswith(".status"):
            problems.append(
                Problem(
                    name,
                    site.path,
                    f"writes {result.path}, which the status subresource owns; write paths must be spec fields",
                    site.component,
                )
            )
    return problems


class _Walker:
    """Evaluates a jq AST over a schema, collecting fields the schema lacks."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.problems: list[str] = []

    def eval(self, node: s.Node, at: _At | None) -> _At | None:
        if isinstance(node, s.Identity):
            return at
        if isinstance(node, s.Index):
            return self._index(node, at)
        if isinstance(node, s.Slice):
            return self.eval(node.target, at)
        if isinstance(node, s.Iterate):
            return _items(self.eval(node.target, at))
        if isinstance(node, s.Pipe):
            return self.eval(node.right, self.eval(node.left, at))
        if isinstance(node, s.Alternative):
            left = self.eval(node.left, at)
            self.eval(node.right, at)
            return left
        if isinstance(node, s.Try):
            result = self.eval(node.body, at)
            if node.handler is not None:
                self.eval(node.handler, None)
            return result
        if isinstance(node, s.Call):
            return self._call(node, at)
        if isinstance(node, s.Bind):
            self.eval(node.source, at)
            return self.eval(node.body, at)
        if isinstance(node, s.Label):
            return self.eval(node.body, at)
        if isinstance(node, s.FuncDef):
            return self.eval(node.rest, at)
        for child in _children(node):
            self.eval(child, at)
        return None

    def _index(self, node: s.Index, at: _At | None) -> _At | None:
        target = self.eval(node.target, at)
        key = node.key
        if not isinstance(key, s.Literal):
            self.eval(key, at)
            return _values(target)
        if target is None:
            return None
        schema = target.schema
        if isinstance(key.value, int | float) and not isinstance(key.value, bool):
            return _items(target)
        if not isinstance(key.value, str):
            return None
        field = key.value
        properties = schema.get("properties") or {}
        if field in properties:
            return _At(properties[field], f"{target.path}.{field}")
        additional = schema.get("additionalProperties")
        if isinstance(additional, Mapping):
            return _At(additional, f"{target.path}.{field}")
        if (
            schema.get("x-kubernetes-preserve-unknown-fields")
            or additional is True
            or not properties
        ):
            return None
        self.problems.append(
            f"{target.path or '.'} has no field {field!r} in the {self.where} schema "
            f"(it has: {', '.join(sorted(properties))})"
        )
        return None

    def _call(self, node: s.Call, at: _At | None) -> _At | None:
        if node.name in _OPAQUE_ARGS:
            return None
        if node.name in ("select", "recurse_down") and node.args:
            self.eval(node.args[0], at)
            return at
        if node.name in ("any", "all") and len(node.args) == 2:
            generated = self.eval(node.args[0], at)
            self.eval(node.args[1], generated)
            return None
        argument_input = _items(at) if node.name in _ELEMENT_ARGS else at
        for argument in node.args:
            self.eval(argument, argument_input)
        if node.name in ("first", "last") and node.args:
            return self.eval(node.args[0], at)
        return None


def _items(at: _At | None) -> _At | None:
    if at is None:
        return None
    items = at.schema.get("items")
    if isinstance(items, Mapping):
        return _At(items, f"{at.path}[]")
    return _values(at)


def _values(at: _At | None) -> _At | None:
    if at is None:
        return None
    additional = at.schema.get("additionalProperties")
    return _At(additional, f"{at.path}[]") if isinstance(additional, Mapping) else None


def _children(node: s.Node) -> Iterator[s.Node]:
    for value in vars(node).values():
        if isinstance(value, s.Node):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, s.Node))
