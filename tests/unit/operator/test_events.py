"""The events between the operator's rooms: a published event reaches its type's
subscribers, in order, and no other type's."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from wlmap.operator.core import Events, ReconcileWanted


@dataclass(frozen=True)
class _Other:
    name: str


def test_an_event_reaches_its_subscribers_in_order_and_no_others() -> None:
    events = Events()
    heard: list[str] = []

    async def first(event: ReconcileWanted) -> None:
        heard.append(f"first {event.workload['kind']}")

    async def second(event: ReconcileWanted) -> None:
        heard.append(f"second {event.workload['kind']}")

    async def other(event: _Other) -> None:
        heard.append(f"other {event.name}")

    events.subscribe(ReconcileWanted, first)
    events.subscribe(ReconcileWanted, second)
    events.subscribe(_Other, other)
    asyncio.run(events.publish(ReconcileWanted({"kind": "Job"})))
    assert heard == ["first Job", "second Job"]


def test_an_event_nobody_subscribed_to_is_dropped() -> None:
    events = Events()
    asyncio.run(events.publish(_Other("unheard")))  # no subscriber: nothing raised
    heard: list[str] = []

    async def other(event: _Other) -> None:
        heard.append(event.name)

    events.subscribe(_Other, other)
    asyncio.run(events.publish(_Other("heard")))
    assert heard == ["heard"]
