"""Finding the definition that covers an object's group/version/kind."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.document import Definition
from wlmap.errors import NoDefinitionError


@dataclass(frozen=True)
class Entry:
    """A definition and where it came from (``built-in``, a file path, ``cluster``)."""

    definition: Definition
    origin: str


class Registry:
    """Definitions keyed by the GVK of their root; later additions override earlier ones.

    An object at a version no definition names resolves through a definition for the same
    group and kind (the newest version added wins), since the fields usually carry over.
    """

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._by_gvk: dict[tuple[str, str, str], Entry] = {}
        self.collisions: list[str] = []
        for entry in entries:
            self.add(entry.definition, entry.origin)

    def add(self, definition: Definition, origin: str) -> None:
        """Add a definition; replacing one for the same GVK is recorded in ``collisions``."""
        gvk = definition.root_gvk
        if gvk is None:
            return
        key = (gvk.group, gvk.version, gvk.kind)
        previous = self._by_gvk.get(key)
        if previous is not None:
            self.collisions.append(
                f"{gvk}: {definition.name!r} from {origin} overrides {previous.definition.name!r} "
                f"from {previous.origin}"
            )
        self._by_gvk[key] = Entry(definition, origin)

    def extend(self, definitions: Iterable[Definition], origin: str) -> None:
        """Add several definitions from one origin."""
        for definition in definitions:
            self.add(definition, origin)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._by_gvk.values())

    def __len__(self) -> int:
        return len(self._by_gvk)

    def find(self, api_version: str, kind: str) -> Entry | None:
        """The entry for an apiVersion and kind, or for another version of the group/kind."""
        group, _, version = api_version.rpartition("/")
        exact = self._by_gvk.get((group, version, kind))
        if exact is not None:
            return exact
        others = [e for (g, _v, k), e in self._by_gvk.items() if g == group and k == kind]
        return others[-1] if others else None

    def for_object(self, obj: Mapping[str, Any]) -> Definition:
        """The definition covering an object.

        Raises:
            NoDefinitionError: no definition covers the object's group and kind.
        """
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            raise NoDefinitionError("the object has no apiVersion and kind")
        entry = self.find(api_version, kind)
        if entry is None:
            raise NoDefinitionError(f"no definition covers {kind} ({api_version})")
        return entry.definition
