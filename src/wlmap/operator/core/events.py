"""Events between the operator's rooms: a room publishes what happened or what it wants,
and the runtime, which wires the rooms together, subscribes the step that acts on it.

The rooms never import one another: gang sync and the placement controller each publish
:class:`ReconcileWanted` when something of theirs (a gang object changed by another
writer, devices added for a waiting gang) needs the workload reconciled and placed again,
and the runtime answers with its reconciliation step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Events", "ReconcileWanted"]

E = TypeVar("E")


@dataclass(frozen=True)
class ReconcileWanted:
    """A workload to reconcile (and place) again now."""

    workload: Mapping[str, Any]


class Events:
    """An in-process publish/subscribe: each event is handed to its type's subscribers in
    the order they subscribed, each awaited before the next, in the publisher's task."""

    def __init__(self) -> None:
        self._subscribers: dict[type[Any], list[Callable[[Any], Awaitable[None]]]] = {}

    def subscribe(self, kind: type[E], handler: Callable[[E], Awaitable[None]]) -> None:
        """Call ``handler`` with each event of type ``kind`` published from now on."""
        self._subscribers.setdefault(kind, []).append(handler)

    async def publish(self, event: object) -> None:
        """Hand the event to its subscribers (none: nothing happens)."""
        for handler in self._subscribers.get(type(event), ()):
            await handler(event)
