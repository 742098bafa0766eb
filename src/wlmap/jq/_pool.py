"""Worker processes of the untrusted engine, one per lane, so that one slow definition's
libjq evaluations wait only for each other.

A worker answers one request at a time (it holds a lock while libjq runs, up to the time
limit), so with one worker per process every untrusted evaluation would queue behind the
slowest definition's. A caller names the lane an evaluation belongs to with
:func:`lane` (the operator uses the definition's origin); evaluations without a lane share
the default worker, as before. At most ``cap`` lanes get a worker of their own (each is a
process with its own memory cap); further lanes share those workers by a stable hash of
their name.
"""

from __future__ import annotations

import contextvars
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

from wlmap.jq._worker import Worker

# Enough for the untrusted definitions a cluster usually holds; each worker is a Python
# process (about 20 MB resident once libjq is loaded), started only when a lane needs libjq.
LANE_WORKERS = 8

_LANE: contextvars.ContextVar[str | None] = contextvars.ContextVar("wlmap_jq_lane", default=None)


@contextmanager
def lane(key: str | None) -> Iterator[None]:
    """Evaluate the untrusted programs run inside this block on ``key``'s worker (in this
    thread or task only; None: the shared default worker)."""
    token = _LANE.set(key)
    try:
        yield
    finally:
        _LANE.reset(token)


def current_lane() -> str | None:
    """The lane named by the innermost :func:`lane` block, if any."""
    return _LANE.get()


class WorkerPool:
    """The workers of one isolated engine: a default one and one per lane, up to ``cap``."""

    def __init__(self, memory_bytes: int, start_seconds: float, cap: int = LANE_WORKERS) -> None:
        self._memory_bytes = memory_bytes
        self._start_seconds = start_seconds
        self._cap = max(cap, 1)
        self.default = Worker(memory_bytes, start_seconds)
        self._lanes: dict[str, Worker] = {}
        self._lock = threading.Lock()

    def worker(self, key: str | None = None) -> Worker:
        """The worker of a lane (the default worker for None)."""
        if key is None:
            return self.default
        with self._lock:
            found = self._lanes.get(key)
            if found is not None:
                return found
            if len(self._lanes) < self._cap:
                found = self._lanes[key] = Worker(self._memory_bytes, self._start_seconds)
                return found
            # past the cap: share an existing lane's worker, the same one every time
            shared = list(self._lanes.values())
            return shared[zlib.crc32(key.encode()) % len(shared)]

    def close(self) -> None:
        """Stop every worker process."""
        with self._lock:
            workers = [self.default, *self._lanes.values()]
        for one in workers:
            one.close()
