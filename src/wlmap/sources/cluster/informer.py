"""Keeping every object of one type in an index: a listing, then a watch from its version.

A watch that ends is resumed from the last version seen. One the server can no longer
resume (410 Gone: it has compacted past that version, or restarted) is replaced by a new
listing, and objects that listing no longer holds are removed: they were deleted while
nothing was watching, and no event will ever say so.

A failure the server will get over (5xx, as while it starts and before every path is
installed; 408, 429; a dropped or timed-out connection) is retried soon, with a capped
exponential backoff and jitter. A refusal (401, 403 and the other client errors) waits
``REFUSED_RETRY_SECONDS``: readers go on without the type meanwhile.

An informer may keep only some objects (``keep``: the pods of served namespaces) and only
part of each (``project``: what a reader needs of a pod); memory then follows what is kept,
not what the cluster holds.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Callable, Mapping
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
RETRY_CAP_SECONDS = 5.0
# a watch the server ends this much sooner than asked was closed by it (a restart)
EARLY_END_SECONDS = 30
# transient failures in a row after which readers go on without the type (as refused)
FAILURES_BEFORE_READERS_GO_ON = 6
TRANSIENT_CODES = frozenset({408, 429})

# Called with the event type (ADDED, MODIFIED, DELETED) and the object, after the index
# holds the change; a listing reports what it added, changed and removed the same way.
ChangeListener = Callable[[str, dict[str, Any]], None]


class GoneError(Exception):
    """The server cannot resume the watch from the version asked for."""


def transient(exc: ApiError) -> bool:
    """Whether the server will likely get over the failure (5xx, 408, 429) rather than
    refuse again (401, 403 and the other client errors)."""
    return exc.code >= 500 or exc.code in TRANSIENT_CODES


def retry_delay(failures: int) -> float:
    """Seconds before the next attempt after ``failures`` transient failures in a row:
    doubling from RETRY_SECONDS / 4 up to RETRY_CAP_SECONDS, with jitter (half to all of
    it) so that many watches failing together do not come back together."""
    ceiling = min(RETRY_CAP_SECONDS, RETRY_SECONDS / 4 * 2.0 ** max(failures - 1, 0))
    return ceiling * random.uniform(0.5, 1.0)  # jitter, not a secret


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
        keep: Callable[[Mapping[str, Any]], bool] | None = None,
        project: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        interrupted: Callable[[], None] | None = None,
        page_size: int = PAGE_SIZE,
    ) -> None:
        """See the module docstring; ``interrupted`` is told when a watch failed or the
        server closed it early, and it is resumed: changes may have gone unseen meanwhile
        (by this watch, or by others that the same restart interrupted)."""
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
        self._keep = keep  # which objects are kept (None: all)
        self._project = project  # the part of each object kept (None: all of it)
        self._interrupted = interrupted  # told when the watch failed and is resumed
        self._page_size = page_size

    async def run(self) -> None:
        """List and watch until cancelled."""
        version: str | None = None
        failures = 0
        while True:
            try:
                if version is None:
                    version = await self._relist()
                started = time.monotonic()
                version = await self._watch(version)
                failures = 0
                if time.monotonic() - started < WATCH_SECONDS - EARLY_END_SECONDS:
                    self._interrupt()  # the server closed it early: it is going away
                continue
            except GoneError:
                version = None
                continue
            except ApiError as exc:
                if exc.code == 410:
                    version = None
                    continue
                if not transient(exc):
                    log.warning("cannot watch %s: %s", self._where, exc)
                    self._give_up_for_now()
                    version = None
                    failures = 0
                    await asyncio.sleep(REFUSED_RETRY_SECONDS)
                    continue
                failures += 1
                log.info("watch of %s failed, retrying: %s", self._where, exc)
            except ClusterError as exc:  # the server went away or timed out: back soon
                failures += 1
                log.info("watch of %s failed, retrying: %s", self._where, exc)
            if failures >= FAILURES_BEFORE_READERS_GO_ON:
                self._give_up_for_now()
            await asyncio.sleep(retry_delay(failures))
            self._interrupt()

    @property
    def _where(self) -> str:
        """The type, and the namespace when one: what a refusal names."""
        where = f" in namespace {self.namespace}" if self.namespace else ""
        return f"{self.resource.qualified}{where}"

    def _interrupt(self) -> None:
        if self._interrupted is not None:
            self._interrupted()

    def _give_up_for_now(self) -> None:
        """Readers go on without this type (fetching its objects one by one) until a
        listing succeeds."""
        self.refused = True
        self.synced.set()

    async def _relist(self) -> str:
        params: dict[str, Any] = {"limit": self._page_size, "labelSelector": self._selector}
        objects: list[dict[str, Any]] = []
        while True:
            page = await self._cluster.request(
                "GET", self.resource.path(self.namespace), params=params
            )
            for item in page.get("items") or ():
                if isinstance(item, dict) and self._kept(item):
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
            if kind in ("ADDED", "MODIFIED", "DELETED") and not self._kept(obj):
                self._index.remove(obj)  # no longer kept (nor told of)
            elif kind == "DELETED":
                held = self._index.remove(obj)
                self._notify("DELETED", held or self._typed(obj))
            elif kind in ("ADDED", "MODIFIED") and self._index.put(kept := self._typed(obj)):
                self._notify(str(kind), kept)
        return version

    def _kept(self, obj: Mapping[str, Any]) -> bool:
        return self._keep is None or self._keep(obj)

    def _typed(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The object as kept: typed (lists leave that out), without its managed fields
        unless asked (often half of a pod's size, and nothing a definition reads), and
        projected when asked."""
        metadata = obj.get("metadata")
        if self._slim and isinstance(metadata, dict):
            metadata.pop("managedFields", None)
        obj.setdefault("apiVersion", self.resource.api_version)
        obj.setdefault("kind", self.resource.kind)
        return obj if self._project is None else self._project(obj)

    def _notify(self, kind: str, obj: dict[str, Any]) -> None:
        if self._listener is not None:
            self._listener(kind, obj)


class Informers:
    """Several informers run together: started in the running event loop, stopped, and
    waited on until each has listed its type once. Informers may join and leave while
    they run (the watches of a namespace that became served, or no longer is)."""

    def __init__(self, informers: list[Informer]) -> None:
        self.all = list(informers)
        self._tasks: dict[Informer, asyncio.Task[None]] = {}
        self._running = False

    def start(self) -> None:
        """Start listing and watching (in the running event loop)."""
        loop = asyncio.get_running_loop()
        self._tasks = {informer: loop.create_task(informer.run()) for informer in self.all}
        self._running = True

    def add(self, informers: list[Informer]) -> None:
        """More informers; started at once when the others run (else with them)."""
        self.all.extend(informers)
        if self._running:
            loop = asyncio.get_running_loop()
            for informer in informers:
                self._tasks[informer] = loop.create_task(informer.run())

    def remove(self, which: Callable[[Informer], bool]) -> list[Informer]:
        """Stop the informers ``which`` picks and drop them; those dropped. What they put
        in the index stays there: their owner removes it."""
        dropped = [i for i in self.all if which(i)]
        self.all = [i for i in self.all if not which(i)]
        for informer in dropped:
            task = self._tasks.pop(informer, None)
            if task is not None:
                task.cancel()
        return dropped

    def relist(self, which: Callable[[Informer], bool]) -> None:
        """List again the types of the informers ``which`` picks, from scratch (what they
        keep changed: a namespace became served). Readers wait for the new listing."""
        loop = asyncio.get_running_loop()
        for informer, task in list(self._tasks.items()):
            if which(informer):
                task.cancel()
                informer.synced.clear()
                self._tasks[informer] = loop.create_task(informer.run())

    def watch(self, namespace: str, make: Callable[[str], list[Informer]]) -> None:
        """Add the informers ``make`` gives for ``namespace``, unless some watch it."""
        if not any(i.namespace == namespace for i in self.all):
            self.add(make(namespace))

    def follow(
        self,
        namespace: str,
        served: bool,
        make: Callable[[str], list[Informer]],
        index: ObjectIndex,
    ) -> None:
        """Watch ``namespace`` with the informers ``make`` gives when it is ``served``, else
        stop its informers and drop what they kept from ``index``."""
        if served:
            self.watch(namespace, make)
        else:
            self.unwatch(namespace, index)

    def unwatch(self, namespace: str, index: ObjectIndex) -> None:
        """Stop the informers of ``namespace`` and drop what they kept from ``index``
        (no one is told: the objects are not deleted, only no longer watched)."""
        for informer in self.remove(lambda i: i.namespace == namespace):
            resource = informer.resource
            index.replace(resource.group, resource.kind, namespace, [])

    async def stop(self) -> None:
        """Stop every watch."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks = {}
        self._running = False

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
