"""Reading workloads from a live cluster, for every front end.

One event loop per use: connect, discover, merge the cluster's stored definitions
(``WorkloadMap`` and ``Karta`` objects) into the definitions in use, resolve a TYPE token
against what the server serves, and read the scope into manifests that the rest of a use
case treats like a dump file; or read it again whenever the workloads or their pods change.
Warnings go to a callback; rendering stays with the front end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar

from wlmap.app.definitions import DefinitionSet
from wlmap.app.types import resolve_type
from wlmap.definitions.gvk import GroupVersionKind
from wlmap.errors import NoDefinitionError, WorkloadNotFoundError
from wlmap.sources.cluster import (
    ApiResource,
    Cluster,
    Discovery,
    Scope,
    discover,
    read_snapshot,
    read_stored,
    watch_events,
)

if TYPE_CHECKING:
    from wlmap.app.workloads import Warn
    from wlmap.definitions.registry import Registry
    from wlmap.sources.manifests import Manifest

T = TypeVar("T")

DEBOUNCE_SECONDS = 0.3
"""How long a watch waits after a change for the changes that come with it."""


@dataclass(frozen=True)
class Request:
    """What a front end asks of the cluster (``type_token`` None: every mapped type)."""

    type_token: str | None
    name: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    selector: str | None = None


@dataclass(frozen=True)
class LiveRead:
    """The objects read, the resource a TYPE token resolved to (None: every type), the
    namespace read (None: every one) and the definitions in use to interpret them."""

    manifests: list[Manifest]
    resource: ApiResource | None
    namespace: str | None
    registry: Registry
    pods_listed: bool = False

    @property
    def gvk(self) -> GroupVersionKind | None:
        """The group/version/kind the TYPE token named."""
        if self.resource is None:
            return None
        return GroupVersionKind(
            group=self.resource.group, version=self.resource.version, kind=self.resource.kind
        )


@dataclass
class Connected:
    """An open connection, what the server serves, and the definitions in use (merged
    with the cluster's stored ones on first use, when their warnings are reported)."""

    cluster: Cluster
    discovery: Discovery
    definitions: DefinitionSet
    warn: Warn

    @cached_property
    def registry(self) -> Registry:
        """Built-in definitions, then the cluster's, then the files'."""
        merged = self.definitions.merge()
        for warning in merged.warnings:
            self.warn(warning)
        return merged.registry


@dataclass(frozen=True)
class Live:
    """A cluster read with the definitions in use.

    Attributes:
        warn: where invalid stored definitions, definitions overriding each other and
            objects that could not be read are reported.
        kubeconfig: the kubeconfig file (None: the default one).
        context: the kubeconfig context (None: the current one).
        definitions: the definition files in use; the cluster's are merged in on connect.
    """

    warn: Warn
    kubeconfig: str | None = None
    context: str | None = None
    definitions: DefinitionSet = field(default_factory=DefinitionSet)

    def run(self, work: Callable[[Connected], Awaitable[T]]) -> T:
        """Connect, discover, read the stored definitions, then run ``work`` on one loop.

        Raises:
            ClusterError: the cluster cannot be reached or refuses the request.
        """

        async def run() -> T:
            cluster = await Cluster.connect(self.kubeconfig, self.context)
            try:
                discovery = await discover(cluster)
                stored = await read_stored(cluster, discovery)
                for warning in stored.warnings:
                    self.warn(warning)
                for origin, problems in stored.invalid.items():
                    self.warn(
                        f"{origin} is invalid and not used ({len(problems)} problems; "
                        f"first: {problems[0]})"
                    )
                definitions = DefinitionSet(self.definitions.files, tuple(stored.definitions))
                return await work(Connected(cluster, discovery, definitions, self.warn))
            finally:
                await cluster.close()

        return asyncio.run(run())

    def read(self, request: Request) -> LiveRead:
        """Read what ``request`` names from the cluster.

        Raises:
            NoDefinitionError: the type is unknown, ambiguous, or no definition covers it.
            WorkloadNotFoundError: the cluster does not serve the type, or the named
                workload does not exist.
            ClusterError: the cluster cannot be reached or refuses the request.
        """

        async def work(connected: Connected) -> LiveRead:
            return await _read(connected, request, self.warn)

        return self.run(work)

    def watch(
        self,
        request: Request,
        changed: Callable[[LiveRead], None],
        gone: Callable[[str], None],
        timeout: float | None = None,
    ) -> None:
        """Hand ``changed`` the requested workloads now and again whenever they or their
        pods change, until ``timeout`` seconds pass or a named workload is deleted (then
        ``gone`` is told why). ``request`` must name a TYPE.

        Raises:
            NoDefinitionError, WorkloadNotFoundError, ClusterError: as :meth:`read`, for
                the first read.
        """
        if request.type_token is None:
            raise NoDefinitionError("watching needs a TYPE")

        async def work(connected: Connected) -> None:
            await _watch(connected, request, changed, gone, timeout)

        self.run(work)


async def _read(connected: Connected, request: Request, warn: Warn) -> LiveRead:
    discovery, registry = connected.discovery, connected.registry
    resource = resolve(registry, discovery, request.type_token) if request.type_token else None
    resources = (resource,) if resource else mapped_resources(registry, discovery)
    namespace = _namespace(connected, request)
    scope = Scope(resources, namespace, request.selector, request.name)
    snapshot = await read_snapshot(connected.cluster, discovery, registry, scope)
    for warning in snapshot.warnings:
        warn(warning)
    return LiveRead(snapshot.manifests, resource, namespace, registry, snapshot.pods_listed)


def _namespace(connected: Connected, request: Request) -> str | None:
    if request.all_namespaces:
        return None
    return request.namespace or connected.cluster.namespace


def resolve(registry: Registry, discovery: Discovery, token: str) -> ApiResource:
    """The served resource a TYPE token names, which a definition must cover.

    Raises:
        NoDefinitionError: the token is ambiguous, names nothing, or no definition covers it.
        WorkloadNotFoundError: a definition covers the kind but the server does not serve it.
    """
    matches = discovery.resolve(token)
    if len(matches) > 1:
        choices = ", ".join(sorted(f"{r.plural}.{r.group or 'core'}" for r in matches))
        raise NoDefinitionError(f"{token!r} is ambiguous; use one of: {choices}")
    if not matches:
        try:  # a kind a definition covers, named as offline (kind, plural, kind.group...)
            known = resolve_type(registry, token)
        except NoDefinitionError:
            raise NoDefinitionError(f"the cluster has no resource type {token!r}") from None
        raise WorkloadNotFoundError(
            f"the cluster does not serve {known.kind} ({known.group or 'core'}): "
            "is its CRD installed?"
        )
    (resource,) = matches
    if registry.find(resource.api_version, resource.kind) is None:
        raise NoDefinitionError(
            f"no definition covers {resource.kind} ({resource.api_version}); "
            "see `wlmap definitions list`"
        )
    return resource


def mapped_resources(registry: Registry, discovery: Discovery) -> tuple[ApiResource, ...]:
    """Every served type a definition covers (types whose CRD is absent are skipped)."""
    found: dict[tuple[str, str], ApiResource] = {}
    for entry in registry:
        gvk = entry.gvk
        if gvk is None:
            continue
        resource = discovery.find(gvk.group, gvk.kind, gvk.version)
        if resource is not None and "list" in resource.verbs:
            found[(resource.group, resource.kind)] = resource
    return tuple(found.values())


async def _watch(
    connected: Connected,
    request: Request,
    changed: Callable[[LiveRead], None],
    gone: Callable[[str], None],
    timeout: float | None,
) -> None:
    assert request.type_token is not None, "checked by Live.watch"
    cluster, discovery, registry = connected.cluster, connected.discovery, connected.registry
    resource = resolve(registry, discovery, request.type_token)
    namespace = _namespace(connected, request)
    scope = Scope((resource,), namespace, request.selector, request.name)
    change = asyncio.Event()
    field_selector = f"metadata.name={request.name}" if request.name else None
    watched = [(resource, field_selector), *((p, None) for p in [discovery.find("", "Pod")] if p)]
    pumps = [asyncio.create_task(_pump(cluster, r, namespace, f, change)) for r, f in watched]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout if timeout is not None else None
    first = True
    try:
        while True:
            change.clear()
            try:
                snapshot = await read_snapshot(cluster, discovery, registry, scope)
            except WorkloadNotFoundError as error:
                if first:
                    raise
                gone(str(error))
                return
            first = False
            changed(
                LiveRead(snapshot.manifests, resource, namespace, registry, snapshot.pods_listed)
            )
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return
            try:
                await asyncio.wait_for(change.wait(), remaining)
            except TimeoutError:
                return
            await asyncio.sleep(DEBOUNCE_SECONDS)
    finally:
        for pump in pumps:
            pump.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)


async def _pump(
    cluster: Cluster,
    resource: ApiResource,
    namespace: str | None,
    field_selector: str | None,
    changed: asyncio.Event,
) -> None:
    async for _ in watch_events(cluster, resource, namespace, field_selector):
        changed.set()
