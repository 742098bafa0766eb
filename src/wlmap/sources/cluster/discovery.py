"""What the API server serves: every resource type, and TYPE tokens resolved against them.

Aggregated discovery (``apidiscovery.k8s.io/v2``, one request for a whole root) is asked
for; a root answered the older way is read one request per group version, in parallel.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.errors import ClusterError
from wlmap.sources.cluster.connection import ApiError, Cluster

AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"


@dataclass(frozen=True)
class ApiResource:
    """One resource type the server serves at one version."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    preferred: bool = False

    @property
    def api_version(self) -> str:
        """``group/version``, or the bare version for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        """``plural.group`` (``plural`` for the core group), as kubectl names types."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        """The collection (or, with a name, the object) path."""
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        scope = f"/namespaces/{namespace}" if namespace and self.namespaced else ""
        return f"{root}{scope}/{self.plural}" + (f"/{name}" if name else "")

    def tokens(self) -> set[str]:
        """Every TYPE token that names this resource."""
        names = {self.plural, self.singular, self.kind.lower(), *self.short_names}
        if not self.group:
            return names
        return (
            names
            | {f"{n}.{self.group}" for n in names}
            | {f"{n}.{self.version}.{self.group}" for n in names}
        )


@dataclass(frozen=True)
class Discovery:
    """Every resource the server serves."""

    resources: tuple[ApiResource, ...]

    def find(self, group: str, kind: str, version: str | None = None) -> ApiResource | None:
        """The resource serving a group/kind: at ``version`` when given and served, else at
        the group's preferred version."""
        matches = [r for r in self.resources if r.group == group and r.kind == kind]
        exact = [r for r in matches if r.version == version]
        preferred = [r for r in matches if r.preferred]
        chosen = exact or preferred or matches
        return chosen[0] if chosen else None

    def serving(self, api_version: str, kind: str) -> ApiResource | None:
        """The resource for an ``apiVersion`` and kind, as objects and owner references
        name them."""
        group, _, version = api_version.rpartition("/")
        return self.find(group, kind, version)

    def resolve(self, token: str) -> list[ApiResource]:
        """The resources a TYPE token names (kind, plural, short name, kind.group,
        kind.version.group), one per group; several when it is ambiguous."""
        wanted = token.lower()
        by_group: dict[tuple[str, str], ApiResource] = {}
        for resource in self.resources:
            if wanted in resource.tokens():
                key = (resource.group, resource.kind)
                known = by_group.get(key)
                if known is None or (resource.preferred and not known.preferred):
                    by_group[key] = resource
        return list(by_group.values())


async def discover(cluster: Cluster) -> Discovery:
    """Every resource type the server serves.

    Raises:
        ClusterError: the server cannot be reached or refuses discovery.
    """
    answers = await asyncio.gather(
        cluster.request("GET", "/api", accept=AGGREGATED),
        cluster.request("GET", "/apis", accept=AGGREGATED),
    )
    found: list[ApiResource] = []
    legacy: list[Mapping[str, Any]] = []
    for answer in answers:
        if answer.get("kind") == "APIGroupDiscoveryList":
            found.extend(_aggregated(answer.get("items") or ()))
        else:
            legacy.append(answer)
    for root in legacy:
        found.extend(await _legacy(cluster, root))
    return Discovery(tuple(found))


def _aggregated(groups: Iterable[Mapping[str, Any]]) -> Iterable[ApiResource]:
    for group in groups:
        name = str((group.get("metadata") or {}).get("name") or "")
        for position, version in enumerate(group.get("versions") or ()):
            for resource in version.get("resources") or ():
                kind = (resource.get("responseKind") or {}).get("kind")
                if not kind:
                    continue
                yield ApiResource(
                    group=name,
                    version=str(version.get("version")),
                    kind=str(kind),
                    plural=str(resource.get("resource")),
                    singular=str(resource.get("singularResource") or kind.lower()),
                    namespaced=resource.get("scope") == "Namespaced",
                    short_names=tuple(resource.get("shortNames") or ()),
                    verbs=tuple(resource.get("verbs") or ()),
                    preferred=position == 0,
                )


async def _legacy(cluster: Cluster, answer: Mapping[str, Any]) -> list[ApiResource]:
    """Resources of an ``APIVersions`` (core) or ``APIGroupList`` answer, one request per
    group version."""
    versions: list[tuple[str, str, bool]] = [
        ("", v, i == 0) for i, v in enumerate(answer.get("versions") or ())
    ]
    for group in answer.get("groups") or ():
        preferred = (group.get("preferredVersion") or {}).get("version")
        for version in group.get("versions") or ():
            versions.append((group["name"], version["version"], version["version"] == preferred))

    async def read(group: str, version: str, preferred: bool) -> list[ApiResource]:
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            answer = await cluster.request("GET", path)
        except ApiError:
            return []  # an aggregated API that is down: its types are simply not served
        return [
            ApiResource(
                group=group,
                version=version,
                kind=str(r["kind"]),
                plural=str(r["name"]),
                singular=str(r.get("singularName") or str(r["kind"]).lower()),
                namespaced=bool(r.get("namespaced")),
                short_names=tuple(r.get("shortNames") or ()),
                verbs=tuple(r.get("verbs") or ()),
                preferred=preferred,
            )
            for r in answer.get("resources") or ()
            if "/" not in str(r.get("name"))
        ]

    parts: Sequence[list[ApiResource]] = await asyncio.gather(*(read(*v) for v in versions))
    return [resource for part in parts for resource in part]


__all__ = ["AGGREGATED", "ApiResource", "ClusterError", "Discovery", "discover"]
