"""The built-in catalog: definition files shipped with wlmap, one per group/kind/version."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from wlmap.definitions import Definition, parse_definitions
from wlmap.definitions.registry import Entry, Registry

BUILTIN = "built-in"


@lru_cache(maxsize=1)
def builtin_definitions() -> tuple[Definition, ...]:
    """Every built-in definition, in file-name order.

    The catalog's validity is proven by its tests, so loading skips the validation rules
    (compiling every expression with libjq would cost about a second at each start).
    """
    folder = resources.files(__package__).joinpath("definitions")
    found: list[Definition] = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith((".yaml", ".yml")):
            text = item.read_text(encoding="utf-8")
            found.extend(parse_definitions(text, f"catalog/{item.name}", validate=False))
    return tuple(found)


def is_builtin(definition: Definition) -> bool:
    """Whether a definition object is one of the built-in catalog's (the only ones
    evaluated without the untrusted engine's bounds)."""
    if builtin_definitions.cache_info().currsize == 0:
        return False  # the catalog was never loaded, so this cannot be one of its objects
    return id(definition) in _builtin_ids()


@lru_cache(maxsize=1)
def _builtin_ids() -> frozenset[int]:
    # the catalog's objects live as long as the process (builtin_definitions keeps them)
    return frozenset(id(d) for d in builtin_definitions())


def builtin_registry() -> Registry:
    """A registry holding the built-in catalog (a new one each call: callers add to it)."""
    return Registry(Entry(d, BUILTIN) for d in builtin_definitions())


__all__ = ["BUILTIN", "builtin_definitions", "builtin_registry", "is_builtin"]
