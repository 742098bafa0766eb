"""The definitions the operator uses: the catalog, overridden per GVK by the cluster's
valid definition objects. A broken update of a definition object keeps its last good
version in use (and is reported in the object's status)."""

from __future__ import annotations

from dataclasses import dataclass, field

from wlmap.app.definitions import definitions_in_use
from wlmap.definitions.document import Definition
from wlmap.definitions.registry import Registry


@dataclass
class DefinitionStore:
    """Last good definition per definition object, and the registry built from them."""

    _good: dict[str, Definition] = field(default_factory=dict)
    _generations: dict[str, int | None] = field(default_factory=dict)
    _registry: Registry | None = None

    def accept(self, origin: str, definition: Definition, generation: int | None = None) -> bool:
        """A definition object's new valid version; True when it differs from the one in
        use (its workloads are to be reconciled again)."""
        changed = self._good.get(origin) != definition
        self._good[origin] = definition
        self._generations[origin] = generation
        self._registry = None
        return changed

    def forget(self, origin: str) -> Definition | None:
        """A definition object was deleted: the catalog's definition applies again. The
        definition it held, if any."""
        self._generations.pop(origin, None)
        dropped = self._good.pop(origin, None)
        if dropped is not None:
            self._registry = None
        return dropped

    def generation_in_use(self, origin: str) -> int | None:
        """The generation of a definition object in use, if any."""
        return self._generations.get(origin)

    def kinds(self) -> set[tuple[str, str]]:
        """(group, kind) of every root the definitions cover."""
        return {
            (e.definition.root_gvk.group, e.definition.root_gvk.kind)
            for e in self.registry
            if e.definition.root_gvk is not None
        }

    @property
    def registry(self) -> Registry:
        """Built-in definitions with the cluster's on top (in object-name order)."""
        if self._registry is None:
            self._registry = definitions_in_use(
                cluster=[(self._good[origin], origin) for origin in sorted(self._good)]
            )
        return self._registry
