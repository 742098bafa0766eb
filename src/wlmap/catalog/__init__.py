"""The built-in catalog: definition files shipped with wlmap, one per group/kind/version.

A registry of the catalog knows each file's kind from its header and parses a definition
only when a workload of that kind is read (see :mod:`wlmap.catalog._index`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from wlmap.catalog._index import catalog_file, index
from wlmap.definitions.registry import Entry, Registry
from wlmap.definitions.trust import is_trusted, trust

if TYPE_CHECKING:
    from wlmap.definitions.document import Definition
    from wlmap.definitions.gvk import GroupVersionKind

BUILTIN = "built-in"


@cache
def parsed_file(name: str) -> tuple[Definition, ...]:
    """The definitions of one catalog file, parsed once per program.

    The catalog's validity is proven by its tests, so loading skips the validation rules
    (compiling every expression with libjq would cost about a second at each start).
    """
    from wlmap.definitions.loading import parse_definitions  # noqa: PLC0415 - when first used

    text = catalog_file(name).read_text(encoding="utf-8")
    parsed = tuple(parse_definitions(text, f"catalog/{name}", validate=False))
    trust(parsed)
    return parsed


def builtin_definitions() -> tuple[Definition, ...]:
    """Every built-in definition, in file-name order."""
    return tuple(d for indexed in index() for d in parsed_file(indexed.name))


def is_builtin(definition: Definition) -> bool:
    """Whether a definition object is one of the built-in catalog's (the only ones
    evaluated without the untrusted engine's bounds)."""
    return is_trusted(definition)


def builtin_registry() -> Registry:
    """A registry holding the built-in catalog (a new one each call: callers add to it).

    Each entry reads its file when its definition is first used.
    """
    from wlmap.definitions.gvk import GroupVersionKind  # noqa: PLC0415 - models when used

    registry = Registry()
    for indexed in index():
        if indexed.gvk is None:
            for definition in parsed_file(indexed.name):
                registry.add(definition, BUILTIN)
            continue
        group, version, kind = indexed.gvk
        gvk = GroupVersionKind.model_construct(group=group, version=version, kind=kind)
        registry.add_entry(Entry.lazy(gvk, BUILTIN, _loader(indexed.name, gvk)))
    return registry


def _loader(name: str, gvk: GroupVersionKind) -> Callable[[], Definition]:
    def load() -> Definition:
        (definition,) = parsed_file(name)
        assert definition.root_gvk == gvk, f"catalog/{name}: the header names {gvk}"
        return definition

    return load


__all__ = ["BUILTIN", "builtin_definitions", "builtin_registry", "is_builtin", "parsed_file"]
