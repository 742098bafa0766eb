"""Resolving a TYPE token (kind, plural, short name, kind.group, kind.version.group) offline."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wlmap.errors import NoDefinitionError

if TYPE_CHECKING:
    from wlmap.definitions.gvk import GroupVersionKind
    from wlmap.definitions.registry import Registry


def _tokens(gvk: GroupVersionKind) -> set[str]:
    kind = gvk.kind.lower()
    plural = kind + ("es" if kind.endswith("s") else "s")
    base = {kind, plural}
    qualified = {f"{name}.{gvk.group}" for name in base} | {
        f"{name}.{gvk.version}.{gvk.group}" for name in base
    }
    return base | (qualified if gvk.group else set())


def resolve_type(registry: Registry, token: str) -> GroupVersionKind:
    """The GVK a TYPE token names among the known definitions.

    Raises:
        NoDefinitionError: no definition's kind matches, or several do (the message lists
            the qualified tokens to choose from).
    """
    wanted = token.lower()
    matches = {
        (e.gvk.group, e.gvk.kind): e.gvk
        for e in registry
        if e.gvk is not None and wanted in _tokens(e.gvk)
    }
    if not matches:
        raise NoDefinitionError(
            f"no definition covers the type {token!r} (see `wlmap definitions list`)"
        )
    if len(matches) > 1:
        choices = ", ".join(
            sorted(f"{g.kind.lower()}.{g.group or 'core'}" for g in matches.values())
        )
        raise NoDefinitionError(f"{token!r} is ambiguous; use one of: {choices}")
    return next(iter(matches.values()))
