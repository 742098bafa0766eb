"""The built-in catalog: definition files shipped with wlmap, one per group/kind/version."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from wlmap.definitions import Definition, parse_definitions
from wlmap.definitions.registry import Entry, Registry

BUILTIN = "built-in"


@lru_cache(maxsize=1)
def builtin_definitions() -> tuple[Definition, ...]:
    """Every built-in definition, validated, in file-name order."""
    folder = resources.files(__package__).joinpath("definitions")
    found: list[Definition] = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith((".yaml", ".yml")):
            found.extend(
                parse_definitions(item.read_text(encoding="utf-8"), f"catalog/{item.name}")
            )
    return tuple(found)


def builtin_registry() -> Registry:
    """A registry holding the built-in catalog (a new one each call: callers add to it)."""
    return Registry(Entry(d, BUILTIN) for d in builtin_definitions())


__all__ = ["BUILTIN", "builtin_definitions", "builtin_registry"]
