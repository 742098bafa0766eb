"""Finding the definition that covers an object's group/version/kind."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from wlmap.errors import NoDefinitionError

if TYPE_CHECKING:
    from wlmap.definitions.document import Definition
    from wlmap.definitions.gvk import GroupVersionKind


class Entry:
    """A definition and where it came from (``built-in``, a file path, ``cluster``).

    An entry made with :meth:`lazy` knows its GVK up front and reads its definition when
    first asked, so a registry of the whole catalog costs nothing until a kind is used.
    """

    __slots__ = ("_definition", "_gvk", "_load", "origin")

    def __init__(self, definition: Definition, origin: str) -> None:
        self._definition: Definition | None = definition
        self._load: Callable[[], Definition] | None = None
        self._gvk = definition.root_gvk
        self.origin = origin

    @classmethod
    def lazy(cls, gvk: GroupVersionKind, origin: str, load: Callable[[], Definition]) -> Entry:
        """An entry for ``gvk`` whose definition ``load`` reads on first use."""
        entry = cls.__new__(cls)
        entry._definition, entry._load, entry._gvk, entry.origin = None, load, gvk, origin
        return entry

    @property
    def definition(self) -> Definition:
        """The definition (read now if the entry was made lazily)."""
        if self._definition is None:
            assert self._load is not None, "an entry has a definition or a loader"
            self._definition = self._load()
        return self._definition

    @property
    def loaded(self) -> bool:
        """Whether the definition has been read (always, unless the entry is lazy)."""
        return self._definition is not None

    @property
    def gvk(self) -> GroupVersionKind | None:
        """The GVK of the workload object the definition covers."""
        return self._gvk

    def __repr__(self) -> str:
        return f"Entry({self._gvk}, {self.origin!r})"


class Registry:
    """Definitions keyed by the GVK of their root; later additions override earlier ones.

    An object at a version no definition names resolves through a definition for the same
    group and kind (the newest version added wins), since the fields usually carry over.
    """

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._by_gvk: dict[tuple[str, str, str], Entry] = {}
        self.collisions: list[str] = []
        for entry in entries:
            self.add_entry(entry)

    def add(self, definition: Definition, origin: str) -> None:
        """Add a definition; replacing one for the same GVK is recorded in ``collisions``."""
        self.add_entry(Entry(definition, origin))

    def add_entry(self, entry: Entry) -> None:
        """Add an entry (a lazy one stays unread); replacing one is recorded as for :meth:`add`."""
        gvk = entry.gvk
        if gvk is None:
            return
        key = (gvk.group, gvk.version, gvk.kind)
        previous = self._by_gvk.get(key)
        if previous is not None:
            self.collisions.append(
                f"{gvk}: {entry.definition.name!r} from {entry.origin} overrides "
                f"{previous.definition.name!r} from {previous.origin}"
            )
        self._by_gvk[key] = entry

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
