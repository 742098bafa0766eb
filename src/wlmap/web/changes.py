"""The changes a live source publishes to the open pages, in order, for a while.

The source appends one event per workload that changed (its new row, or its key when it
is gone); each page's event stream waits here and takes what came after the last event it
sent. Only the most recent events are kept: a page that fell further behind is told to
load its page again, which costs one answer, not the history.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

__all__ = ["KEPT", "Changes"]

KEPT = 10_000
"""How many recent events are kept for streams that fell behind."""


class Changes:
    """Numbered events, appended by one writer and read by any number of streams."""

    def __init__(self, kept: int = KEPT) -> None:
        self._events: deque[tuple[int, dict[str, Any]]] = deque(maxlen=kept)
        self._last = 0
        self._condition = threading.Condition()

    @property
    def last(self) -> int:
        """The number of the newest event (0: none yet)."""
        with self._condition:
            return self._last

    def publish(self, event: dict[str, Any]) -> None:
        """Append one event and wake every waiting stream."""
        with self._condition:
            self._last += 1
            self._events.append((self._last, event))
            self._condition.notify_all()

    def after(self, seen: int, timeout: float) -> list[tuple[int, dict[str, Any]]] | None:
        """The events after number ``seen``, waiting up to ``timeout`` seconds for one;
        None when some of them are no longer kept (the reader must load again)."""
        with self._condition:
            self._condition.wait_for(lambda: self._last > seen, timeout)
            if self._last <= seen:
                return []
            if not self._events or self._events[0][0] > seen + 1:
                return None
            start = seen + 1 - self._events[0][0]
            return [self._events[i] for i in range(start, len(self._events))]
