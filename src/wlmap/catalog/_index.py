"""The catalog's files by the GVK they cover, read from each file's root component line.

Finding a file's kind this way costs a read and a search of its text, not a YAML parse
and a model validation: a command that needs one definition parses one file. A file whose
root kind is not written on one line (``kind: {group: ..., version: ..., kind: ...}``
under ``rootComponent``) is parsed in full instead, so the index is never wrong, only
slower.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import NamedTuple

_ROOT = re.compile(r"^(?P<indent> *)rootComponent:[ \t]*$", re.MULTILINE)
_FLOW_KIND = re.compile(
    r"^\{\s*group:\s*(?P<group>[^,}]*),\s*version:\s*(?P<version>[^,}]*),"
    r"\s*kind:\s*(?P<kind>[^,}]*)\}\s*(?:#.*)?$"
)


class IndexedFile(NamedTuple):
    """A catalog file's name and the group, version and kind of its root (None: parse to
    know)."""

    name: str
    gvk: tuple[str, str, str] | None


def catalog_file(name: str) -> Traversable:
    """A definition file of the catalog, by name."""
    return resources.files(__package__).joinpath("definitions", name)


@lru_cache(maxsize=1)
def index() -> tuple[IndexedFile, ...]:
    """Every catalog file with the GVK its header names, in file-name order."""
    folder = resources.files(__package__).joinpath("definitions")
    return tuple(
        IndexedFile(item.name, root_gvk(item.read_text(encoding="utf-8")))
        for item in sorted(folder.iterdir(), key=lambda p: p.name)
        if item.name.endswith((".yaml", ".yml"))
    )


def root_gvk(text: str) -> tuple[str, str, str] | None:
    """``(group, version, kind)`` from the root component's one-line ``kind:`` of a
    single-document definition; None when the text is laid out otherwise."""
    if "\n---" in text.rstrip():
        return None
    root = _ROOT.search(text)
    if root is None:
        return None
    field_indent = len(root["indent"]) + 2
    for line in text[root.end() + 1 :].splitlines():
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if indent < field_indent:
            return None  # the root component ended without a one-line kind
        if indent == field_indent and stripped.startswith("kind:"):
            match = _FLOW_KIND.match(stripped[len("kind:") :].strip())
            if match is None:
                return None
            group, version, kind = (_scalar(match[k]) for k in ("group", "version", "kind"))
            return (group, version, kind) if version and kind else None
    return None


def _scalar(text: str) -> str:
    """A plain or quoted YAML scalar of the simple kind a group, version or kind is."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text
