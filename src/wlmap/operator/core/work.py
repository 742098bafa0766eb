"""Running one step of work: queued under its workload's key, retried, and queued again
later when the server keeps failing.

Errors are sorted in one place (:func:`retrying`): the server's failures are retried with
backoff, then queued again later; a definition that cannot describe an object is logged
and left. Every room submits its steps here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from wlmap.errors import ClusterError, WlmapError, WorkloadNotFoundError
from wlmap.operator.core.shared import Shared
from wlmap.sources.cluster import ApiError

__all__ = ["RETRIES", "RETRY_LATER_SECONDS", "is_mapped", "retrying", "submit"]

log = logging.getLogger("wlmap.operator")
RETRIES = 6
RETRY_LATER_SECONDS = 30.0


def is_mapped(state: Shared, obj: Mapping[str, Any]) -> bool:
    """Whether a definition covers an object (or the object an owner reference names)."""
    return state.store.registry.find(str(obj.get("apiVersion")), str(obj.get("kind"))) is not None


async def submit(state: Shared, key: str, step: Callable[[], Awaitable[Any]]) -> None:
    """Queue a step for one workload; a step the server kept failing is queued again
    after ``RETRY_LATER_SECONDS`` (nothing else would bring the workload back). A replica
    that does not hold the Lease skips it: the leader does the work (and a new leader
    reconciles everything)."""

    async def attempt() -> None:
        if not state.writes:
            return
        if await retrying(state, step):
            return
        state.spawn(_later(state, key, step))

    await state.queue.submit(key, attempt)


async def _later(state: Shared, key: str, step: Callable[[], Awaitable[Any]]) -> None:
    await asyncio.sleep(RETRY_LATER_SECONDS)
    await submit(state, key, step)


async def retrying(state: Shared, step: Callable[[], Awaitable[Any]]) -> bool:
    """Run a step, retrying the server's failures with backoff. The one place errors are
    sorted: True when done or not worth retrying (logged), False to retry later."""
    delay = 0.5
    for attempt in range(1, RETRIES + 1):
        try:
            await step()
            state.reconciled += 1
            return True
        except WorkloadNotFoundError:
            return True  # deleted meanwhile: its DELETED event follows
        except ApiError as exc:
            if exc.code in (400, 403, 404, 422):
                state.failures += 1
                log.error("request refused: %s", exc)
                return True
            if attempt == RETRIES:
                log.warning("request failed, retrying later: %s", exc)
                return False
        except ClusterError as exc:
            if attempt == RETRIES:
                log.warning("cluster unavailable, retrying later: %s", exc)
                return False
        except WlmapError as exc:
            state.failures += 1
            log.error("cannot interpret: %s", exc)
            return True
        await asyncio.sleep(delay)
        delay = min(delay * 2, 8.0)
    return False
