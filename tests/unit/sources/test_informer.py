"""Keeping one type by list and watch against a small in-memory server: a server that is
starting (503) or away is retried within a second, not after the refusal's minute; only
the objects asked for are kept, and only the part of each asked for."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, cast

import pytest

from wlmap.errors import ClusterError
from wlmap.sources.cluster import ApiError, Cluster
from wlmap.sources.cluster.discovery import ApiResource
from wlmap.sources.cluster.informer import (
    REFUSED_RETRY_SECONDS,
    RETRY_CAP_SECONDS,
    Informer,
    Informers,
    retry_delay,
)
from wlmap.sources.cluster.object_index import ObjectIndex

PODS = ApiResource("", "v1", "Pod", "pods", "pod", True)


def pod(name: str, namespace: str, version: str = "1") -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{name}",
            "resourceVersion": version,
            "managedFields": [{"manager": "kubectl"}],
        },
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x" * 500}]},
    }


class Server:
    """Answers listings with ``objects``; each failure in ``failures`` is raised by one
    request first. Watches stream ``events`` and then stay open."""

    def __init__(self, objects: list[dict[str, Any]], failures: list[Exception]) -> None:
        self.objects = objects
        self.failures = failures
        self.events: asyncio.Queue[str] = asyncio.Queue()
        self.listings = 0
        self.closes = 0  # watches the server ends at once (it is shutting down)

    async def request(self, method: str, path: str, **_: Any) -> dict[str, Any]:
        if self.failures:
            raise self.failures.pop(0)
        self.listings += 1
        return {"items": [dict(o) for o in self.objects], "metadata": {"resourceVersion": "9"}}

    async def lines(self, path: str, params: Mapping[str, Any], **_: Any) -> AsyncIterator[str]:
        if self.closes:
            self.closes -= 1
            return
        while True:
            yield await self.events.get()


async def informed(
    server: Server,
    check: Callable[[Informer, ObjectIndex], bool],
    seconds: float,
    **options: Any,
) -> tuple[Informer, ObjectIndex, bool]:
    """Run an informer until ``check`` holds or ``seconds`` pass: whether it held."""
    index = ObjectIndex()
    informer = Informer(cast(Cluster, server), PODS, None, index, **options)
    informers = Informers([informer])
    informers.start()
    held = False
    try:
        for _ in range(int(seconds / 0.02)):
            await asyncio.sleep(0.02)
            if check(informer, index):
                held = True
                break
    finally:
        await informers.stop()
    return informer, index, held


@pytest.mark.parametrize(
    "failure",
    [
        ApiError("the server is currently unable to handle the request", 503),
        ApiError("too many requests", 429),
        ClusterError("GET /api/v1/pods: timed out"),
    ],
    ids=["503", "429", "timeout"],
)
def test_a_server_that_is_starting_or_away_is_retried_within_a_second(
    failure: Exception,
) -> None:
    server = Server([pod("a", "team")], [failure, failure])
    interruptions: list[bool] = []

    informer, _, held = asyncio.run(
        informed(
            server,
            lambda informer, index: len(index) == 1,
            2.0,
            interrupted=lambda: interruptions.append(True),
        )
    )

    assert held, "not listed within 2 s of two transient failures"
    assert not informer.refused
    assert interruptions == [True, True]


def test_a_watch_the_server_closes_early_is_resumed_and_reported() -> None:
    server = Server([pod("a", "team")], [])
    server.closes = 1
    interruptions: list[bool] = []

    _, _, held = asyncio.run(
        informed(
            server,
            lambda informer, index: bool(interruptions),
            1.0,
            interrupted=lambda: interruptions.append(True),
        )
    )

    assert held and interruptions == [True]
    assert server.listings == 1  # resumed from its version, not listed again


def test_a_refusal_waits_and_readers_go_on_without_the_type() -> None:
    server = Server([pod("a", "team")], [ApiError("pods is forbidden", 403)])

    informer, _, held = asyncio.run(informed(server, lambda informer, index: len(index) > 0, 0.5))

    assert not held and server.listings == 0  # not asked again within the half second
    assert informer.refused and informer.synced.is_set()
    assert REFUSED_RETRY_SECONDS >= 30


def test_the_retry_delay_doubles_up_to_its_cap_with_jitter() -> None:
    ceilings = [max(retry_delay(n) for _ in range(200)) for n in range(1, 12)]
    assert ceilings[0] <= 0.25
    assert ceilings[2] > ceilings[0] * 2
    assert max(ceilings) <= RETRY_CAP_SECONDS
    assert ceilings[-1] > RETRY_CAP_SECONDS / 2
    assert len({round(retry_delay(5), 6) for _ in range(20)}) > 1  # jittered


def test_only_the_objects_asked_for_are_kept() -> None:
    served = {"team"}
    server = Server([pod("a", "team"), pod("b", "elsewhere"), pod("c", "elsewhere")], [])
    changes: list[tuple[str, str]] = []

    async def scenario() -> ObjectIndex:
        index = ObjectIndex()
        informer = Informer(
            cast(Cluster, server),
            PODS,
            None,
            index,
            lambda kind, obj: changes.append((kind, obj["metadata"]["name"])),
            keep=lambda obj: obj["metadata"]["namespace"] in served,
        )
        informers = Informers([informer])
        informers.start()
        await informer.synced.wait()
        for name, namespace in (("d", "elsewhere"), ("e", "team")):
            event = {"type": "ADDED", "object": pod(name, namespace, "10")}
            server.events.put_nowait(json.dumps(event))
        await asyncio.sleep(0.05)
        await informers.stop()
        return index

    index = asyncio.run(scenario())

    assert sorted(o["metadata"]["name"] for o in index.of_type("", "Pod", None)) == ["a", "e"]
    assert changes == [("ADDED", "a"), ("ADDED", "e")]


def test_a_projection_is_what_is_kept() -> None:
    server = Server([pod("a", "team")], [])

    def project(obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "spec": {"nodeName": obj["spec"]["nodeName"]}}

    _, index, held = asyncio.run(
        informed(server, lambda informer, index: len(index) == 1, 1.0, project=project)
    )

    assert held
    (kept,) = index.of_type("", "Pod", "team")
    assert kept["spec"] == {"nodeName": "n1"}
    assert "managedFields" not in kept["metadata"]
    assert len(json.dumps(kept)) * 3 < len(json.dumps(pod("a", "team")))


def test_a_relist_lists_again_and_readers_wait_for_it() -> None:
    served = {"team"}
    server = Server([pod("a", "team"), pod("b", "elsewhere")], [])

    async def scenario() -> list[str]:
        index = ObjectIndex()
        informer = Informer(
            cast(Cluster, server),
            PODS,
            None,
            index,
            keep=lambda obj: obj["metadata"]["namespace"] in served,
        )
        informers = Informers([informer])
        informers.start()
        await informer.synced.wait()
        served.add("elsewhere")
        informers.relist(lambda i: True)
        assert not informer.synced.is_set()
        await asyncio.wait_for(informer.synced.wait(), 1.0)
        await informers.stop()
        return sorted(o["metadata"]["name"] for o in index.of_type("", "Pod", None))

    assert asyncio.run(scenario()) == ["a", "b"]
    assert server.listings == 2
