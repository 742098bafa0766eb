"""When gang objects are checked for orphans again, besides the start and a new lease.

A workload deleted while the watches were down (an API server restart, a dropped
connection) brings no DELETED event: kopf's new listing just no longer holds it, and its
gang objects stay. On a cluster with a garbage collector they go anyway (every gang object
carries the workload as its controller owner); without one, or while it lags, only a sweep
finds them. So the gang objects are swept again:

- after a watch failed and was resumed, a few times (``AFTER_INTERRUPTION`` seconds
  later): the workload watches come back on their own schedule, and a deletion made just
  before they did is seen by none of them;
- every ``SWEEP_SECONDS`` otherwise, as a backstop (each sweep asks the server for the
  workload of every gang object, so not often).

An interruption while those sweeps are pending starts them over.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from wlmap.errors import ClusterError
from wlmap.operator.core.shared import Shared

log = logging.getLogger("wlmap.operator")

SWEEP_SECONDS = 600.0
AFTER_INTERRUPTION = (3.0, 15.0, 60.0)


class Sweeps:
    """The sweeps after interruptions and the periodic one, run by :meth:`run`.

    Args:
        sweep: one sweep of every gang object in the served namespaces.
    """

    def __init__(
        self,
        state: Shared,
        sweep: Callable[[Shared], Awaitable[None]],
        period: float = SWEEP_SECONDS,
        after_interruption: tuple[float, ...] = AFTER_INTERRUPTION,
    ) -> None:
        self.done = 0
        self._state = state
        self._sweep = sweep
        self._period = period
        self._after = after_interruption
        self._interrupted = asyncio.Event()

    def interrupted(self) -> None:
        """A watch failed and is being resumed (called from its task: does not block)."""
        self._interrupted.set()

    async def run(self) -> None:
        """Sweep on schedule until cancelled."""
        while True:
            try:
                await asyncio.wait_for(self._interrupted.wait(), self._period)
            except TimeoutError:
                await self._once()
                continue
            await self._after_interruption()

    async def _after_interruption(self) -> None:
        """The sweeps after an interruption; one more interruption starts them over."""
        self._interrupted.clear()
        step, waited = 0, 0.0
        while step < len(self._after):
            delay = self._after[step]
            try:
                await asyncio.wait_for(self._interrupted.wait(), delay - waited)
            except TimeoutError:
                await self._once()
                step, waited = step + 1, delay
                continue
            self._interrupted.clear()
            step, waited = 0, 0.0

    async def _once(self) -> None:
        if not self._state.writes:
            return  # the leader sweeps (and a new leader sweeps on taking over)
        try:
            await self._sweep(self._state)
        except ClusterError as exc:  # the server is away again: the next one will do
            log.warning("gang objects not checked for orphans: %s", exc)
        self.done += 1
