"""Bringing the cluster to the desired state of one workload, idempotently.

Group objects are written with server-side apply under one field manager (so a repeated
or concurrent apply never conflicts and never creates a second object: names are derived
from the workload's kind, name and uid), stale groups of the workload are deleted, and pods
get the link annotation their scheduler reads. Every step can be repeated after a crash or
restart. A workload whose gang inputs failed to evaluate, or with a gang too large for any
cluster, gets nothing written or deleted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.registry import Entry
from wlmap.definitions.trust import is_trusted
from wlmap.operator.core.budgets import Quarantine
from wlmap.operator.core.evaluations import Evaluations
from wlmap.operator.core.gate import is_gated
from wlmap.operator.core.queue import WorkQueue
from wlmap.operator.core.reports import Refusal
from wlmap.operator.core.settings import GANG_KINDS, Settings
from wlmap.operator.core.store import DefinitionStore
from wlmap.operator.core.written import Written
from wlmap.operator.gangs.cache import OperatorCache
from wlmap.operator.gangs.groups import Desired, desired_state
from wlmap.operator.gangs.writes import apply, delete_unwanted, owned_objects, with_unseen
from wlmap.schedulers import GangRefusal, gang_refusal
from wlmap.sources.cluster import (
    ApiError,
    Cluster,
    Discovery,
    Scope,
    Snapshot,
    read_snapshot,
)
from wlmap.sources.cluster.cache import ClusterCache
from wlmap.sources.cluster.connection import MERGE_PATCH
from wlmap.sources.workloads import WorkloadReader
from wlmap.workload import WorkloadView

log = logging.getLogger("wlmap.operator")


@dataclass(frozen=True)
class Outcome:
    """What one reconciliation did, and what it refused to do.

    Attributes:
        origin: the definition that described the workload.
        evaluation_failure: why the gang inputs cannot be trusted (nothing was written),
            or None when the workload evaluated cleanly.
        refusals: what to tell the user (evaluation failures, names taken, refusals).
        waiting_for: references the workload names whose objects do not exist yet (a
            TrainJob created before its runtime): nothing else announces their arrival,
            so the caller looks again later.
        quarantine: the definition is quarantined (over its budget or failing in a
            row): the workload was not evaluated, and is looked at again after the wait.
    """

    applied: int
    deleted: int
    pods_linked: int
    origin: str = ""
    evaluation_failure: str | None = None
    refusals: tuple[Refusal, ...] = ()
    waiting_for: tuple[str, ...] = ()
    quarantine: Quarantine | None = None


@dataclass(frozen=True)
class Interpreted:
    """A workload's view (it evaluated cleanly) and its pods, as one reconciliation read."""

    view: WorkloadView
    pods: tuple[dict[str, Any], ...]


async def reconcile(
    cluster: Cluster,
    discovery: Discovery,
    store: DefinitionStore,
    settings: Settings,
    obj: Mapping[str, Any],
    cache: ClusterCache | None = None,
    seen: list[Interpreted] | None = None,
    written: Written | None = None,
    evaluations: Evaluations | None = None,
    queue: WorkQueue | None = None,
) -> Outcome | None:
    """Apply the gang objects of one workload; None when no definition covers it or it is
    gone. Its pods, claims and owners come from ``cache`` when given, else from the server;
    so do its gang objects when the cache keeps them.
    The view of a workload that evaluated cleanly, and its pods, are appended to ``seen``
    before anything is written (the placement controller plans from them even when the
    writes fail). With ``written``, what an earlier reconciliation wrote and the cluster's
    copies already show, or do not show yet, is not written again. With ``evaluations``,
    an untrusted definition is evaluated in its own lane and budget (the step gives its
    slot of ``queue`` to others while it waits), and a quarantined one not at all.
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
    # in a thread: a slow (even hostile) definition must not stall the other workloads
    if evaluations is None:
        view, desired = await asyncio.to_thread(interpreted, settings, reader, entry, current)
    else:
        # the generation in use names the definition: the store parses its object again
        # on every event of it (the operator's own status writes among them)
        generation = store.generation_in_use(entry.origin)
        done = await evaluations.run(
            entry.origin,
            entry.definition if generation is None else generation,
            is_trusted(entry.definition),
            lambda: interpreted(settings, reader, entry, current),
            lambda result: isinstance(result[1], GangRefusal) and result[1].evaluation_failed,
            queue,
        )
        if done.value is None:
            return _skipped(entry, done.quarantine)
        view, desired = done.value
    quarantine = evaluations.budgets.quarantined(entry.origin) if evaluations else None
    if not isinstance(desired, Desired):
        # a gang from failed inputs has the wrong minimum, and one too large can never
        # run: keep what is there, write nothing
        waiting = view.missing_references
        if desired.evaluation_failed:
            failure = f"definition {entry.origin}: {desired.message}"
            refusal = Refusal(desired.reason, f"gang objects not written: {failure}")
            return Outcome(0, 0, 0, entry.origin, failure, (refusal,), waiting, quarantine)
        refusal = Refusal(desired.reason, f"gang objects not written: {desired.message}")
        return Outcome(0, 0, 0, entry.origin, None, (refusal,), waiting, quarantine)
    if seen is not None:
        seen.append(Interpreted(view, tuple(pods or ())))
    uid = str(meta.get("uid"))
    kinds = {(str(o["apiVersion"]), str(o["kind"])) for o in desired.objects}
    gangs = cache.gangs if isinstance(cache, OperatorCache) else None
    owned = await owned_objects(
        cluster, discovery, kinds | _target_kinds(settings), meta.get("namespace"), uid, gangs
    )
    applied, refusals, refused_names = 0, list[Refusal](), set[str]()
    for item in desired.objects:
        refused = await apply(cluster, discovery, item, owned, written)
        if refused is None:
            applied += 1
        else:
            refusals.append(refused)
            refused_names.add(item["metadata"]["name"])
    if gangs is not None and written is not None:  # the cache may not show the last apply
        owned = with_unseen(owned, written, uid)
    deleted = await delete_unwanted(cluster, discovery, owned, desired.objects, written)
    links = {pod: g for pod, g in desired.pod_groups.items() if g not in refused_names}
    linked = await link_pods(cluster, discovery, settings, pods or [], links, written)
    return Outcome(applied, deleted, linked, entry.origin, None, tuple(refusals), (), quarantine)


def _skipped(entry: Entry, quarantine: Quarantine | None) -> Outcome:
    """The outcome of a workload whose definition is quarantined: nothing evaluated,
    nothing written (the last good gang stays)."""
    assert quarantine is not None
    failure = (
        f"definition {entry.origin} is quarantined ({quarantine.reason}: {quarantine.message})"
    )
    refusal = Refusal("DefinitionQuarantined", f"gang objects not written: {failure}")
    return Outcome(0, 0, 0, entry.origin, failure, (refusal,), (), quarantine)


def interpreted(
    settings: Settings, reader: WorkloadReader, entry: Entry, current: Mapping[str, Any]
) -> tuple[WorkloadView, Desired | GangRefusal]:
    """Interpret a workload and work out its gang objects, or why none may be written
    (:func:`wlmap.schedulers.gang_refusal`: the gang's inputs failed, or a gang is too
    large); gangs are read lazily, so both run off the event loop. What the definition
    could not read is logged as a warning for the workload; a definition that exceeds its
    evaluation limits is one of these."""
    # no pods yet: gangs keyed by pod labels fall back to one gang per unit of the spec
    view = reader.view(entry, current, unknown_without_pods=True)
    if view.warnings:
        meta = current.get("metadata") or {}
        log.warning(
            "definition %s cannot read all of %s %s/%s: %s",
            entry.origin,
            current.get("kind"),
            meta.get("namespace"),
            meta.get("name"),
            "; ".join(view.warnings),
        )
    refusal = gang_refusal(view)
    if refusal is not None:
        return view, refusal
    return view, desired_state(settings, view, current)


async def forget(
    cluster: Cluster,
    discovery: Discovery,
    settings: Settings,
    obj: Mapping[str, Any],
    written: Written | None = None,
) -> int:
    """Delete the gang objects of a deleted workload (the garbage collector does the same
    through owner references on clusters that run it). Listed, not read from the gang
    cache: this runs once per workload, and a listing never lags the last apply."""
    meta = obj.get("metadata") or {}
    kinds = _target_kinds(settings)
    owned = await owned_objects(
        cluster, discovery, kinds, meta.get("namespace"), str(meta.get("uid"))
    )
    return await delete_unwanted(cluster, discovery, owned, [], written)


def _target_kinds(settings: Settings) -> set[tuple[str, str]]:
    return set(GANG_KINDS[settings.target])


async def link_pods(
    cluster: Cluster,
    discovery: Discovery,
    settings: Settings,
    pods: list[dict[str, Any]],
    groups: Mapping[str, str],
    written: Written | None = None,
) -> int:
    """Patch each pod's group link (annotation or label) where its copy lacks it; with ``written``,
    not again while the copy lags a link already written, and not for a gated pod: its
    release writes the link (see ``placement.release``). The number patched."""
    link = settings.pod_link
    resource = discovery.find("", "Pod")
    if link is None or resource is None:
        return 0
    linked = 0
    for pod in pods:
        meta = pod.get("metadata") or {}
        group = groups.get(str(meta.get("name")))
        if group is None:
            continue
        if written is not None:
            if not written.needs_link(pod, link, group):
                continue
            if is_gated(pod):  # linked by the patch that releases it
                written.defer(pod, link, group)
                continue
        elif link.shown(pod) == group:
            continue
        patch = {"metadata": link.patch(group)}
        try:
            await cluster.request(
                "PATCH",
                resource.path(meta.get("namespace"), meta["name"]),
                body=patch,
                content_type=MERGE_PATCH,
            )
            linked += 1
            if written is not None:
                written.linked(pod, group)
        except ApiError as exc:
            if exc.code != 404:
                raise
    return linked
