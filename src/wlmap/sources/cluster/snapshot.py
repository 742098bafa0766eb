"""A consistent-enough picture of part of a cluster: the workloads of some types, the pods
and DRA claims beside them, and the owners and referenced objects needed to read them.

The result is the same list of manifests a dump file gives, so every command reads a live
cluster exactly as it reads ``kubectl get -o yaml`` output.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wlmap.definitions.registry import Registry
from wlmap.errors import ClusterError, WlmapError, WorkloadNotFoundError
from wlmap.sources.cluster.connection import ApiError, Cluster
from wlmap.sources.cluster.discovery import ApiResource, Discovery
from wlmap.sources.cluster.listing import list_many, list_objects
from wlmap.sources.cluster.owners import OwnerLookup
from wlmap.sources.entries import prepare_entry
from wlmap.sources.inventory import uid_of
from wlmap.sources.manifests import Manifest
from wlmap.workload import reference_requests

ORIGIN = "cluster"


@dataclass(frozen=True)
class Scope:
    """What to read: workload types, a namespace (None: all), a label selector, a name."""

    resources: tuple[ApiResource, ...]
    namespace: str | None
    label_selector: str | None = None
    name: str | None = None


@dataclass
class Snapshot:
    """The objects read, and what could not be read (as warnings)."""

    manifests: list[Manifest] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    pods_listed: bool = False  # pods were listed in full: none found means none exist
    refused: set[tuple[str, str]] = field(default_factory=set)  # (group, kind) not listed


async def read_snapshot(
    cluster: Cluster, discovery: Discovery, registry: Registry, scope: Scope
) -> Snapshot:
    """Read a scope: workloads, pods, claims, owners of pods, referenced objects.

    Raises:
        WorkloadNotFoundError: a named workload does not exist.
        ClusterError: the only requested type cannot be listed, or the server fails.
    """
    snapshot = Snapshot()
    workloads = await _workloads(cluster, scope, snapshot)
    # a type the scope already listed whole (pods, with --all-types) is not listed again
    complete = set() if scope.name is not None or scope.label_selector else set(scope.resources)
    extras = [
        r
        for r in (discovery.find("", "Pod"), discovery.find("resource.k8s.io", "ResourceClaim"))
        if r and r not in complete
    ]
    namespaces = _namespaces(scope, workloads)
    listings = await asyncio.gather(*(list_many(cluster, extras, ns) for ns in namespaces))
    objects = list(workloads)
    seen = {uid_of(o) for o in workloads}
    for listing in listings:
        # a pod that is itself a listed workload (``-l`` on pods) is kept once
        objects.extend(o for o in listing.objects if uid_of(o) is None or uid_of(o) not in seen)
        for resource, error in listing.refused:
            snapshot.refused.add((resource.group, resource.kind))
            snapshot.warnings.append(_refusal(resource, error, scope.namespace))
    snapshot.pods_listed = (
        discovery.find("", "Pod") is not None and ("", "Pod") not in snapshot.refused
    )
    pods = [o for o in objects if o.get("kind") == "Pod" and o.get("apiVersion") == "v1"]
    owners = OwnerLookup(cluster, discovery)
    await owners.complete(objects, pods)
    for qualified, names in sorted(owners.refused.items()):
        shown = ", ".join(sorted(names)[:3]) + (", ..." if len(names) > 3 else "")
        snapshot.warnings.append(
            f"cannot read {qualified} {shown}: forbidden; the pods they own are not "
            "attributed to their workload"
        )
    if owners.exhausted:
        snapshot.warnings.append(
            f"owner lookups stopped after {len(owners._cache)}; some pods are not attributed"
        )
    referenced = await referenced_objects(cluster, discovery, registry, workloads, snapshot)
    objects.extend(o for o in referenced if uid_of(o) is None or uid_of(o) not in seen)
    snapshot.manifests = [Manifest(obj, ORIGIN) for obj in objects]
    return snapshot


async def _workloads(cluster: Cluster, scope: Scope, snapshot: Snapshot) -> list[dict[str, Any]]:
    if scope.name is not None:
        (resource,) = scope.resources
        namespace = scope.namespace if resource.namespaced else None
        try:
            return [await cluster.request("GET", resource.path(namespace, scope.name))]
        except ApiError as exc:
            if exc.code == 404:
                where = f" in namespace {namespace!r}" if namespace else ""
                raise WorkloadNotFoundError(
                    f"{resource.kind.lower()} {scope.name!r} not found{where}"
                ) from exc
            raise
    selectors = dict.fromkeys(scope.resources, scope.label_selector)
    listing = await list_many(cluster, scope.resources, scope.namespace, selectors)
    if listing.refused and len(listing.refused) == len(scope.resources):
        # nothing could be listed: an error, not an empty cluster
        resource, error = min(listing.refused, key=lambda refused: refused[0].qualified)
        if len(scope.resources) == 1:
            raise error
        where = f" in namespace {scope.namespace!r}" if scope.namespace else ""
        raise ApiError(
            f"cannot list any of the {len(scope.resources)} workload types{where}; "
            f"{resource.qualified}: {error}",
            error.code,
            error.reason,
        ) from error
    for resource, error in listing.refused:
        snapshot.refused.add((resource.group, resource.kind))
        if error.code != 404:  # a type removed since discovery is simply not there
            snapshot.warnings.append(_refusal(resource, error, scope.namespace))
    return listing.objects


def _namespaces(scope: Scope, workloads: Sequence[dict[str, Any]]) -> list[str | None]:
    """Where to look for pods: the scope's namespace, or each named workload's own."""
    if scope.name is not None:
        return sorted(
            {(w.get("metadata") or {}).get("namespace") or scope.namespace for w in workloads},
            key=str,
        )
    return [scope.namespace]


# Answers a selection (type, namespace, label selector) from objects already held, or
# None when they are not all held and the server must be asked.
HeldSelection = Callable[[ApiResource, str | None, str | None], list[dict[str, Any]] | None]


async def referenced_objects(
    cluster: Cluster,
    discovery: Discovery,
    registry: Registry,
    workloads: Sequence[dict[str, Any]],
    snapshot: Snapshot,
    held: HeldSelection | None = None,
) -> list[dict[str, Any]]:
    """Objects that definitions refer to: each named one fetched once (a TrainJob's
    runtime), each selection listed once per namespace and label selector (a PodCliqueSet's
    PodCliques), unless ``held`` answers it from memory; the input reader keeps those a
    selection's owner rule admits."""
    named: dict[tuple[str, str, str, str | None], ApiResource] = {}
    selections: dict[tuple[ApiResource, str | None, str | None], None] = {}
    for obj in workloads:
        entry = registry.find(str(obj.get("apiVersion")), str(obj.get("kind")))
        if entry is None or not entry.definition.spec.structure_definition.references:
            continue
        try:
            # in a thread: the expressions may come from a cluster object and take their
            # whole time limit, which the event loop (the operator's) must not wait out
            requests = await asyncio.to_thread(reference_requests, prepare_entry(entry), obj)
        except WlmapError:
            continue  # the view reports the failing expression
        for request in requests:
            resource = discovery.find(request.kind.group, request.kind.kind, request.kind.version)
            if resource is None or not request.applies:
                continue
            namespace = request.namespace if resource.namespaced else None
            if request.many:
                selections[(resource, namespace, request.label_selector)] = None
            elif request.name is not None:
                named[(resource.group, resource.kind, request.name, namespace)] = resource

    async def fetch(
        key: tuple[str, str, str, str | None], resource: ApiResource
    ) -> list[dict[str, Any]]:
        try:
            return [await cluster.request("GET", resource.path(key[3], key[2]))]
        except ApiError:
            return []  # the view reports the reference as unresolved

    async def select(
        resource: ApiResource, namespace: str | None, selector: str | None
    ) -> list[dict[str, Any]]:
        answer = None if held is None else held(resource, namespace, selector)
        if answer is not None:
            return answer
        try:
            return await list_objects(cluster, resource, namespace, selector)
        except ApiError as exc:
            if (resource.group, resource.kind) not in snapshot.refused:
                snapshot.refused.add((resource.group, resource.kind))
                snapshot.warnings.append(_refusal(resource, exc, namespace))
            return []

    found = await asyncio.gather(
        *(fetch(k, r) for k, r in named.items()),
        *(select(*key) for key in selections),
    )
    objects: list[dict[str, Any]] = []
    seen: set[str] = set()
    for obj in (o for part in found for o in part):
        uid = uid_of(obj)
        if uid is None or uid not in seen:
            objects.append(obj)
            seen.update((uid,) if uid else ())
    return objects


def _refusal(resource: ApiResource, error: ApiError, namespace: str | None) -> str:
    where = f" in namespace {namespace!r}" if namespace else ""
    what = "forbidden" if error.code == 403 else str(error)
    return f"cannot list {resource.qualified}{where}: {what}"


__all__ = [
    "ORIGIN",
    "ClusterError",
    "HeldSelection",
    "Scope",
    "Snapshot",
    "read_snapshot",
    "referenced_objects",
]
