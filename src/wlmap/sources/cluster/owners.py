"""Owners not among the listed objects, fetched once each and within a budget.

Pods reach their workload through owners that a listing of workload types does not hold
(the ReplicaSet between a Pod and its Deployment, the Job between a Pod and its JobSet).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

from wlmap.sources.cluster.connection import ApiError, Cluster
from wlmap.sources.cluster.discovery import Discovery
from wlmap.sources.inventory import MAX_OWNER_HOPS, controller_reference, uid_of

OWNER_BUDGET = 2000
PARALLEL_LOOKUPS = 16


class OwnerLookup:
    """Fetches controller owners by reference; every answer (found or not) is cached."""

    def __init__(self, cluster: Cluster, discovery: Discovery, budget: int = OWNER_BUDGET) -> None:
        self._cluster = cluster
        self._discovery = discovery
        self._cache: dict[str, dict[str, Any] | None] = {}
        self._gate = asyncio.Semaphore(PARALLEL_LOOKUPS)
        self.budget = budget
        self.exhausted = False
        # owners the server forbade reading, by resource: their chains stop there
        self.refused: dict[str, list[str]] = {}

    async def complete(
        self, objects: list[dict[str, Any]], starting: Iterable[Mapping[str, Any]]
    ) -> None:
        """Add to ``objects`` the owner chain of every object in ``starting`` that the list
        does not already hold, hop by hop."""
        known = {uid_of(o) for o in objects}
        frontier = list(starting)
        for _ in range(MAX_OWNER_HOPS):
            wanted: dict[str, tuple[str | None, Mapping[str, Any]]] = {}
            for obj in frontier:
                reference = controller_reference(obj)
                uid = reference.get("uid") if reference else None
                if reference is None or not isinstance(uid, str) or uid in known:
                    continue
                namespace = (obj.get("metadata") or {}).get("namespace")
                wanted[uid] = (namespace, reference)
            if not wanted:
                return
            fetched = await asyncio.gather(*(self._fetch(uid, *w) for uid, w in wanted.items()))
            found = [owner for owner in fetched if owner is not None]
            frontier = list(found)
            for owner in found:
                known.add(uid_of(owner))
                objects.append(owner)

    async def _fetch(
        self, uid: str, namespace: str | None, reference: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        if uid in self._cache:
            return self._cache[uid]
        if self.budget <= 0:
            self.exhausted = True
            return None
        self.budget -= 1
        resource = self._discovery.serving(
            str(reference.get("apiVersion", "")), str(reference.get("kind"))
        )
        owner: dict[str, Any] | None = None
        if resource is not None:
            async with self._gate:
                try:
                    owner = await self._cluster.request(
                        "GET", resource.path(namespace, str(reference.get("name")))
                    )
                except ApiError as exc:
                    owner = None  # gone, or not ours to read: the chain stops here
                    if exc.code == 403:
                        name = f"{namespace}/{reference.get('name')}" if namespace else ""
                        self.refused.setdefault(resource.qualified, []).append(
                            name or str(reference.get("name"))
                        )
        if owner is not None and uid_of(owner) != uid:
            owner = None  # a new object under the old name is not the owner
        self._cache[uid] = owner
        return owner
