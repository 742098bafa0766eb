"""Bringing the cluster to the desired state of one workload, idempotently.

Group objects are written with server-side apply under one field manager (so a repeated
or concurrent apply never conflicts and never creates a second object: names are derived
from the workload), stale groups of the workload are deleted, and pods get the link
annotation their scheduler reads. Every step can be repeated after a crash or restart.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.operator.groups import desired_state
from wlmap.operator.settings import FIELD_MANAGER, GANG_KINDS, WORKLOAD_UID_LABEL, Settings
from wlmap.operator.store import DefinitionStore
from wlmap.sources.cluster import (
    ApiError,
    Cluster,
    Discovery,
    Scope,
    Snapshot,
    read_snapshot,
)
from wlmap.sources.cluster.cache import ClusterCache
from wlmap.sources.cluster.connection import APPLY_PATCH, MERGE_PATCH
from wlmap.sources.cluster.listing import list_objects
from wlmap.sources.workloads import WorkloadReader

log = logging.getLogger("wlmap.operator")


@dataclass(frozen=True)
class Outcome:
    """What one reconciliation did."""

    applied: int
    deleted: int
    pods_linked: int


async def reconcile(
    cluster: Cluster,
    discovery: Discovery,
    store: DefinitionStore,
    settings: Settings,
    obj: Mapping[str, Any],
    cache: ClusterCache | None = None,
) -> Outcome | None:
    """Apply the gang objects of one workload; None when no definition covers it or it is
    gone. Its pods, claims and owners come from ``cache`` when given, else from the server.
    Raises ClusterError (retried by the caller) when the server fails."""
    entry = store.registry.find(str(obj.get("apiVersion")), str(obj.get("kind")))
    resource = discovery.serving(str(obj.get("apiVersion", "")), str(obj.get("kind")))
    if entry is None or resource is None:
        return None
    meta = obj.get("metadata") or {}
    snapshot: Snapshot
    if cache is not None:
        snapshot = await cache.read(obj, store.registry, discovery)
    else:
        scope = Scope((resource,), meta.get("namespace"), name=str(meta.get("name")))
        snapshot = await read_snapshot(cluster, discovery, store.registry, scope)
    current = snapshot.manifests[0].obj
    if (current.get("metadata") or {}).get("uid") != meta.get("uid"):
        return None  # replaced by a new object of the same name: its own event follows
    reader = WorkloadReader(store.registry, snapshot.manifests, pods_listed=snapshot.pods_listed)
    pods = reader.inventory.pods_of(current)
    # no pods yet: gangs keyed by pod labels fall back to one gang per unit of the spec
    view = reader.view(entry, current, unknown_without_pods=True)
    desired = desired_state(settings, view, current)
    applied = 0
    for item in desired.objects:
        await _apply(cluster, discovery, item)
        applied += 1
    deleted = await _delete_stale(cluster, discovery, settings, current, desired.objects)
    linked = await _link_pods(cluster, discovery, settings, pods or [], desired.pod_groups)
    return Outcome(applied, deleted, linked)


async def forget(
    cluster: Cluster, discovery: Discovery, settings: Settings, obj: Mapping[str, Any]
) -> int:
    """Delete the gang objects of a deleted workload (the garbage collector does the same
    through owner references on clusters that run it)."""
    return await _delete_stale(cluster, discovery, settings, obj, [])


async def _apply(cluster: Cluster, discovery: Discovery, item: Mapping[str, Any]) -> None:
    resource = discovery.serving(str(item.get("apiVersion", "")), str(item.get("kind")))
    if resource is None:
        raise ApiError(
            f"the cluster does not serve {item.get('kind')} ({item.get('apiVersion')})", 404
        )
    meta = item["metadata"]
    path = resource.path(meta.get("namespace"), meta["name"])
    params = {"fieldManager": FIELD_MANAGER, "force": "true"}
    try:
        await cluster.request(
            "PATCH", path, params=params, body=json.dumps(item), content_type=APPLY_PATCH
        )
    except ApiError as exc:
        if exc.code != 422:
            raise
        # an immutable spec (the upstream Workload's) changed: replace the object
        await cluster.request("DELETE", path)
        await cluster.request(
            "PATCH", path, params=params, body=json.dumps(item), content_type=APPLY_PATCH
        )


async def _delete_stale(
    cluster: Cluster,
    discovery: Discovery,
    settings: Settings,
    workload: Mapping[str, Any],
    keep: list[dict[str, Any]],
) -> int:
    meta = workload.get("metadata") or {}
    wanted = {(o["kind"], o["metadata"]["name"]) for o in keep}
    kinds = {(str(o["apiVersion"]), str(o["kind"])) for o in keep} or _target_kinds(settings)
    deleted = 0
    for api_version, kind in sorted(kinds):
        resource = discovery.serving(api_version, kind)
        if resource is None:
            continue
        selector = f"{WORKLOAD_UID_LABEL}={meta.get('uid')}"
        for found in await list_objects(cluster, resource, meta.get("namespace"), selector):
            name = found["metadata"]["name"]
            if (kind, name) not in wanted:
                try:
                    await cluster.request("DELETE", resource.path(meta.get("namespace"), name))
                    deleted += 1
                except ApiError as exc:
                    if exc.code != 404:
                        raise
    return deleted


def _target_kinds(settings: Settings) -> set[tuple[str, str]]:
    return set(GANG_KINDS[settings.target])


async def _link_pods(
    cluster: Cluster,
    discovery: Discovery,
    settings: Settings,
    pods: list[dict[str, Any]],
    groups: Mapping[str, str],
) -> int:
    annotation = settings.pod_link
    resource = discovery.find("", "Pod")
    if annotation is None or resource is None:
        return 0
    linked = 0
    for pod in pods:
        meta = pod.get("metadata") or {}
        group = groups.get(str(meta.get("name")))
        if group is None or (meta.get("annotations") or {}).get(annotation) == group:
            continue
        patch = {"metadata": {"annotations": {annotation: group}}}
        try:
            await cluster.request(
                "PATCH",
                resource.path(meta.get("namespace"), meta["name"]),
                body=patch,
                content_type=MERGE_PATCH,
            )
            linked += 1
        except ApiError as exc:
            if exc.code != 404:
                raise
    return linked
