"""The operator's gang objects read from its watch-fed cache: a workload's own objects
found without a listing, and the writes still right while the cache lags the operator's
last apply (nothing applied twice, no name taken over, nothing stale left behind).
Requests are counted against a small in-memory server."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any, cast

from wlmap.operator.core.settings import WORKLOAD_UID_LABEL, Settings
from wlmap.operator.core.written import Written
from wlmap.operator.gangs.gang_cache import GangCache
from wlmap.operator.gangs.writes import apply, delete_unwanted, owned_objects, with_unseen
from wlmap.sources.cluster import ApiError, Cluster, Discovery
from wlmap.sources.cluster.discovery import ApiResource

GROUP = ApiResource("scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups", "podgroup", True)
DISCOVERY = Discovery((GROUP,))
KINDS = {(GROUP.api_version, "PodGroup")}


class Server:
    """Objects by path: GET, server-side apply (creates or replaces), DELETE."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str]] = []
        self.version = 100

    async def request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        self.requests.append((method, path))
        if method == "GET" and path in self.objects:
            return copy.deepcopy(self.objects[path])
        if method == "PATCH":
            self.version += 1
            obj = json.loads(kwargs["body"])
            obj["metadata"]["resourceVersion"] = str(self.version)
            self.objects[path] = obj
            return copy.deepcopy(obj)
        if method == "DELETE" and self.objects.pop(path, None) is not None:
            return {}
        raise ApiError(f"{method} {path}: not found", 404)

    def sent(self, method: str) -> int:
        return sum(m == method for m, _ in self.requests)


def group(name: str, uid: str, min_member: int = 4) -> dict[str, Any]:
    return {
        "apiVersion": GROUP.api_version,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "team", "labels": {WORKLOAD_UID_LABEL: uid}},
        "spec": {"minMember": min_member},
    }


def gang_cache(server: Server) -> GangCache:
    """A cache over the team namespace, listed (as if) and fed by hand: no watch runs."""
    cache = GangCache(
        cast(Cluster, server), DISCOVERY, Settings(target="kai", namespaces=("team",))
    )
    for informer in cache.informers.all:
        informer.synced.set()
    return cache


def shown(cache: GangCache, server: Server) -> None:
    """The watch catches up: the cache holds what the server holds."""
    for path, obj in server.objects.items():
        held = copy.deepcopy(obj)
        held["metadata"]["uid"] = "uid-of-" + path
        cache.index.put(held)


def owned(cache: GangCache, server: Server, uid: str) -> dict[tuple[str, str], dict[str, Any]]:
    return asyncio.run(owned_objects(cast(Cluster, server), DISCOVERY, KINDS, "team", uid, cache))


def test_a_workloads_own_objects_come_from_the_cache_without_a_listing() -> None:
    server = Server()
    cache = gang_cache(server)
    for item in (group("pg-a", "a"), group("pg-b", "b")):
        asyncio.run(apply(cast(Cluster, server), DISCOVERY, item, {}))
    shown(cache, server)
    server.requests.clear()
    assert set(owned(cache, server, "a")) == {("PodGroup", "pg-a")}
    assert owned(cache, server, "c") == {}
    assert server.requests == []  # no LIST, no GET
    # without the cache, the same answer from a listing
    listed = asyncio.run(
        owned_objects(cast(Cluster, _Lister(server)), DISCOVERY, KINDS, "team", "a")
    )
    assert set(listed) == {("PodGroup", "pg-a")}


def test_an_object_applied_and_not_in_the_cache_yet_is_not_applied_again() -> None:
    server, written = Server(), Written()
    cache = gang_cache(server)
    cluster = cast(Cluster, server)
    asyncio.run(apply(cluster, DISCOVERY, group("pg-a", "a"), owned(cache, server, "a"), written))
    assert server.sent("PATCH") == 1
    # the watch has not delivered it: looked up by name, found as written, left alone
    assert (
        asyncio.run(
            apply(cluster, DISCOVERY, group("pg-a", "a"), owned(cache, server, "a"), written)
        )
        is None
    )
    assert server.sent("PATCH") == 1
    assert len(server.objects) == 1
    shown(cache, server)
    server.requests.clear()
    asyncio.run(apply(cluster, DISCOVERY, group("pg-a", "a"), owned(cache, server, "a"), written))
    assert server.requests == []  # in the cache as written: nothing sent at all


def test_a_name_taken_is_refused_while_the_cache_lags() -> None:
    server, written = Server(), Written()
    cache = gang_cache(server)
    cluster = cast(Cluster, server)
    # another workload's group, written a moment ago and not in the cache yet
    asyncio.run(apply(cluster, DISCOVERY, group("pg-shared", "other"), {}, written))
    refusal = asyncio.run(
        apply(cluster, DISCOVERY, group("pg-shared", "a"), owned(cache, server, "a"), written)
    )
    assert refusal is not None and refusal.reason == "NameTaken"
    assert server.objects[GROUP.path("team", "pg-shared")]["metadata"]["labels"] == {
        WORKLOAD_UID_LABEL: "other"
    }


def test_an_object_no_longer_wanted_is_deleted_though_the_cache_never_showed_it() -> None:
    server, written = Server(), Written()
    cache = gang_cache(server)
    cluster = cast(Cluster, server)
    for name in ("pg-a-0", "pg-a-1"):
        asyncio.run(apply(cluster, DISCOVERY, group(name, "a"), owned(cache, server, "a"), written))
    # the workload shrank to one group before the watch delivered either
    keep = [group("pg-a-0", "a")]
    mine = owned(cache, server, "a")
    assert mine == {}
    assert asyncio.run(delete_unwanted(cluster, DISCOVERY, mine, keep, written)) == 0  # blind
    deleted = asyncio.run(
        delete_unwanted(cluster, DISCOVERY, with_unseen(mine, written, "a"), keep, written)
    )
    assert deleted == 1
    assert list(server.objects) == [GROUP.path("team", "pg-a-0")]
    # once deleted, it is no longer among the unseen: another workload's are never there
    assert set(with_unseen({}, written, "a")) == {("PodGroup", "pg-a-0")}
    assert with_unseen({}, written, "b") == {}


class _Lister(Server):
    """The server above, answering a label-selected listing of the collection."""

    def __init__(self, inner: Server) -> None:
        super().__init__()
        self.objects = inner.objects

    async def request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        if method == "GET" and path == GROUP.path("team"):
            key, _, value = str((kwargs.get("params") or {}).get("labelSelector")).partition("=")
            items = [o for o in self.objects.values() if o["metadata"]["labels"].get(key) == value]
            return {"items": copy.deepcopy(items), "metadata": {}}
        return await super().request(method, path, **kwargs)
