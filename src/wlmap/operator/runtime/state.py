"""What the operator's handlers share: settings, the connection, discovery, the
definitions in use, the work queue, what was reported and written, and which namespaces
are served."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from wlmap.operator.core.queue import WorkQueue
from wlmap.operator.core.reports import Reports
from wlmap.operator.core.settings import Settings
from wlmap.operator.core.store import DefinitionStore
from wlmap.operator.core.written import Written
from wlmap.operator.placing._device_waits import DeviceWaits
from wlmap.operator.placing.capacity import CapacityCache
from wlmap.operator.runtime.leader import LeaderElection
from wlmap.operator.runtime.read_keys import ReadKeys
from wlmap.sources.cluster import Cluster, Discovery
from wlmap.sources.cluster.cache import ClusterCache


@dataclass
class State:
    """What the handlers share: the connection, discovery, definitions and counters."""

    settings: Settings
    store: DefinitionStore = field(default_factory=DefinitionStore)
    cluster: Cluster | None = None
    discovery: Discovery | None = None
    cache: ClusterCache | None = None  # None: every reconciliation reads the cluster anew
    capacity: CapacityCache | None = None  # nodes and pods for the placement controller
    queue: WorkQueue = field(default_factory=WorkQueue)
    later: set[asyncio.Task[None]] = field(default_factory=set)
    reports: Reports = field(default_factory=Reports)
    written: Written = field(default_factory=Written)  # links and gang objects not seen back
    read_keys: ReadKeys = field(default_factory=ReadKeys)  # workloads as last reconciled
    waiting: dict[str, float] = field(default_factory=dict)  # uid: last delay before a recheck
    rechecks: set[str] = field(default_factory=set)  # uids with a recheck planned
    device_waits: DeviceWaits = field(default_factory=DeviceWaits)  # DRA gangs without room
    # uid: the placement condition last said (status, reason, message, its Event unsent)
    placement_said: dict[str, tuple[bool, str, str, bool]] = field(default_factory=dict)
    kinds: set[tuple[str, str]] = field(default_factory=set)
    webhook_serving: asyncio.Event = field(default_factory=asyncio.Event)  # the gate's server
    namespace_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    leader: LeaderElection | None = None
    # steps a replica runs when it takes the lease over, for what it saw but did not act on
    takeover: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    reconciled: int = 0
    skipped: int = 0  # workload events that changed nothing a reconciliation reads
    failures: int = 0

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
