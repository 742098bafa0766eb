"""Building RFC 6902 operations that touch only the given fields, and RFC 7386 merge patches."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

Path = list[str | int]
MISSING = object()  # what lookup() gives for a path that does not resolve


def pointer(path: Sequence[str | int]) -> str:
    """The RFC 6901 JSON pointer of a path."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def lookup(doc: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path``, or the private missing marker."""
    node = doc
    for part in path:
        if isinstance(node, Mapping) and isinstance(part, str) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, str) and part.isdigit():
            if int(part) >= len(node):
                return MISSING
            node = node[int(part)]
        elif isinstance(node, list) and isinstance(part, int) and -len(node) <= part < len(node):
            node = node[part]
        else:
            return MISSING
    return node


def exists(doc: Any, path: Sequence[str | int]) -> bool:
    """Whether ``path`` resolves in ``doc``."""
    return lookup(doc, path) is not MISSING


class PatchBuilder:
    """Accumulates operations against a working copy, so later steps see earlier ones."""

    def __init__(self, original: Mapping[str, Any]) -> None:
        self.original = original
        self.doc: dict[str, Any] = copy.deepcopy(dict(original))
        self.ops: list[dict[str, Any]] = []

    def set(self, path: Path, value: Any) -> None:
        """Set one value, creating missing parent objects (never replacing siblings)."""
        if exists(self.doc, path):
            if lookup(self.doc, path) == value:
                return
            self._apply({"op": "replace", "path": pointer(path), "value": copy.deepcopy(value)})
            return
        prefix = list(path)
        while prefix and not exists(self.doc, prefix[:-1]):
            prefix.pop()
        nested: Any = copy.deepcopy(value)
        for part in reversed(path[len(prefix) :]):
            nested = {part: nested}
        if not prefix:
            raise ValueError(f"cannot write at {pointer(path)!r}: no parent object exists")
        parent = lookup(self.doc, prefix[:-1])
        if not isinstance(parent, (Mapping, list)):
            raise ValueError(f"cannot write at {pointer(prefix)!r}: its parent is not an object")
        self._apply({"op": "add", "path": pointer(prefix), "value": nested})

    def remove(self, path: Path) -> None:
        """Remove a value when present."""
        if exists(self.doc, path):
            self._apply({"op": "remove", "path": pointer(path)})

    def append(self, path: Path, value: Any) -> None:
        """Append to the list at ``path`` (creating it when absent)."""
        current = lookup(self.doc, path)
        if current is MISSING or current is None:
            self.set(path, [value])
        elif isinstance(current, list):
            self._apply({"op": "add", "path": pointer([*path, "-"]), "value": copy.deepcopy(value)})
        else:
            raise ValueError(
                f"cannot append at {pointer(path)!r}: it holds {type(current).__name__}"
            )

    def _apply(self, op: dict[str, Any]) -> None:
        # The document gets its own copy: later operations must not alter earlier ones' values.
        apply_operation(self.doc, copy.deepcopy(op))
        self.ops.append(op)

    def merge_patch(self) -> dict[str, Any]:
        """The RFC 7386 merge patch from the original to the working copy."""
        patch = merge_diff(self.original, self.doc)
        return patch if isinstance(patch, dict) else {}


def apply_operation(doc: Any, op: Mapping[str, Any]) -> None:
    """Apply one add/replace/remove operation in place (only what this module emits)."""
    parts = _parse_pointer(op["path"])
    parent = lookup(doc, parts[:-1])
    last = parts[-1]
    if op["op"] == "remove":
        del parent[int(last) if isinstance(parent, list) else last]
    elif isinstance(parent, list):
        if last == "-":
            parent.append(op["value"])
        elif op["op"] == "add":
            parent.insert(int(last), op["value"])
        else:
            parent[int(last)] = op["value"]
    else:
        parent[last] = op["value"]


def _parse_pointer(text: str) -> list[str | int]:
    parts: list[str | int] = []
    for raw in text.split("/")[1:]:
        parts.append(raw.replace("~1", "/").replace("~0", "~"))
    return parts


def merge_diff(before: Any, after: Any) -> Any:
    """A merge patch turning ``before`` into ``after`` (lists are replaced whole, per RFC 7386)."""
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return copy.deepcopy(after)
    patch: dict[str, Any] = {}
    for key, value in after.items():
        if key not in before:
            patch[key] = copy.deepcopy(value)
        elif before[key] != value:
            patch[key] = merge_diff(before[key], value)
    for key in before:
        if key not in after:
            patch[key] = None
    return patch
