"""The pages' data from the current kubeconfig context, kept current by watches.

:class:`ClusterSource` connects through :mod:`wlmap.app.live` (the cluster's stored
definitions merged in, as for ``wlmap get``) and runs a :class:`~wlmap.web.feed.WorkloadFeed`
on an event loop of its own thread; the server's threads read the documents the feed keeps
and wait on :attr:`changes` for the page's live updates. It can also ask the API server
(TokenReview, SubjectAccessReview) for :mod:`wlmap.web.access`: those are the only
requests it makes besides its watches, and neither changes the cluster.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from wlmap.errors import ClusterError
from wlmap.web.changes import Changes
from wlmap.web.documents import counts

if TYPE_CHECKING:
    from wlmap.app.live import Connected, Live
    from wlmap.web.feed import Shown, WorkloadFeed

__all__ = ["ASK_SECONDS", "ClusterSource"]

ASK_SECONDS = 10.0
"""How long a question to the API server (a review) may take."""

WAITING_PHASES = frozenset({"Suspended", "Initializing", "Resuming"})


class ClusterSource:
    """The Workloads, Workload and Waiting pages of a live cluster.

    Args:
        live: the cluster and the definitions in use.
        sync_timeout: how long the first listing of every watched type may take.
    """

    def __init__(self, live: Live, sync_timeout: float = 60.0) -> None:
        self.changes = Changes()
        self._live = live
        self._sync_timeout = sync_timeout
        self._feed: WorkloadFeed | None = None
        self._connected: Connected | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> ClusterSource:
        """Connect and read every workload; return once the pages can be answered.

        Raises:
            ClusterError: the cluster cannot be reached, refuses, or did not sync in time.
        """
        self._thread = threading.Thread(target=self._run, name="wlmap-web-feed", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            if isinstance(self._failure, ClusterError):
                raise self._failure
            raise ClusterError(f"cannot read the cluster: {self._failure}") from self._failure
        return self

    def stop(self) -> None:
        """Stop the watches and the loop's thread."""
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        try:
            self._live.run(self._work)
        except BaseException as exc:  # handed to start(), which raises it in its thread
            self._failure = exc
        finally:
            self._ready.set()

    async def _work(self, connected: Connected) -> None:
        self._connected = connected
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        from wlmap.web.feed import WorkloadFeed  # noqa: PLC0415 - the cluster client, live only

        feed = WorkloadFeed(connected, self.changes.publish)
        try:
            await feed.start(self._sync_timeout)
            self._feed = feed
            self._ready.set()
            await self._stopping.wait()
        finally:
            await feed.stop()

    def ask(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST one review to the API server (from any thread but the loop's).

        Raises:
            ClusterError: the server refused or did not answer in time.
        """
        if self._loop is None or self._connected is None:
            raise ClusterError("the cluster source is not started")
        cluster = self._connected.cluster
        asked = asyncio.run_coroutine_threadsafe(
            cluster.request("POST", path, body=body), self._loop
        )
        try:
            return asked.result(ASK_SECONDS)
        except TimeoutError as exc:
            asked.cancel()
            raise ClusterError(f"POST {path}: no answer in {ASK_SECONDS:g} s") from exc

    def plural(self, group: str, kind: str) -> str | None:
        """The resource name the server serves a kind under (None: not served)."""
        if self._connected is None:
            return None
        resource = self._connected.discovery.find(group, kind)
        return resource.plural if resource is not None else None

    # -- pages --------------------------------------------------------------------------

    def shown(self) -> list[Shown]:
        """Every top-level workload (for access checks)."""
        return self._feed.shown() if self._feed is not None else []

    def shown_one(self, key: int) -> Shown | None:
        """One workload by key (for access checks)."""
        return self._feed.get(key) if self._feed is not None else None

    def workloads(self) -> dict[str, Any]:
        version = self.changes.last  # first: a change racing the rows is sent again
        return listing([s.row for s in self.shown()], version)

    def workload(self, key: int) -> dict[str, Any] | None:
        version = self.changes.last
        found = self.shown_one(key)
        return {**found.detail, "version": version} if found is not None else None

    def cluster(self) -> dict[str, Any]:
        return {
            "domains": [],
            "levels": [],
            "waiting": [],
            "problems": ["the Cluster page reads a nodes,pods dump: run wlmap web -f"],
        }

    def waiting(self) -> dict[str, Any]:
        items = [
            {
                "key": s.key,
                "apiVersion": s.row["apiVersion"],
                "kind": s.kind,
                "namespace": s.namespace,
                "name": s.row["name"],
                "phases": s.row["phases"],
                "gangs": s.row["gangs"],
                "plan": None,
            }
            for s in self.shown()
            if WAITING_PHASES & set(s.row["phases"])
        ]
        return {"items": items, "pods": [], "problems": []}

    def simulations(self) -> dict[str, Any]:
        return {
            "files": [],
            "problems": ["simulation results are files: run wlmap web -f with --simulation"],
        }


def listing(rows: list[dict[str, Any]], version: int) -> dict[str, Any]:
    """The Workloads page's document: rows in namespace, kind, name order, with counts
    per state and the number of the last change they include (live updates follow it)."""
    rows = sorted(rows, key=lambda r: (r["namespace"] or "", r["kind"] or "", r["name"] or ""))
    return {
        "items": rows,
        "count": len(rows),
        "states": counts(rows),
        "problems": [],
        "version": version,
    }
