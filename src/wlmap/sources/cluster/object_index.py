"""Objects kept from watches, found by uid, by type and namespace, and by controlling owner.

The index follows ownership in both directions without asking the server: up, from a pod
through its Job to the JobSet; down, from a workload to every object its controller chain
reaches. Objects are indexed under their owner's uid whether or not the owner itself is
held yet, so a pod that arrives before its Job is attributed as soon as the Job arrives.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wlmap.sources.inventory import (
    MAX_OWNER_HOPS,
    controller_reference,
    controller_uid,
    owner_chain,
    uid_of,
)

TypeKey = tuple[str, str, str | None]  # (group, kind, namespace)


def type_key(obj: Mapping[str, Any]) -> TypeKey:
    """(group, kind, namespace) of an object."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    metadata = obj.get("metadata") or {}
    return group, str(obj.get("kind")), metadata.get("namespace")


def _version(obj: Mapping[str, Any]) -> object:
    return (obj.get("metadata") or {}).get("resourceVersion")


@dataclass
class ObjectIndex:
    """Objects by uid, with indexes by type and namespace and by controlling owner uid."""

    _objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    _by_type: dict[TypeKey, set[str]] = field(default_factory=dict)
    _children: dict[str, set[str]] = field(default_factory=dict)
    _owner_of: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self._objects)

    def get(self, uid: str) -> dict[str, Any] | None:
        """The object with this uid, if held."""
        return self._objects.get(uid)

    def put(self, obj: dict[str, Any]) -> bool:
        """Add or replace an object (found by its uid); True when it is new or changed.
        An object without a uid cannot be indexed and is ignored."""
        uid = uid_of(obj)
        if uid is None:
            return False
        previous = self._objects.get(uid)
        self._objects[uid] = obj
        if previous is None:
            self._by_type.setdefault(type_key(obj), set()).add(uid)
        owner = controller_uid(obj)
        if self._owner_of.get(uid) != owner:  # adopted, released or new
            self._unlink(uid)
            if owner is not None:
                self._owner_of[uid] = owner
                self._children.setdefault(owner, set()).add(uid)
        return previous is None or _version(previous) != _version(obj)

    def remove(self, obj: Mapping[str, Any]) -> dict[str, Any] | None:
        """Forget an object; the one held, if any. Objects it owns stay indexed under its
        uid: they are still there until their own deletion is seen."""
        uid = uid_of(obj)
        if uid is None or uid not in self._objects:
            return None
        held = self._objects.pop(uid)
        key = type_key(held)
        uids = self._by_type.get(key)
        if uids is not None:
            uids.discard(uid)
            if not uids:
                del self._by_type[key]
        self._unlink(uid)
        return held

    def replace(
        self, group: str, kind: str, namespace: str | None, objects: Iterable[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Make the objects of one type (in one namespace, or all when None) exactly
        ``objects``, as a new listing shows them: (new or changed, removed)."""
        listed = list(objects)
        keep = {uid_of(o) for o in listed}
        removed = [
            held
            for held in list(self.of_type(group, kind, namespace))
            if uid_of(held) not in keep and self.remove(held) is not None
        ]
        changed = [obj for obj in listed if self.put(obj)]
        return changed, removed

    def of_type(self, group: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
        """Objects of one type in one namespace (every namespace when None)."""
        if namespace is not None:
            uids: Iterable[str] = self._by_type.get((group, kind, namespace), ())
        else:
            uids = [
                uid
                for (g, k, _), members in self._by_type.items()
                if (g, k) == (group, kind)
                for uid in members
            ]
        return [self._objects[uid] for uid in uids]

    def owners(self, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The controller owner chain of an object held here, nearest first."""
        return list(owner_chain(obj, self._objects.get))

    def missing_owner(self, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The owner reference where the object's chain leaves the index, if it does."""
        chain = self.owners(obj)
        last = chain[-1] if chain else obj
        if len(chain) >= MAX_OWNER_HOPS:
            return None
        reference = controller_reference(last)
        return reference if reference is not None and controller_uid(last) else None

    def descendants(self, uid: str) -> list[dict[str, Any]]:
        """Every object whose controller chain reaches ``uid`` (held here), nearest first."""
        found: list[dict[str, Any]] = []
        frontier = [uid]
        seen = {uid}
        for _ in range(MAX_OWNER_HOPS):
            following = []
            for owner in frontier:
                for child in sorted(self._children.get(owner, ())):
                    if child in seen:
                        continue
                    seen.add(child)
                    following.append(child)
                    obj = self._objects.get(child)
                    if obj is not None:
                        found.append(obj)
            if not following:
                break
            frontier = following
        return found

    def _unlink(self, uid: str) -> None:
        owner = self._owner_of.pop(uid, None)
        if owner is None:
            return
        siblings = self._children.get(owner)
        if siblings is not None:
            siblings.discard(uid)
            if not siblings:
                del self._children[owner]
