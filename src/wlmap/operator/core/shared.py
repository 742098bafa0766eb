"""What every room of the operator reads: the settings, the connection, the definitions in
use, the work queue, the writes not seen back, which namespaces are served, whether this
replica writes, and the events between rooms.

Each room keeps its own state beside this (the placement controller's in
``wlmap.operator.placing.state``, the runtime's in ``wlmap.operator.runtime.state``); the
runtime's ``State`` is all of them in one object, and a room's functions take the part
they read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from wlmap.operator.core.events import Events
from wlmap.operator.core.queue import WorkQueue
from wlmap.operator.core.settings import Settings
from wlmap.operator.core.store import DefinitionStore
from wlmap.operator.core.written import Written
from wlmap.sources.cluster import Cluster, Discovery
from wlmap.sources.cluster.cache import ClusterCache

__all__ = ["Lease", "Shared"]


class Lease(Protocol):
    """The leader election, as the rooms see it: whether this replica leads."""

    leading: bool


@dataclass
class Shared:
    """What the rooms share: the connection, discovery, definitions, queue and counters."""

    settings: Settings
    store: DefinitionStore = field(default_factory=DefinitionStore)
    cluster: Cluster | None = None
    discovery: Discovery | None = None
    cache: ClusterCache | None = None  # None: every reconciliation reads the cluster anew
    queue: WorkQueue = field(default_factory=WorkQueue)
    later: set[asyncio.Task[None]] = field(default_factory=set)
    written: Written = field(default_factory=Written)  # links and gang objects not seen back
    namespace_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    leader: Lease | None = None
    # steps a replica runs when it takes the lease over, for what it saw but did not act on
    takeover: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    events: Events = field(default_factory=Events)
    reconciled: int = 0
    failures: int = 0
    # set once the webhook server listens (``core.webhook``): a pod created before is
    # not mutated, so what creates pods at start waits for it
    webhook_serving: asyncio.Event = field(default_factory=asyncio.Event)

    def spawn(self, step: Coroutine[Any, Any, None]) -> None:
        """Run a step beside the caller (a watch or a handler, which must not wait for it),
        kept referenced until it ends."""
        task = asyncio.get_running_loop().create_task(step)
        self.later.add(task)
        task.add_done_callback(self.later.discard)

    @property
    def writes(self) -> bool:
        """Whether this replica writes: always, or while it holds the Lease."""
        return self.leader is None or self.leader.leading

    def serves(self, obj: Mapping[str, Any]) -> bool:
        """Whether a workload is in scope (its namespace's labels as last seen)."""
        namespace = (obj.get("metadata") or {}).get("namespace")
        return self.settings.scope.serves(obj, self.namespace_labels.get(str(namespace)))

    def serves_namespace(self, namespace: str | None) -> bool:
        """Whether a namespace is in scope."""
        labels = self.namespace_labels.get(str(namespace))
        return self.settings.scope.namespace_served(namespace, labels)
