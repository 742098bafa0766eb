"""Work per workload, coalesced and bounded.

Events about one workload arrive in bursts (its own updates, each of its pods). Running a
reconciliation per event would repeat the same work and, on a large cluster, open more
requests at once than the connection pool holds. Here at most one step runs per key: an
event arriving meanwhile replaces the pending step, which runs once the current one ends
(the latest state wins); and at most ``limit`` steps run at once overall.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

Step = Callable[[], Awaitable[Any]]
PARALLEL_STEPS = 16


class WorkQueue:
    """Coalescing, bounded execution of steps keyed by workload uid."""

    def __init__(self, limit: int = PARALLEL_STEPS) -> None:
        self._gate = asyncio.Semaphore(limit)
        self._pending: dict[str, Step | None] = {}
        self.coalesced = 0

    async def submit(self, key: str, step: Step) -> None:
        """Run ``step`` for ``key`` now, or after the step already running for it."""
        if key in self._pending:
            if self._pending[key] is not None:
                self.coalesced += 1
            self._pending[key] = step
            return
        self._pending[key] = None
        try:
            current: Step | None = step
            while current is not None:
                async with self._gate:
                    await current()
                current = self._pending[key]
                self._pending[key] = None
        finally:
            del self._pending[key]
