"""Work per workload, coalesced and bounded.

Events about one workload arrive in bursts (its own updates, each of its pods). Running a
reconciliation per event would repeat the same work and, on a large cluster, open more
requests at once than the connection pool holds. Here at most one step runs per key: an
event arriving meanwhile replaces the pending step, which runs once the current one ends
(the latest state wins); and at most ``limit`` steps run at once overall. A step that
waits on something slow that is its own business (its definition's evaluation lane) steps
aside meanwhile, so its slot serves other workloads.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

Step = Callable[[], Awaitable[Any]]
PARALLEL_STEPS = 16


class _Slot:
    """One step's slot: the queue and task holding it (a task spawned by a step copies
    its context, so the task is compared too: only the step itself may give it away)."""

    def __init__(self, queue: WorkQueue, task: object) -> None:
        self.queue, self.task, self.held = queue, task, False


_SLOT: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar("wlmap_slot", default=None)


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
                slot = _Slot(self, asyncio.current_task())
                await self._gate.acquire()
                slot.held = True
                token = _SLOT.set(slot)
                try:
                    await current()
                finally:
                    _SLOT.reset(token)
                    if slot.held:
                        self._gate.release()
                current = self._pending[key]
                self._pending[key] = None
        finally:
            del self._pending[key]

    @asynccontextmanager
    async def aside(self) -> AsyncIterator[None]:
        """Give the calling step's slot to other steps for the block, and take a slot
        again after it. Does nothing when the caller holds no slot of this queue."""
        slot = _SLOT.get()
        if slot is None or slot.queue is not self or slot.task is not asyncio.current_task():
            yield
            return
        if not slot.held:  # already aside
            yield
            return
        slot.held = False
        self._gate.release()
        try:
            yield
        finally:
            await self._gate.acquire()
            slot.held = True
