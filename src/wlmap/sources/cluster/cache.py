"""What a long-running reader needs from a cluster, kept current by watches instead of
read again for every workload: pods, DRA claims and the owners between pods and workloads.

A workload's objects are then read from memory: its pods through the index by controlling
owner (down the chain: JobSet, Job, Pod), the claims of its namespace, and the objects
its definition refers to (fetched, as they are few and rarely shared). The result is the
same snapshot a live read gives, so the workload is interpreted exactly as the CLI does.

Only the objects of the namespaces a reader serves are kept (``served``). A cache that
follows the served namespaces (``follow``: they are picked by a label selector, known only
at run time) watches each of them on its own, starting and stopping those watches as
namespaces come and go (``namespace_changed``): it never lists a namespace it does not
serve, so neither its memory nor the permissions it needs reach beyond them. A cache given
listed namespaces (or the whole cluster) keeps its watches and drops what is not served
as it reads it; when the served set changes, those watches list again what it keeps.

Types the reader watches itself (the operator's workload kinds) are fed in with
``observe``. An owner of a type nobody watches is fetched once by GET and kept; those
requests are counted, as they are the ones a watch could save.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.registry import Registry
from wlmap.errors import WorkloadNotFoundError
from wlmap.sources.cluster.connection import ApiError, Cluster
from wlmap.sources.cluster.discovery import ApiResource, Discovery
from wlmap.sources.cluster.informer import ChangeListener, Informer, Informers
from wlmap.sources.cluster.listing import PAGE_SIZE
from wlmap.sources.cluster.object_index import ObjectIndex, type_key
from wlmap.sources.cluster.snapshot import ORIGIN, Snapshot, referenced_objects
from wlmap.sources.inventory import uid_of
from wlmap.sources.manifests import Manifest
from wlmap.sources.selectors import matches, parse_selector

SYNC_SECONDS = 30.0
# pages of a listing that keeps only the served namespaces' objects: what is dropped is
# still read, and a smaller page leaves less memory behind (the allocator keeps its peak)
FILTERED_PAGE_SIZE = 50
CLAIMS = ("resource.k8s.io", "ResourceClaim")


@dataclass
class CacheCounts:
    """Requests the cache could not avoid: owners and workloads of types not watched."""

    owner_gets: int = 0
    workload_gets: int = 0


class ClusterCache:
    """Objects of some types in some namespaces, mirrored by watches and indexed.

    Args:
        cluster: the connection.
        discovery: the served types (to fetch owners of types not watched).
        resources: the types to list and watch (pods, claims, intermediate owners).
        namespaces: the namespaces to watch; ``(None,)`` for the whole cluster.
        fed: (group, kind) of types the caller watches itself and feeds in with ``observe``.
        listener: told of every change the watches bring (not of ``observe``'d ones).
        served: whether a namespace's objects are kept (None: every namespace watched).
        follow: more namespaces are watched (and unwatched) as ``namespace_changed``
            says, one watch per namespace and type.
    """

    def __init__(
        self,
        cluster: Cluster,
        discovery: Discovery,
        resources: Sequence[ApiResource],
        namespaces: Sequence[str | None] = (None,),
        fed: Iterable[tuple[str, str]] = (),
        listener: ChangeListener | None = None,
        served: Callable[[str | None], bool] | None = None,
        follow: bool = False,
    ) -> None:
        self.index = ObjectIndex()
        self._served = served
        self.counts = CacheCounts()
        self._cluster = cluster
        self._discovery = discovery
        self._resources = tuple(resources)
        self._listener = listener
        self._follow = follow
        self._informers = Informers(
            [
                self._informer(resource, namespace)
                for resource in resources
                for namespace in (namespaces if resource.namespaced else (None,))
            ]
        )
        self._fed = set(fed)
        self._unreadable: set[str] = set()  # uids of owners a GET did not give

    def _informer(self, resource: ApiResource, namespace: str | None) -> Informer:
        return Informer(
            self._cluster,
            resource,
            namespace,
            self.index,
            self._listener,
            keep=self._keeps,
            page_size=FILTERED_PAGE_SIZE if self._served and namespace is None else PAGE_SIZE,
        )

    def keeps(self, group: str, kind: str, namespace: str | None = None) -> bool:
        """Whether every object of this type (in ``namespace``; None: in every namespace,
        or cluster-scoped) reaches the cache: fed, or watched there (a type the server
        refuses to list is not; its objects are fetched one by one)."""
        if (group, kind) in self._fed:
            return True
        return self._informers.reach(
            lambda i: (
                (i.resource.group, i.resource.kind) == (group, kind)
                and i.namespace in (None, namespace)
            )
        )

    def start(self) -> None:
        """Start listing and watching (in the running event loop)."""
        self._informers.start()

    def namespace_changed(self, namespace: str, served: bool) -> None:
        """Whether ``namespace`` is served changed (or it is gone: not served). Following,
        its watches start (reads wait for their listing) or stop, and what they kept is
        dropped; else the watches that cover it list again what may now be kept."""
        if not self._follow:
            self._informers.relist(lambda i: i.namespace in (None, namespace))
            return
        self._informers.follow(namespace, served, self._namespace_informers, self.index)

    def _namespace_informers(self, namespace: str) -> list[Informer]:
        return [self._informer(r, namespace) for r in self._resources if r.namespaced]

    def _keeps(self, obj: Mapping[str, Any]) -> bool:
        namespace = (obj.get("metadata") or {}).get("namespace")
        return self._served is None or namespace is None or self._served(namespace)

    async def stop(self) -> None:
        """Stop every watch."""
        await self._informers.stop()

    async def synced(self, timeout: float = SYNC_SECONDS) -> None:
        """Wait until every type has been listed once.

        Raises:
            ClusterError: not within ``timeout`` seconds (the server is slow or away).
        """
        await self._informers.synced(timeout, "the watched types")

    def observe(self, event_type: str | None, obj: dict[str, Any]) -> None:
        """An event of a type the caller watches: kept, or forgotten when deleted. Kept
        whether or not its namespace is served (workloads are few, and one seen before
        its namespace's opt-in is read from here once it is)."""
        if event_type == "DELETED":
            self.index.remove(obj)
        else:
            self.index.put(obj)

    async def owners(self, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The controller owner chain of an object, nearest first. An owner of a type the
        cache does not keep is fetched (and kept); one of a kept type that is not there yet
        ends the chain: its arrival will complete it. An owner that could not be fetched
        (gone, replaced under its name, or refused) is not asked for again."""
        while True:
            reference = self.index.missing_owner(obj)
            if reference is None:
                break
            group = str(reference.get("apiVersion", "")).rpartition("/")[0]
            uid = str(reference.get("uid"))
            chain = self.index.owners(obj)
            below = chain[-1] if chain else obj
            namespace = (below.get("metadata") or {}).get("namespace")
            kind = str(reference.get("kind"))
            if self.keeps(group, kind, namespace) or uid in self._unreadable:
                break
            self.counts.owner_gets += 1
            owner = await self._get(reference, namespace)
            if owner is None or uid_of(owner) != uid:
                self._unreadable.add(uid)  # uids are never reused (a refusal stands too)
                break
            self.index.put(owner)
        return self.index.owners(obj)

    async def read(
        self, workload: Mapping[str, Any], registry: Registry, discovery: Discovery
    ) -> Snapshot:
        """The snapshot of one workload: itself as last seen, every object below it,
        the claims of its namespace, and the objects its definition refers to.

        Raises:
            WorkloadNotFoundError: the workload is gone.
            ClusterError: the server fails (references, or a workload not watched).
        """
        await self.synced()
        current = self.index.get(str(uid_of(workload)))
        if current is None:
            current = await self._workload(workload)
        namespace = (current.get("metadata") or {}).get("namespace")
        objects = [current, *self.index.descendants(str(uid_of(current)))]
        if namespace is not None:
            objects.extend(self.index.of_type(*CLAIMS, namespace))
        snapshot = Snapshot(pods_listed=self.keeps("", "Pod", namespace))
        seen = {uid_of(o) for o in objects}
        referenced = await referenced_objects(
            self._cluster, discovery, registry, [current], snapshot, held=self._selection
        )
        objects.extend(o for o in referenced if uid_of(o) is None or uid_of(o) not in seen)
        snapshot.manifests = [Manifest(obj, ORIGIN) for obj in objects]
        return snapshot

    def _selection(
        self, resource: ApiResource, namespace: str | None, selector: str | None
    ) -> list[dict[str, Any]] | None:
        """A selection (a PodCliqueSet's PodCliques) answered from the watched objects,
        or None when they are not all here: a type not watched, a namespace outside the
        watched ones, or a selector form only the server evaluates."""
        served = namespace is None or self._served is None or self._served(namespace)
        where = namespace if resource.namespaced else None
        if not served or not self.keeps(resource.group, resource.kind, where):
            return None
        try:
            requirements = parse_selector(selector or "")
        except ValueError:
            return None
        return [
            obj
            for obj in self.index.of_type(resource.group, resource.kind, namespace)
            if matches((obj.get("metadata") or {}).get("labels") or {}, requirements)
        ]

    async def _workload(self, workload: Mapping[str, Any]) -> dict[str, Any]:
        group, kind, namespace = type_key(workload)
        name = (workload.get("metadata") or {}).get("name")
        missing = WorkloadNotFoundError(f"{kind.lower()} {name!r} not found")
        if self.keeps(group, kind, namespace):
            raise missing  # its deletion was seen
        self.counts.workload_gets += 1
        found = await self._get(workload, namespace)
        if found is None:
            raise missing
        return found

    async def _get(
        self, reference: Mapping[str, Any], namespace: str | None
    ) -> dict[str, Any] | None:
        resource = self._discovery.serving(
            str(reference.get("apiVersion", "")), str(reference.get("kind"))
        )
        name = reference.get("name") or (reference.get("metadata") or {}).get("name")
        if resource is None or not name:
            return None
        try:
            found = await self._cluster.request("GET", resource.path(namespace, str(name)))
        except ApiError as exc:
            if exc.code in (403, 404):
                return None
            raise
        found.setdefault("apiVersion", resource.api_version)
        found.setdefault("kind", resource.kind)
        return found
