"""Keeping every object of one type in an index: a listing, then a watch from its version.

A watch that ends is resumed from the last version seen. One the server can no longer
resume (410 Gone: it has compacted past that version, or restarted) is replaced by a new
listing, and objects that listing no longer holds are removed: they were deleted while
nothing was watching, and no event will ever say so.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from wlmap.errors import ClusterError
from wlmap.sources.cluster.connection import ApiError, Cluster
from wlmap.sources.cluster.discovery import ApiResource
from wlmap.sources.cluster.listing import PAGE_SIZE
from wlmap.sources.cluster.object_index import ObjectIndex

log = logging.getLogger("wlmap.cluster")
WATCH_SECONDS = 300
RETRY_SECONDS = 1.0
REFUSED_RETRY_SECONDS = 60.0

# Called with the event type (ADDED, MODIFIED, DELETED) and the object, after the index
# holds the change; a listing reports what it added, changed and removed the same way.
ChangeListener = Callable[[str, dict[str, Any]], None]


class GoneError(Exception):
    """The server cannot resume the watch from the version asked for."""


class Informer:
    """One type in one namespace (every namespace when None), mirrored into an index."""

    def __init__(
        self,
        cluster: Cluster,
        resource: ApiResource,
        namespace: str | None,
        index: ObjectIndex,
        listener: ChangeListener | None = None,
        selector: str | None = None,
        slim: bool = True,
    ) -> None:
        self.resource = resource
        self.namespace = namespace if resource.namespaced else None
        self.synced = asyncio.Event()  # the first listing is in the index (or was refused)
        self.refused = False  # the server refuses to list or watch this type
        self.listings = 0
        self._cluster = cluster
        self._index = index
        self._listener = listener
        self._selector = selector  # a label selector: only the objects it selects are kept
        self._slim = slim  # managed fields dropped

    async def run(self) -> None:
        """List and watch until cancelled."""
        version: str | None = None
        while True:
            try:
                if version is None:
                    version = await self._relist()
                version = await self._watch(version)
            except GoneError:
                version = None
            except ApiError as exc:
                if exc.code == 410:
                    version = None
                    continue
                log.warning("cannot watch %s: %s", self.resource.qualified, exc)
                self.refused = True
                self.synced.set()  # readers go on without this type
                version = None
                await asyncio.sleep(REFUSED_RETRY_SECONDS)
            except ClusterError:
                await asyncio.sleep(RETRY_SECONDS)  # the server went away: resume when back

    async def _relist(self) -> str:
        params: dict[str, Any] = {"limit": PAGE_SIZE, "labelSelector": self._selector}
        objects: list[dict[str, Any]] = []
        while True:
            page = await self._cluster.request(
                "GET", self.resource.path(self.namespace), params=params
            )
            for item in page.get("items") or ():
                if isinstance(item, dict):
                    objects.append(self._typed(item))
            metadata = page.get("metadata") or {}
            if not metadata.get("continue"):
                break
            params = {**params, "continue": metadata["continue"]}
        resource = self.resource
        changed, removed = self._index.replace(
            resource.group, resource.kind, self.namespace, objects
        )
        self.listings += 1
        self.refused = False
        self.synced.set()
        for obj in removed:
            self._notify("DELETED", obj)
        for obj in changed:
            self._notify("ADDED", obj)
        return str(metadata.get("resourceVersion") or "")

    async def _watch(self, version: str) -> str:
        """Apply events from ``version`` on until the server ends the watch; the last
        version seen. Raises GoneError when the version is too old."""
        params = {
            "watch": "true",
            "allowWatchBookmarks": "true",
            "timeoutSeconds": WATCH_SECONDS,
            "resourceVersion": version,
        }
        if self._selector is not None:
            params["labelSelector"] = self._selector
        path = self.resource.path(self.namespace)
        # the server ends a watch after WATCH_SECONDS: a longer silence is a dead connection
        async for line in self._cluster.lines(path, params, timeout=WATCH_SECONDS + 30):
            event = json.loads(line)
            kind, obj = event.get("type"), event.get("object") or {}
            if kind == "ERROR":
                if obj.get("code") == 410:
                    raise GoneError(obj.get("message"))
                raise ApiError(str(obj.get("message")), int(obj.get("code") or 500))
            version = str((obj.get("metadata") or {}).get("resourceVersion") or version)
            if kind == "DELETED":
                held = self._index.remove(obj)
                self._notify("DELETED", held or self._typed(obj))
            elif kind in ("ADDED", "MODIFIED") and self._index.put(self._typed(obj)):
                self._notify(str(kind), obj)
        return version

    def _typed(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The object as kept: typed (lists leave that out), without its managed fields
        unless asked (often half of a pod's size, and nothing a definition reads)."""
        metadata = obj.get("metadata")
        if self._slim and isinstance(metadata, dict):
            metadata.pop("managedFields", None)
        obj.setdefault("apiVersion", self.resource.api_version)
        obj.setdefault("kind", self.resource.kind)
        return obj

    def _notify(self, kind: str, obj: dict[str, Any]) -> None:
        if self._listener is not None:
            self._listener(kind, obj)


class Informers:
    """Several informers run together: started in the running event loop, stopped, and
    waited on until each has listed its type once."""

    def __init__(self, informers: list[Informer]) -> None:
        self.all = informers
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Start listing and watching (in the running event loop)."""
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(informer.run()) for informer in self.all]

    async def stop(self) -> None:
        """Stop every watch."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []

    def reach(self, watches: Callable[[Informer], bool]) -> bool:
        """Whether the objects the informers that ``watches`` picks watch all reach the
        index: some informer is picked, and the server refused none of them."""
        picked = [i for i in self.all if watches(i)]
        return bool(picked) and all(not i.refused for i in picked)

    async def synced(self, timeout: float, what: str) -> None:
        """Wait until every informer has listed once.

        Raises:
            ClusterError: not within ``timeout`` seconds ("``what`` were not listed ...").
        """
        try:
            await asyncio.wait_for(asyncio.gather(*(i.synced.wait() for i in self.all)), timeout)
        except TimeoutError as exc:
            raise ClusterError(f"{what} were not listed within {timeout:.0f} s") from exc
