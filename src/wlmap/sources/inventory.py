"""A set of objects read together (a dump): owners, pods and claims found among them.

``kubectl get -o yaml`` dumps carry ``metadata.uid`` and ``ownerReferences``, so pods can be
traced to the workload that owns them (through ReplicaSets, Jobs, StatefulSets...) and
workloads owned by another mapped workload can be told apart from top-level ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from wlmap.sources.manifests import Manifest

MAX_OWNER_HOPS = 6
CLAIM_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def uid_of(obj: Mapping[str, Any]) -> str | None:
    """The object's ``metadata.uid``, if it has one."""
    uid = _metadata(obj).get("uid")
    return uid if isinstance(uid, str) else None


def controller_reference(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The owner reference of the object's controlling owner (or its only owner), if any."""
    owners = [o for o in _metadata(obj).get("ownerReferences") or () if isinstance(o, Mapping)]
    return next((o for o in owners if o.get("controller")), owners[0] if len(owners) == 1 else None)


def controller_uid(obj: Mapping[str, Any]) -> str | None:
    """The uid of the object's controlling owner (or its only owner), if any."""
    chosen = controller_reference(obj)
    uid = chosen.get("uid") if chosen else None
    return uid if isinstance(uid, str) else None


def owner_chain(
    obj: Mapping[str, Any], held: Callable[[str], dict[str, Any] | None]
) -> Iterator[dict[str, Any]]:
    """The controller owner chain of an object, nearest first, as far as ``held`` (an
    object by uid) knows it, and at most ``MAX_OWNER_HOPS`` long."""
    current: Mapping[str, Any] = obj
    for _ in range(MAX_OWNER_HOPS):
        uid = controller_uid(current)
        owner = held(uid) if uid is not None else None
        if owner is None:
            return
        yield owner
        current = owner


@dataclass
class Inventory:
    """Objects indexed by uid, with pods and DRA claims set apart."""

    manifests: list[Manifest]
    pods_listed: bool = False  # every pod in scope is among the manifests, even if none
    by_uid: dict[str, dict[str, Any]] = field(default_factory=dict)
    pods: list[dict[str, Any]] = field(default_factory=list)
    claims: dict[str, dict[str, Any]] = field(default_factory=dict)
    _pods_by_owner: dict[str, list[dict[str, Any]]] | None = None
    _by_kind: dict[tuple[str, ...], list[dict[str, Any]]] | None = None

    def __post_init__(self) -> None:
        for manifest in self.manifests:
            obj = manifest.obj
            uid = uid_of(obj)
            if uid is not None:
                self.by_uid[uid] = obj
            kind = obj.get("kind")
            if kind == "Pod" and obj.get("apiVersion") == "v1":
                self.pods.append(obj)
            elif kind in CLAIM_KINDS:
                self.claims[str(_metadata(obj).get("name"))] = obj

    def find(
        self, group: str, kind: str, name: str, namespace: str | None
    ) -> dict[str, Any] | None:
        """An object of the dump by group, kind and name; a namespaced object must also be
        in ``namespace`` (cluster-scoped ones have none)."""
        return next(
            (o for o in self.of_kind(group, kind, namespace) if _metadata(o).get("name") == name),
            None,
        )

    def of_kind(
        self, group: str, kind: str, namespace: str | None, *, controller: str | None = None
    ) -> list[dict[str, Any]]:
        """The objects of a group and kind; a namespaced one must be in ``namespace``; with
        ``controller``, only those whose controlling owner has that uid."""
        if self._by_kind is None:
            # indexed once: every workload of a kind selects among the same objects
            self._by_kind = {}
            for manifest in self.manifests:
                obj = manifest.obj
                group_kind = (
                    str(obj.get("apiVersion", "")).rpartition("/")[0],
                    str(obj.get("kind")),
                )
                self._by_kind.setdefault(group_kind, []).append(obj)
                owner = controller_uid(obj)
                if owner is not None:
                    self._by_kind.setdefault((owner, *group_kind), []).append(obj)
        key: tuple[str, ...] = (group, kind) if controller is None else (controller, group, kind)
        return [
            obj
            for obj in self._by_kind.get(key, ())
            if _metadata(obj).get("namespace") in (None, namespace)
        ]

    def owners(self, obj: Mapping[str, Any]) -> Iterable[dict[str, Any]]:
        """The controller owner chain of an object, nearest first (as far as the dump holds it)."""
        return owner_chain(obj, self.by_uid.get)

    def is_top_level(
        self, obj: Mapping[str, Any], covered: Callable[[Mapping[str, Any]], bool]
    ) -> bool:
        """No owner in the chain is of a covered (mapped) kind."""
        return not any(covered(owner) for owner in self.owners(obj))

    def pods_of(self, obj: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        """Pods whose owner chain reaches ``obj``; None when they are unknown, not absent:
        the object has no uid, or the input is not a full list of pods and holds none of
        this object's (other workloads' pods in a file say nothing about this one's)."""
        uid = uid_of(obj)
        if (not self.pods and not self.pods_listed) or uid is None:
            return None
        if obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1":
            return [dict(obj)]  # a bare pod is its own only pod
        if self._pods_by_owner is None:
            self._pods_by_owner = {}
            for pod in self.pods:
                for owner in self.owners(pod):
                    owner_uid = uid_of(owner)
                    if owner_uid is not None:
                        self._pods_by_owner.setdefault(owner_uid, []).append(pod)
        own = self._pods_by_owner.get(uid)
        if own is None:
            return [] if self.pods_listed else None
        return list(own)
