"""Walking a CRD's OpenAPI schema: every node with the field path that leads to it.

A path is a tuple of steps: a property name, ``ITEMS`` (the elements of an array) or
``VALUES`` (the values of a map, ``additionalProperties``). The walk stops below
schemaless nodes (``x-kubernetes-preserve-unknown-fields`` with no properties): what lies
there is only known from sample objects.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from wlmap.errors import ManifestError
from wlmap.infer._shape_check import check_crd

ITEMS: Final = "[]"
VALUES: Final = "{}"
Step = str
Path = tuple[Step, ...]
_MAX_DEPTH = 40


@dataclass(frozen=True)
class Node:
    """One schema node and where it sits."""

    path: Path
    schema: Mapping[str, Any]

    @property
    def properties(self) -> Mapping[str, Any]:
        """The node's declared properties (empty when none)."""
        found = self.schema.get("properties")
        return found if isinstance(found, Mapping) else {}

    @property
    def type(self) -> str:
        """The declared type, inferred as object or array from the keywords when absent."""
        declared = self.schema.get("type")
        if isinstance(declared, str):
            return declared
        if "properties" in self.schema or "additionalProperties" in self.schema:
            return "object"
        return "array" if "items" in self.schema else ""

    @property
    def schemaless(self) -> bool:
        """Whether the schema says nothing of what this node holds."""
        return bool(self.schema.get("x-kubernetes-preserve-unknown-fields")) and not (
            self.properties or self.items is not None
        )

    @property
    def items(self) -> Node | None:
        """The element schema of an array."""
        found = self.schema.get("items")
        return Node((*self.path, ITEMS), found) if isinstance(found, Mapping) else None

    @property
    def values(self) -> Node | None:
        """The value schema of a map (``additionalProperties`` with a schema)."""
        found = self.schema.get("additionalProperties")
        return Node((*self.path, VALUES), found) if isinstance(found, Mapping) else None

    @property
    def description(self) -> str:
        """The node's description, or an empty string."""
        return str(self.schema.get("description") or "")

    def child(self, name: str) -> Node | None:
        """The property ``name``, if declared."""
        found = self.properties.get(name)
        return Node((*self.path, name), found) if isinstance(found, Mapping) else None

    def children(self) -> Iterator[Node]:
        """Every direct child: properties, then the array element or map value."""
        for name, schema in self.properties.items():
            if isinstance(schema, Mapping):
                yield Node((*self.path, name), schema)
        for nested in (self.items, self.values):
            if nested is not None:
                yield nested


def is_integer(node: Node | None) -> bool:
    """Whether ``node`` is there and typed integer."""
    return node is not None and node.type == "integer"


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node below it, depth first, in declaration order."""
    yield node
    if len(node.path) >= _MAX_DEPTH:
        return
    for child in node.children():
        yield from walk(child)


def at(root: Node, path: Path) -> Node | None:
    """The node at ``path`` below ``root``, or None when the schema has no such node."""
    node: Node | None = root
    for step in path[len(root.path) :]:
        if node is None:
            return None
        if step == ITEMS:
            node = node.items
        elif step == VALUES:
            node = node.values
        else:
            found = node.child(step)
            if found is None and node.values is not None:  # a concrete key of a map
                found = Node((*node.path, step), node.values.schema)
            node = found
    return node


def version_schema(crd: Mapping[str, Any], version: str | None) -> tuple[str, Node]:
    """The chosen served version of a CRD and its schema's root node.

    Without ``version``, the storage version (the one the API server keeps objects in).

    Raises:
        ManifestError: the CRD is malformed (see _shape_check), or does not serve that
            version, or serves none.
    """
    check_crd(crd)
    spec = crd["spec"]
    versions = [v for v in spec.get("versions") or () if v.get("served", True)]
    if not versions:
        raise ManifestError("the CRD serves no version (spec.versions has no served entry)")
    if version is None:
        chosen = next((v for v in versions if v.get("storage")), versions[0])
    else:
        chosen = next((v for v in versions if v.get("name") == version), None)
        if chosen is None:
            names = ", ".join(str(v.get("name")) for v in versions)
            raise ManifestError(f"the CRD does not serve version {version!r} (served: {names})")
    schema = (chosen.get("schema") or {}).get("openAPIV3Schema") or {}
    return str(chosen["name"]), Node((), schema)


def borrowed_schema(crd: Mapping[str, Any], chosen: str, schema: Node) -> tuple[str, Node] | None:
    """Another served version's schema when ``chosen``'s spec is schemaless and theirs is
    not: versions of one kind share their fields (the API server converts between them),
    so the described one says where the schemaless one keeps them."""
    spec = schema.child("spec")
    if spec is not None and not spec.schemaless:
        return None
    for version in (crd.get("spec") or {}).get("versions") or ():
        name = str(version.get("name"))
        if name == chosen or not version.get("served", True):
            continue
        other = Node((), (version.get("schema") or {}).get("openAPIV3Schema") or {})
        found = other.child("spec")
        if found is not None and not found.schemaless:
            return name, other
    return None


def jq_path(path: Path, *, optional: bool = True) -> str:
    """The jq path of a schema path; array elements and map values both become ``[]``."""
    out = ""
    for step in path:
        if step in (ITEMS, VALUES):
            out += "[]?" if optional else "[]"
        elif step.isidentifier():
            out += f".{step}"
        else:
            out += f'["{step}"]'
    return out or "."


def show(path: Path) -> str:
    """A path for people: ``.spec.groups[].template``, ``.spec.roles{}.template``."""
    out = ""
    for step in path:
        out += step if step in (ITEMS, VALUES) else f".{step}"
    return out or "."
