"""The operator's own gang objects, kept by watches: what a reconciliation reads to find
the objects a workload owns, instead of listing them every time.

One informer per gang kind of the target and served namespace watches the objects that
carry ``wlmap.dev/workload-uid``, the same selection the listing made. Namespaces picked
by the namespace selector are watched one by one as they are served
(``namespace_changed``), as the pods are: never the whole cluster. The copies keep
their managed fields (unlike the pod cache): they tell a change by another writer from
the operator's own write, so the watch also drives the drift checks (see ``drift``).

The cache can lag the operator's last write. What the writer does about that lives in
``writes``: an object missing here is looked up by name before it is applied, and the
objects applied and not seen yet (``written``) are considered for deletion too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from wlmap.operator.core.settings import GANG_KINDS, WORKLOAD_UID_LABEL, Settings
from wlmap.sources.cluster import Cluster, Discovery
from wlmap.sources.cluster.discovery import ApiResource
from wlmap.sources.cluster.informer import ChangeListener, Informer, Informers
from wlmap.sources.cluster.object_index import ObjectIndex

SYNC_SECONDS = 30.0


class GangCache:
    """The target's gang objects labelled with a workload uid, in the served namespaces.

    Args:
        listener: told of every change the watches bring (from the watch's task: it must
            not block).
        interrupted: told when a watch failed and is being resumed.
    """

    def __init__(
        self,
        cluster: Cluster,
        discovery: Discovery,
        settings: Settings,
        listener: ChangeListener | None = None,
        interrupted: Callable[[], None] | None = None,
    ) -> None:
        self.index = ObjectIndex()
        self._cluster = cluster
        self._listener = listener
        self._interrupted = interrupted
        self._resources = [
            resource
            for api_version, kind in GANG_KINDS[settings.target]
            if (resource := discovery.serving(api_version, kind)) is not None
        ]
        # listed namespaces are watched from the start; selected ones as they are served
        self._follow = not settings.scope.namespaces
        namespaces: Sequence[str] = sorted(settings.scope.namespaces)
        self.informers = Informers(
            [
                self._informer(resource, namespace)
                for resource in self._resources
                for namespace in (namespaces if resource.namespaced else (None,))
            ]
        )

    def _informer(self, resource: ApiResource, namespace: str | None) -> Informer:
        return Informer(
            self._cluster,
            resource,
            namespace,
            self.index,
            self._listener,
            selector=WORKLOAD_UID_LABEL,
            slim=False,
            interrupted=self._interrupted,
        )

    def namespace_changed(self, namespace: str, served: bool) -> None:
        """Whether a namespace is served changed: following the selector, the watches of
        ``namespace`` start or stop (listed namespaces keep theirs)."""
        if self._follow:
            self.informers.follow(namespace, served, self._namespace_informers, self.index)

    def _namespace_informers(self, namespace: str) -> list[Informer]:
        return [self._informer(r, namespace) for r in self._resources if r.namespaced]

    def start(self) -> None:
        """Start listing and watching (in the running event loop)."""
        self.informers.start()

    async def stop(self) -> None:
        """Stop every watch."""
        await self.informers.stop()

    async def synced(self, timeout: float = SYNC_SECONDS) -> None:
        """Wait until every gang kind has been listed once.

        Raises:
            ClusterError: not within ``timeout`` seconds.
        """
        await self.informers.synced(timeout, "the gang objects")

    def keeps(self, api_version: str, kind: str, namespace: str | None) -> bool:
        """Whether every object of this kind in this namespace reaches the cache (watched,
        and the server did not refuse the watch)."""
        return self.informers.reach(
            lambda i: (
                (i.resource.api_version, i.resource.kind) == (api_version, kind)
                and i.namespace in (None, namespace)
            )
        )

    def owned(self, api_version: str, kind: str, namespace: str | None, uid: str) -> list[Any]:
        """The objects of one kind labelled with the workload's uid, as last seen."""
        group = api_version.rpartition("/")[0]
        return [
            obj
            for obj in self.index.of_type(group, kind, namespace)
            if ((obj.get("metadata") or {}).get("labels") or {}).get(WORKLOAD_UID_LABEL) == uid
        ]

    def objects(self) -> Iterable[dict[str, Any]]:
        """Every gang object held (a sweep for orphans)."""
        for informer in self.informers.all:
            resource = informer.resource
            namespace = informer.namespace
            yield from self.index.of_type(resource.group, resource.kind, namespace)
