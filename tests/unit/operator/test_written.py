"""Writes not repeated: a pod's group link is patched once while the operator's copy of
the pod lags the patch (a gated pod's in the patch that releases it), and a gang object
is applied again only when it or its body changed. Each write the memory stops is counted as requests against a recording server."""

from __future__ import annotations

import asyncio
import copy
from typing import Any, cast

from tests.unit.operator.test_cache import fed_cache
from tests.unit.sources.jobset_family import jobset_family
from wlmap.operator.core.gate import GATE
from wlmap.operator.core.settings import POD_LINKS, Settings
from wlmap.operator.core.written import LINK_MEMORY_SECONDS, Written
from wlmap.operator.gangs.cache import has_unlinked_pods
from wlmap.operator.gangs.reconcile import link_pods
from wlmap.operator.gangs.writes import apply
from wlmap.operator.placing.release import release
from wlmap.operator.runtime.state import State
from wlmap.sources.cluster import ApiError, Cluster, Discovery
from wlmap.sources.cluster.discovery import ApiResource

SETTINGS = Settings(target="kai")
KAI_LINK = POD_LINKS["kai"]
assert KAI_LINK is not None
LINK = KAI_LINK.name
GROUP = ApiResource("scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups", "podgroup", True)
DISCOVERY = Discovery((ApiResource("", "v1", "Pod", "pods", "pod", True), GROUP))


class Recorder:
    """A server that records each request and answers a write with a new version."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.bodies: list[Any] = []
        self.version = 100

    async def request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        self.requests.append((method, path))
        self.bodies.append(kwargs.get("body"))
        if method == "GET":
            raise ApiError(f"GET {path}: not found", 404)
        self.version += 1
        return {"metadata": {"resourceVersion": str(self.version)}}

    def writes(self) -> int:
        return sum(method == "PATCH" for method, _ in self.requests)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _link(
    server: Recorder, pods: list[dict[str, Any]], written: Written | None, group: str = "pg-job"
) -> int:
    groups = {p["metadata"]["name"]: group for p in pods}
    cluster = cast(Cluster, server)
    return asyncio.run(link_pods(cluster, DISCOVERY, SETTINGS, pods, groups, written))


def _showing(pod: dict[str, Any], group: str) -> dict[str, Any]:
    shown = copy.deepcopy(pod)
    shown["metadata"].setdefault("annotations", {})[LINK] = group
    return shown


def test_a_link_is_patched_once_while_the_pods_copy_lags_the_patch() -> None:
    stale = jobset_family().pods
    server, clock = Recorder(), Clock()
    written = Written(clock)
    assert _link(server, stale, written) == len(stale)
    assert _link(server, stale, written) == 0  # the copies still lack it: not patched again
    assert server.writes() == len(stale)
    # the lagging copies no longer bring their workload back to be reconciled
    assert not any(has_unlinked_pods(fed_cache(), SETTINGS, p, written) for p in stale)
    assert all(has_unlinked_pods(fed_cache(), SETTINGS, p) for p in stale)
    # once a copy shows the link it is forgotten; a link removed later is written again
    assert _link(server, [_showing(p, "pg-job") for p in stale], written) == 0
    assert written.pending == 0
    assert _link(server, stale[:1], written) == 1
    assert server.writes() == len(stale) + 1


def test_a_link_is_patched_again_when_its_group_changes_or_the_memory_expires() -> None:
    pod = jobset_family().pods[0]
    server, clock = Recorder(), Clock()
    written = Written(clock)
    assert _link(server, [pod], written) == 1
    # a copy showing another group may predate the patch: not patched again
    assert _link(server, [_showing(pod, "pg-old")], written) == 0
    assert _link(server, [pod], written, "pg-new") == 1  # the pod's group changed
    clock.now += LINK_MEMORY_SECONDS + 1  # removed before the watch ever showed it
    assert has_unlinked_pods(fed_cache(), SETTINGS, pod, written)
    assert _link(server, [pod], written) == 1
    written.gone(pod)
    assert written.pending == 0


def test_without_memory_every_lagging_copy_is_patched_again() -> None:
    stale = jobset_family().pods
    server = Recorder()
    _link(server, stale, None)
    _link(server, stale, None)
    assert server.writes() == 2 * len(stale)


def test_a_gated_pod_is_linked_by_the_patch_that_releases_it() -> None:
    gated = copy.deepcopy(jobset_family().pods)
    for pod in gated:
        pod["spec"]["schedulingGates"] = [{"name": GATE}]
    server = Recorder()
    state = State(SETTINGS)
    state.cluster = cast(Cluster, server)
    assert _link(server, gated, state.written) == 0  # nothing schedules them yet
    asyncio.run(release(state, gated, None))
    assert server.writes() == len(gated)  # one patch a pod: gate off, link on
    for body in server.bodies:
        assert body["metadata"]["annotations"] == {LINK: "pg-job"}
        assert body["spec"]["schedulingGates"] is None
    # the copies still lag (gated, unlinked): neither patched again nor brought back
    assert _link(server, gated, state.written) == 0
    assert server.writes() == len(gated)


def _group(min_member: int) -> dict[str, Any]:
    return {
        "apiVersion": GROUP.api_version,
        "kind": "PodGroup",
        "metadata": {"name": "pg-job", "namespace": "team", "labels": {"a": "b"}},
        "spec": {"minMember": min_member},
    }


def test_a_gang_object_is_applied_again_only_when_it_or_its_body_changed() -> None:
    server = Recorder()
    cluster = cast(Cluster, server)
    written = Written()
    path = GROUP.path("team", "pg-job")

    def listed(version: int) -> dict[tuple[str, str], dict[str, Any]]:
        return {("PodGroup", "pg-job"): {"metadata": {"resourceVersion": str(version)}}}

    assert asyncio.run(apply(cluster, DISCOVERY, _group(4), {}, written)) is None
    assert server.requests == [("GET", path), ("PATCH", path)]  # new: its name checked first
    version = server.version
    for _ in range(3):  # listed as the apply left it: nothing sent
        assert asyncio.run(apply(cluster, DISCOVERY, _group(4), listed(version), written)) is None
    assert server.writes() == 1
    # changed by someone else since (a newer version): applied again
    asyncio.run(apply(cluster, DISCOVERY, _group(4), listed(version + 7), written))
    assert server.writes() == 2
    # a new body (the workload scaled): applied again
    asyncio.run(apply(cluster, DISCOVERY, _group(8), listed(server.version), written))
    assert server.writes() == 3
    # without memory, as before: every reconciliation applies
    asyncio.run(apply(cluster, DISCOVERY, _group(8), listed(server.version), None))
    assert server.writes() == 4
