"""Writing one workload's gang objects: server-side apply without adopting what is not
ours, and deleting the workload's objects that are no longer wanted.

An object is the workload's when it carries the workload's uid in ``wlmap.dev/workload-uid``.
A name derived from the workload that is already taken by anything else (another
workload's group, an object someone made by hand) is reported and left alone: applying
with ``force`` would take it over.

The objects a workload owns come from the gang cache when the operator keeps one (see
``gang_cache``), else from a listing. The cache can lag the operator's last write: an
object not in it is looked up by name before it is applied (so a name taken is still
refused, and an object of ours already as written is not applied again), and the objects
applied and not deleted since (``Written``) are among those a workload may no longer want.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from wlmap.operator.core.reports import Refusal
from wlmap.operator.core.settings import FIELD_MANAGER, WORKLOAD_UID_LABEL
from wlmap.operator.core.written import Written, body_of
from wlmap.operator.gangs.gang_cache import GangCache
from wlmap.sources.cluster import ApiError, Cluster, Discovery
from wlmap.sources.cluster.connection import APPLY_PATCH
from wlmap.sources.cluster.listing import list_objects

Owned = dict[tuple[str, str], dict[str, Any]]  # (kind, name) -> object
# The one kind whose spec the API declares immutable; a change is applied by replacing it.
REPLACEABLE_KINDS = frozenset({"Workload"})


async def owned_objects(
    cluster: Cluster,
    discovery: Discovery,
    kinds: Iterable[tuple[str, str]],
    namespace: str | None,
    uid: str,
    gangs: GangCache | None = None,
) -> Owned:
    """The objects of these kinds labelled with the workload's uid: from ``gangs`` for the
    kinds it keeps, listed for the others.

    Raises:
        ClusterError: the server failed, or the gang cache was not listed in time.
    """
    found: Owned = {}
    for api_version, kind in sorted(set(kinds)):
        resource = discovery.serving(api_version, kind)
        if resource is None:
            continue
        if gangs is not None and gangs.keeps(api_version, kind, namespace):
            await gangs.synced()
            objects = gangs.owned(api_version, kind, namespace, uid)
        else:
            selector = f"{WORKLOAD_UID_LABEL}={uid}"
            objects = await list_objects(cluster, resource, namespace, selector)
        for obj in objects:
            found[(kind, obj["metadata"]["name"])] = obj
    return found


def with_unseen(owned: Owned, written: Written, uid: str) -> Owned:
    """``owned`` and the workload's objects applied and not shown in it yet: a cache
    behind the last write must not keep an object no longer wanted from being deleted
    (one deleted meanwhile is answered 404, which is taken as done)."""
    found = dict(owned)
    for stub in written.applied_objects(uid):
        found.setdefault((str(stub["kind"]), str(stub["metadata"]["name"])), stub)
    return found


async def apply(
    cluster: Cluster,
    discovery: Discovery,
    item: Mapping[str, Any],
    owned: Owned,
    written: Written | None = None,
) -> Refusal | None:
    """Apply one gang object; a Refusal when its name is taken or the server refuses it.
    With ``written``, an object listed as this same body left it is not applied again.

    Raises:
        ApiError, ClusterError: the server failed (retried by the caller).
    """
    kind = str(item.get("kind"))
    resource = discovery.serving(str(item.get("apiVersion", "")), kind)
    if resource is None:
        raise ApiError(f"the cluster does not serve {kind} ({item.get('apiVersion')})", 404)
    meta = item["metadata"]
    path = resource.path(meta.get("namespace"), meta["name"])
    body = body_of(item)
    if written is not None and not written.needs_apply(path, body, owned.get((kind, meta["name"]))):
        return None
    if (kind, meta["name"]) not in owned:
        existing = await _existing(cluster, path)
        holder = None if existing is None else _holder(existing, meta)
        if holder is not None:
            return Refusal(
                "NameTaken",
                f"{kind} {meta['name']} already exists and belongs to {holder}; "
                "it is left alone and this workload has no such group",
            )
        if (
            existing is not None
            and written is not None
            and not written.needs_apply(path, body, existing)
        ):
            return None  # ours as written, not in the gang cache yet
    params = {"fieldManager": FIELD_MANAGER, "force": "true"}
    try:
        answer = await cluster.request(
            "PATCH", path, params=params, body=body, content_type=APPLY_PATCH
        )
    except ApiError as exc:
        if written is not None:
            written.deleted(path)
        if exc.code != 422:
            raise
        if kind in REPLACEABLE_KINDS and "immutable" in str(exc).lower():
            await cluster.request("DELETE", path)
            await cluster.request("PATCH", path, params=params, body=body, content_type=APPLY_PATCH)
            return None
        return Refusal("ApplyRefused", f"{kind} {meta['name']} refused by the server: {exc}")
    if written is not None:
        written.applied(path, body, answer)
    return None


async def delete_unwanted(
    cluster: Cluster,
    discovery: Discovery,
    owned: Owned,
    keep: Iterable[Mapping[str, Any]],
    written: Written | None = None,
) -> int:
    """Delete the workload's objects that are not among ``keep`` (a gang key gone, a
    smaller spec, or a name from an older naming scheme)."""
    wanted = {(str(o["kind"]), str(o["metadata"]["name"])) for o in keep}
    deleted = 0
    for (kind, name), obj in sorted(owned.items()):
        if (kind, name) in wanted:
            continue
        resource = discovery.serving(str(obj.get("apiVersion", "")), kind)
        if resource is None:
            continue
        path = resource.path(obj["metadata"].get("namespace"), name)
        if written is not None:
            written.deleted(path)
        try:
            await cluster.request("DELETE", path)
            deleted += 1
        except ApiError as exc:
            if exc.code != 404:
                raise
    return deleted


async def _existing(cluster: Cluster, path: str) -> dict[str, Any] | None:
    """The object at ``path``, None when there is none."""
    try:
        found: dict[str, Any] = await cluster.request("GET", path)
    except ApiError as exc:
        if exc.code == 404:
            return None
        raise
    return found


def _holder(existing: Mapping[str, Any], meta: Mapping[str, Any]) -> str | None:
    """Who holds an existing object of this name, when it is not this workload's."""
    ours = str((meta.get("labels") or {}).get(WORKLOAD_UID_LABEL))
    labels = (existing.get("metadata") or {}).get("labels") or {}
    if labels.get(WORKLOAD_UID_LABEL) == ours:
        return None  # ours, written since the listing
    if other := labels.get(WORKLOAD_UID_LABEL):
        return f"the workload with uid {other}"
    owners = [
        f"{o.get('kind')} {o.get('name')}"
        for o in (existing.get("metadata") or {}).get("ownerReferences") or []
    ]
    return ", ".join(owners) if owners else "no workload wlmap keeps (made by someone else)"
