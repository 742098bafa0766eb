"""The operator's cluster cache: which types it watches, and which changes bring a workload
back to be reconciled.

The operator watches its workload kinds through kopf and feeds those events in; the cache
watches the rest itself: pods, DRA claims, and the owners between pods and workloads that
no definition makes a workload (ReplicaSets, Knative Revisions, Grove PodCliques...).

A workload is reconciled again when something below it needs its pod link: a new pod
without one, or an owner arriving after its pods (the Job seen after the pods it created,
as two watch streams deliver them in no particular order); and when one of its pods is
deleted, since gangs keyed by pod labels (a LeaderWorkerSet's groups) can lose a member
or go away with it; and when a pod carries the placement gate (see ``gating``).

The operator's own gang objects are kept beside them (``gang_cache``), so that a
reconciliation lists nothing at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from wlmap.operator.core.gate import is_gated
from wlmap.operator.core.settings import Settings
from wlmap.operator.core.written import Written
from wlmap.operator.deploy.rbac import INTERMEDIATE_OWNERS
from wlmap.operator.gangs.gang_cache import GangCache
from wlmap.sources.cluster import Cluster, Discovery
from wlmap.sources.cluster.cache import CLAIMS, ClusterCache
from wlmap.sources.cluster.informer import ChangeListener
from wlmap.sources.inventory import uid_of

# The owners between pods and workloads (ReplicaSets first) come from the RBAC table that
# grants their watches.
WATCHED_KINDS: tuple[tuple[str, str], ...] = (("", "Pod"), CLAIMS, *INTERMEDIATE_OWNERS)


class OperatorCache(ClusterCache):
    """The cluster cache and, when kept, the operator's own gang objects (started,
    stopped and waited on together)."""

    gangs: GangCache | None = None

    def start(self) -> None:
        super().start()
        if self.gangs is not None:
            self.gangs.start()

    def namespace_changed(self, namespace: str, served: bool) -> None:
        super().namespace_changed(namespace, served)
        if self.gangs is not None:
            self.gangs.namespace_changed(namespace, served)

    async def stop(self) -> None:
        await super().stop()
        if self.gangs is not None:
            await self.gangs.stop()


def operator_cache(
    cluster: Cluster,
    discovery: Discovery,
    settings: Settings,
    fed: Iterable[tuple[str, str]],
    wanted: Callable[[dict[str, Any]], None],
    written: Written | None = None,
    gang_changes: ChangeListener | None = None,
    served: Callable[[str | None], bool] | None = None,
    interrupted: Callable[[], None] | None = None,
) -> OperatorCache:
    """The cache for the served namespaces; ``wanted`` is called with each watched object
    whose workload should be reconciled (from the watch's task: it must not block). A pod
    whose link was ``written`` and is not shown yet does not bring its workload back.

    Args:
        fed: (group, kind) of the types kopf watches and the handlers feed in.
        gang_changes: with it, the gang objects are kept too, and it is told of each of
            their changes (the drift checks; it must not block either).
        served: whether a namespace is served now: only its objects are kept. Under the
            namespace selector alone, nothing is watched cluster-wide: each served
            namespace is watched on its own once ``namespace_changed`` says it is served.
        interrupted: told when a gang object watch failed and is being resumed (changes
            may have been missed meanwhile: orphans are looked for again).
    """
    fed_kinds = set(fed)
    resources = [
        resource
        for group, kind in dict.fromkeys(WATCHED_KINDS)
        if (group, kind) not in fed_kinds and (resource := discovery.find(group, kind))
    ]
    cache: OperatorCache

    def listener(event_type: str, obj: dict[str, Any]) -> None:
        if event_type == "DELETED":
            if _is_pod(obj):
                if written is not None:
                    written.gone(obj)
                wanted(obj)
        elif has_unlinked_pods(cache, settings, obj, written):
            wanted(obj)

    cache = OperatorCache(
        cluster,
        discovery,
        resources,
        # the listed namespaces; with a namespace selector only, those it picks, one by
        # one as they are served (the operator's role is bound in each, not cluster-wide)
        tuple(sorted(settings.scope.namespaces)),
        fed=fed_kinds,
        listener=listener,
        served=served,
        follow=not settings.scope.namespaces,
    )
    if gang_changes is not None:
        cache.gangs = GangCache(cluster, discovery, settings, gang_changes, interrupted)
    return cache


async def complete_chain(cache: ClusterCache, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The object's owner chain, nearest first, or nothing when an owner in it has not
    been seen yet (the top workload is unknown; that owner's arrival brings it back)."""
    chain = await cache.owners(obj)
    return [] if cache.index.missing_owner(obj) is not None else chain


def has_unlinked_pods(
    cache: ClusterCache,
    settings: Settings,
    obj: Mapping[str, Any],
    written: Written | None = None,
) -> bool:
    """Whether the object is, or controls (down its chain), a pod without its group link
    (nor one ``written`` and not shown yet) or with the placement gate (it waits for the
    placement controller)."""
    link = settings.pod_link  # None: pods are linked by admission (Workload API)
    if _is_pod(obj):
        candidates: Iterable[Mapping[str, Any]] = [obj]
    else:
        candidates = cache.index.descendants(str(uid_of(obj)))
    return any(
        _is_pod(pod)
        and (
            is_gated(pod)
            or (
                link is not None
                and link.shown(pod) is None
                and not (written is not None and written.link_pending(pod))
            )
        )
        for pod in candidates
    )


def _is_pod(obj: Mapping[str, Any]) -> bool:
    return obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1"
