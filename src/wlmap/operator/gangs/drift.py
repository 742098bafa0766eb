"""Keeping gang objects as they should be after someone else touched them.

The operator watches the gang objects of its target that carry ``wlmap.dev/workload-uid``:
through kopf, or, with cached reads, through the gang cache's own watches (one watch per
kind either way; see ``gang_cache``). A group deleted, or changed by another writer, has
its workload reconciled again (which restores it). A group whose workload no longer exists
(deleted while the operator was not running, on a cluster without a garbage collector) is
an orphan and is deleted; that check runs on the initial listing, i.e. at every start,
on taking the lease, and after a watch was interrupted and periodically (``sweeps``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from wlmap.errors import ClusterError
from wlmap.operator.core.events import ReconcileWanted
from wlmap.operator.core.reports import log_name
from wlmap.operator.core.settings import FIELD_MANAGER, GANG_KINDS, WORKLOAD_UID_LABEL
from wlmap.operator.core.shared import Shared
from wlmap.operator.core.work import submit
from wlmap.operator.gangs.cache import OperatorCache
from wlmap.sources.cluster import ApiError, list_objects
from wlmap.sources.cluster.informer import ChangeListener
from wlmap.sources.inventory import controller_reference

log = logging.getLogger("wlmap.operator")


def changed_by_others(obj: Mapping[str, Any]) -> bool:
    """Whether a writer other than the operator holds fields of the object (outside its
    status, which the scheduler writes)."""
    for entry in (obj.get("metadata") or {}).get("managedFields") or ():
        if entry.get("manager") != FIELD_MANAGER and not entry.get("subresource"):
            return True
    return False


def gang_handler(state: Shared) -> Callable[..., Awaitable[None]]:
    """The handler of the target's gang objects."""

    async def on_gang(event: Mapping[str, Any], **_: Any) -> None:
        obj = dict(event.get("object") or {})
        kind = event.get("type")  # None: listed when the watch starts
        if not state.serves_namespace((obj.get("metadata") or {}).get("namespace")):
            return
        if kind in ("ADDED", "MODIFIED") and not changed_by_others(obj):
            return  # the operator's own write
        await check(state, obj, kind)

    return on_gang


def gang_listener(state: Shared) -> ChangeListener:
    """What the gang cache tells of its objects' changes: a deletion, or a change by
    another writer, queues the same check as kopf's events do. A deleted object is
    forgotten as written first: its workload's reconciliation must apply it again."""

    def on_change(event_type: str, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        if not state.serves_namespace(meta.get("namespace")):
            return
        if event_type == "DELETED":
            assert state.discovery is not None
            resource = state.discovery.serving(str(obj.get("apiVersion")), str(obj.get("kind")))
            if resource is not None:
                state.written.deleted(resource.path(meta.get("namespace"), meta.get("name")))
        elif not changed_by_others(obj):
            return  # the operator's own write
        state.spawn(check(state, obj, event_type))

    return on_change


async def check(state: Shared, obj: Mapping[str, Any], kind: str | None) -> None:
    """Queue the check of one gang object under its workload's key: ``kind`` None for a
    listing (orphans are deleted), DELETED or a change by another writer."""
    meta = obj.get("metadata") or {}
    where = log_name(obj)

    async def step() -> None:
        owner = await _workload_of(state, obj)
        if owner is None:
            if kind is None:  # an orphan, left while the operator was not running
                await _delete(state, obj)
            return
        if (owner.get("metadata") or {}).get("deletionTimestamp") or not state.serves(owner):
            return
        if kind is None and not changed_by_others(obj):
            return  # as written: the workload's own event reconciles it
        why = "deleted" if kind == "DELETED" else "changed by another writer"
        log.info("gang object %s, reconciling its workload", why, extra={"group": where})
        await state.events.publish(ReconcileWanted(owner))

    await submit(state, str((meta.get("labels") or {}).get(WORKLOAD_UID_LABEL)), step)


async def sweep(state: Shared) -> None:
    """Check every gang object of the target in the served namespaces, as at start (a new
    leader does this: while it followed, orphans were left to the leader; with the gang
    cache, the operator does it at start too). From the gang cache when kept."""
    assert state.cluster is not None and state.discovery is not None
    gangs = state.cache.gangs if isinstance(state.cache, OperatorCache) else None
    if gangs is not None:
        try:
            await gangs.synced()
        except ClusterError as exc:  # reconciliations wait for the listing on their own
            log.warning("gang objects not checked for orphans: %s", exc)
            return
        for obj in list(gangs.objects()):
            if state.serves_namespace((obj.get("metadata") or {}).get("namespace")):
                state.spawn(check(state, obj, None))
        return
    where = tuple(state.settings.scope.namespaces) or (None,)
    for api_version, kind in GANG_KINDS[state.settings.target]:
        resource = state.discovery.serving(api_version, kind)
        for namespace in where if resource is not None else ():
            assert resource is not None
            for obj in await list_objects(state.cluster, resource, namespace, WORKLOAD_UID_LABEL):
                if state.serves_namespace((obj.get("metadata") or {}).get("namespace")):
                    state.spawn(check(state, obj, None))


async def _workload_of(state: Shared, obj: Mapping[str, Any]) -> dict[str, Any] | None:
    """The workload a gang object belongs to (its controller owner, with the uid of its
    label), or None when that workload is gone."""
    assert state.cluster is not None and state.discovery is not None
    meta = obj.get("metadata") or {}
    owner = controller_reference(obj)
    uid = (meta.get("labels") or {}).get(WORKLOAD_UID_LABEL)
    if owner is None or owner.get("uid") != uid:
        return None
    resource = state.discovery.serving(str(owner.get("apiVersion")), str(owner.get("kind")))
    if resource is None:
        return None
    try:
        found = await state.cluster.request(
            "GET", resource.path(meta.get("namespace"), str(owner.get("name")))
        )
    except ApiError as exc:
        if exc.code == 404:
            return None
        raise
    return found if (found.get("metadata") or {}).get("uid") == uid else None


async def _delete(state: Shared, obj: Mapping[str, Any]) -> None:
    assert state.cluster is not None and state.discovery is not None
    meta = obj.get("metadata") or {}
    resource = state.discovery.serving(str(obj.get("apiVersion")), str(obj.get("kind")))
    if resource is None:
        return
    log.info(
        "orphan gang object deleted",
        extra={"group": log_name(obj)},
    )
    try:
        await state.cluster.request("DELETE", resource.path(meta.get("namespace"), meta["name"]))
    except ApiError as exc:
        if exc.code != 404:
            raise
