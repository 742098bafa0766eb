"""A cache that follows the served namespaces (picked by a label, known only at run time)
watches each of them on its own and nothing cluster-wide: a namespace's pods are listed
once it is served, dropped once it no longer is, and the whole cluster is never listed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any, cast

from wlmap.sources.cluster import Cluster, Discovery
from wlmap.sources.cluster.cache import ClusterCache
from wlmap.sources.cluster.discovery import ApiResource

PODS = ApiResource("", "v1", "Pod", "pods", "pod", True)


def pod(name: str, namespace: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace, "uid": f"{namespace}/{name}"}}


class Server:
    """Answers a namespace's listing with its pods, and the cluster's with all of them;
    watches stay open and quiet. Every path asked for is recorded."""

    def __init__(self, pods: list[dict[str, Any]]) -> None:
        self.pods = pods
        self.paths: list[str] = []

    async def request(self, method: str, path: str, **_: Any) -> dict[str, Any]:
        self.paths.append(path)
        _root, found, rest = path.partition("/namespaces/")
        namespace = rest.partition("/")[0] if found else None
        items = [dict(o) for o in self.pods if namespace in (None, o["metadata"]["namespace"])]
        return {"items": items, "metadata": {"resourceVersion": "9"}}

    async def lines(self, path: str, params: Mapping[str, Any], **_: Any) -> AsyncIterator[str]:
        self.paths.append(path)
        await asyncio.Event().wait()  # nothing happens
        yield ""  # pragma: no cover - never reached


def names(cache: ClusterCache) -> list[str]:
    return sorted(o["metadata"]["name"] for o in cache.index.of_type("", "Pod", None))


def test_served_namespaces_are_watched_one_by_one_and_dropped_when_no_longer_served() -> None:
    server = Server([pod("a", "team"), pod("b", "team"), pod("c", "elsewhere")])
    served = {"team"}

    async def scenario() -> None:
        cache = ClusterCache(
            cast(Cluster, server),
            Discovery(()),
            [PODS],
            (),
            served=lambda namespace: namespace in served,
            follow=True,
        )
        cache.start()
        await cache.synced(1.0)
        assert names(cache) == [] and server.paths == []  # nothing served: nothing read
        assert not cache.keeps("", "Pod", "team")  # a read would list it live

        cache.namespace_changed("team", True)
        await cache.synced(1.0)
        assert names(cache) == ["a", "b"]
        assert cache.keeps("", "Pod", "team") and not cache.keeps("", "Pod", "elsewhere")
        cache.namespace_changed("team", True)  # told twice: still one watch
        await asyncio.sleep(0.05)
        assert server.paths.count("/api/v1/namespaces/team/pods") == 2  # one list, one watch

        served.discard("team")
        cache.namespace_changed("team", False)
        assert names(cache) == []
        assert not cache.keeps("", "Pod", "team")
        await cache.stop()

    asyncio.run(scenario())
    assert set(server.paths) == {"/api/v1/namespaces/team/pods"}  # never /api/v1/pods


def test_listed_namespaces_keep_their_watches_and_list_again() -> None:
    server = Server([pod("a", "team"), pod("c", "elsewhere")])
    served: set[str] = set()

    async def scenario() -> list[str]:
        cache = ClusterCache(
            cast(Cluster, server),
            Discovery(()),
            [PODS],
            ("team",),
            served=lambda namespace: namespace in served,
        )
        cache.start()
        await cache.synced(1.0)
        assert names(cache) == []  # listed, but not served (its label is missing)
        served.add("team")
        cache.namespace_changed("team", True)
        await cache.synced(1.0)
        await cache.stop()
        return names(cache)

    assert asyncio.run(scenario()) == ["a"]
    assert set(server.paths) == {"/api/v1/namespaces/team/pods"}
