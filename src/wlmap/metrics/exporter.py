"""``wlmap metrics serve``: the exporter on its own, read-only, fed by the cluster's watches.

It connects, merges the cluster's stored definitions into those in use, starts the
watches, serves ``/metrics`` and ``/healthz`` at once (``wlmap_exporter_cache_synced 0``
until every type is listed and every workload interpreted) and runs until stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wlmap.metrics.checkpoint import Checkpointer
from wlmap.metrics.http import DEFAULT_PORT, MetricsServer
from wlmap.metrics.index import DEFAULT_TEAM_LABEL, MetricsIndex
from wlmap.metrics.node_series import DEFAULT_DOMAIN_KEYS
from wlmap.metrics.serving import ClusterFeed

if TYPE_CHECKING:
    from wlmap.app.live import Connected

__all__ = ["ExporterSettings", "serve"]


@dataclass(frozen=True)
class ExporterSettings:
    """What the exporter serves and where.

    Attributes:
        port: the port of ``/metrics`` and ``/healthz`` (0: a free one, reported by
            ``listening``).
        host: the address to listen on.
        namespaces: the namespaces served (empty: every one, or the selector's).
        selector: a label selector of the namespaces served.
        team_label: the label key naming a workload's team.
        domain_keys: node label keys written on the node series.
        checkpoint_namespace: where the GPU-seconds checkpoint ConfigMap is kept (None:
            none is kept, and deleted pods' seconds are lost on a restart).
    """

    port: int = DEFAULT_PORT
    host: str = "0.0.0.0"
    namespaces: Sequence[str] = ()
    selector: str | None = None
    team_label: str = DEFAULT_TEAM_LABEL
    domain_keys: Sequence[str] = field(default=DEFAULT_DOMAIN_KEYS)
    checkpoint_namespace: str | None = "wlmap-system"


async def serve(
    connected: Connected,
    settings: ExporterSettings,
    listening: Callable[[int], None] = lambda port: None,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve the metrics of the connected cluster until ``stop`` is set (or SIGTERM or
    SIGINT arrives when it is not given).

    Raises:
        ClusterError: the watches could not list the cluster within a minute.
    """
    index = MetricsIndex(team_label=settings.team_label, domain_keys=settings.domain_keys)
    server = MetricsServer(index, settings.host, settings.port)
    feed = ClusterFeed(connected, index, settings.namespaces, settings.selector)
    if stop is None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):  # not on every platform
                loop.add_signal_handler(signum, stop.set)
    checkpoint = (
        Checkpointer(connected.cluster, index, settings.checkpoint_namespace)
        if settings.checkpoint_namespace
        else None
    )
    await server.start()
    listening(server.port)
    writing: asyncio.Task[None] | None = None
    try:
        if checkpoint is not None:
            await checkpoint.restore()
        await feed.start()
        if checkpoint is not None:
            writing = asyncio.get_running_loop().create_task(checkpoint.run())
        await stop.wait()
    finally:
        if writing is not None:
            writing.cancel()
            await asyncio.gather(writing, return_exceptions=True)
        await feed.stop()
        if checkpoint is not None and index.synced:
            await checkpoint.write()
        await server.stop()
