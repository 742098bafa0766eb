"""Live mode: what a command reads from the cluster when no ``-f`` is given.

One event loop per command: connect, discover, merge the cluster's stored definitions
into the session, resolve the TYPE token against what the server serves, and read the
scope into manifests that the rest of the command treats like a dump file.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from wlmap.cli._session import Session
from wlmap.cli.commands._types import resolve_type
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
from wlmap.sources.manifests import Manifest

T = TypeVar("T")


@dataclass(frozen=True)
class Request:
    """What a command asks of the cluster."""

    type_token: str | None
    name: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    selector: str | None = None


@dataclass(frozen=True)
class LiveRead:
    """The objects read, and the resource a TYPE token resolved to (None: every type)."""

    manifests: list[Manifest]
    resource: ApiResource | None
    namespace: str | None
    pods_listed: bool = False

    @property
    def gvk(self) -> GroupVersionKind | None:
        """The group/version/kind the TYPE token named."""
        if self.resource is None:
            return None
        return GroupVersionKind(
            group=self.resource.group, version=self.resource.version, kind=self.resource.kind
        )


def with_cluster(session: Session, work: Callable[[Cluster, Discovery], Awaitable[T]]) -> T:
    """Connect, discover, merge the stored definitions, then run ``work`` on one loop."""

    async def run() -> T:
        cluster = await Cluster.connect(session.kubeconfig, session.context)
        try:
            discovery = await discover(cluster)
            stored = await read_stored(cluster, discovery)
            for warning in stored.warnings:
                session.output.warn(warning)
            for origin, problems in stored.invalid.items():
                session.output.warn(
                    f"{origin} is invalid and not used ({len(problems)} problems; "
                    f"first: {problems[0]})"
                )
            session.use_cluster_definitions(stored.definitions)
            return await work(cluster, discovery)
        finally:
            await cluster.close()

    return asyncio.run(run())


def read_live(session: Session, request: Request) -> LiveRead:
    """Read what ``request`` names from the cluster.

    Raises:
        NoDefinitionError: the type is unknown, ambiguous, or no definition covers it.
        WorkloadNotFoundError: the cluster does not serve the type, or the named workload
            does not exist.
        ClusterError: the cluster cannot be reached or refuses the request.
    """

    async def work(cluster: Cluster, discovery: Discovery) -> LiveRead:
        resource = resolve(session, discovery, request.type_token) if request.type_token else None
        resources = (resource,) if resource else mapped_resources(session, discovery)
        namespace = None if request.all_namespaces else request.namespace or cluster.namespace
        scope = Scope(resources, namespace, request.selector, request.name)
        snapshot = await read_snapshot(cluster, discovery, session.registry, scope)
        for warning in snapshot.warnings:
            session.output.warn(warning)
        return LiveRead(snapshot.manifests, resource, namespace, snapshot.pods_listed)

    return with_cluster(session, work)


def resolve(session: Session, discovery: Discovery, token: str) -> ApiResource:
    """The served resource a TYPE token names, which a definition must cover."""
    matches = discovery.resolve(token)
    if len(matches) > 1:
        choices = ", ".join(sorted(f"{r.plural}.{r.group or 'core'}" for r in matches))
        raise NoDefinitionError(f"{token!r} is ambiguous; use one of: {choices}")
    if not matches:
        try:  # a kind a definition covers, named as offline (kind, plural, kind.group...)
            known = resolve_type(session.registry, token)
        except NoDefinitionError:
            raise NoDefinitionError(f"the cluster has no resource type {token!r}") from None
        raise WorkloadNotFoundError(
            f"the cluster does not serve {known.kind} ({known.group or 'core'}): "
            "is its CRD installed?"
        )
    (resource,) = matches
    if session.registry.find(resource.api_version, resource.kind) is None:
        raise NoDefinitionError(
            f"no definition covers {resource.kind} ({resource.api_version}); "
            "see `wlmap definitions list`"
        )
    return resource


def mapped_resources(session: Session, discovery: Discovery) -> tuple[ApiResource, ...]:
    """Every served type a definition covers (types whose CRD is absent are skipped)."""
    found: dict[tuple[str, str], ApiResource] = {}
    for entry in session.registry:
        gvk = entry.gvk
        if gvk is None:
            continue
        resource = discovery.find(gvk.group, gvk.kind, gvk.version)
        if resource is not None and "list" in resource.verbs:
            found[(resource.group, resource.kind)] = resource
    return tuple(found.values())


DEBOUNCE_SECONDS = 0.3


def watch_live(
    session: Session,
    request: Request,
    render: Callable[[LiveRead], str],
    timeout: float | None = None,
) -> None:
    """Render the requested workloads now and again whenever they or their pods change,
    until ``timeout`` seconds pass or a named workload is deleted."""

    async def work(cluster: Cluster, discovery: Discovery) -> None:
        assert request.type_token is not None, "describe --watch needs a TYPE"
        resource = resolve(session, discovery, request.type_token)
        namespace = None if request.all_namespaces else request.namespace or cluster.namespace
        scope = Scope((resource,), namespace, request.selector, request.name)
        changed = asyncio.Event()
        field = f"metadata.name={request.name}" if request.name else None
        watched = [(resource, field), *((p, None) for p in [discovery.find("", "Pod")] if p)]
        pumps = [asyncio.create_task(_pump(cluster, r, namespace, f, changed)) for r, f in watched]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout if timeout is not None else None
        shown = None
        try:
            while True:
                changed.clear()
                try:
                    snapshot = await read_snapshot(cluster, discovery, session.registry, scope)
                except WorkloadNotFoundError as gone:
                    if shown is None:
                        raise
                    session.output.data(f"--- {gone}")
                    return
                text = render(
                    LiveRead(snapshot.manifests, resource, namespace, snapshot.pods_listed)
                )
                if text != shown:
                    session.output.data(text if shown is None else f"---\n{text}")
                    sys.stdout.flush()
                    shown = text
                remaining = None if deadline is None else deadline - loop.time()
                if remaining is not None and remaining <= 0:
                    return
                try:
                    await asyncio.wait_for(changed.wait(), remaining)
                except TimeoutError:
                    return
                await asyncio.sleep(DEBOUNCE_SECONDS)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)

    with_cluster(session, work)


async def _pump(
    cluster: Cluster,
    resource: ApiResource,
    namespace: str | None,
    field_selector: str | None,
    changed: asyncio.Event,
) -> None:
    async for _ in watch_events(cluster, resource, namespace, field_selector):
        changed.set()
