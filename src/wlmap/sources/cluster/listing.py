"""Listing objects: pages of ``limit`` objects followed by ``continue`` tokens, several
types at once, each item given back the apiVersion and kind the list leaves out."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wlmap.sources.cluster.connection import ApiError, Cluster
from wlmap.sources.cluster.discovery import ApiResource

PAGE_SIZE = 500
PARALLEL_LISTS = 8


@dataclass
class Listing:
    """Objects listed from several types, and the types that could not be listed."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    refused: list[tuple[ApiResource, ApiError]] = field(default_factory=list)


async def list_objects(
    cluster: Cluster,
    resource: ApiResource,
    namespace: str | None = None,
    label_selector: str | None = None,
    page_size: int = PAGE_SIZE,
) -> list[dict[str, Any]]:
    """Every object of one type (in one namespace, or all when None), page by page.

    Raises:
        ApiError: the server refused the list (403 forbidden, 404 type not served...).
    """
    params: dict[str, Any] = {"limit": page_size, "labelSelector": label_selector}
    objects: list[dict[str, Any]] = []
    while True:
        page = await cluster.request("GET", resource.path(namespace), params=params)
        for item in page.get("items") or ():
            if isinstance(item, dict):
                item.setdefault("apiVersion", resource.api_version)
                item.setdefault("kind", resource.kind)
                objects.append(item)
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return objects
        params = {"limit": page_size, "labelSelector": label_selector, "continue": token}


async def list_many(
    cluster: Cluster,
    resources: Sequence[ApiResource],
    namespace: str | None = None,
    selectors: Mapping[ApiResource, str | None] | None = None,
) -> Listing:
    """Objects of several types listed in parallel; refused types are recorded, not raised."""
    gate = asyncio.Semaphore(PARALLEL_LISTS)
    listing = Listing()

    async def one(resource: ApiResource) -> list[dict[str, Any]]:
        async with gate:
            try:
                return await list_objects(
                    cluster, resource, namespace, (selectors or {}).get(resource)
                )
            except ApiError as exc:
                listing.refused.append((resource, exc))
                return []

    for part in await asyncio.gather(*(one(r) for r in resources)):
        listing.objects.extend(part)
    return listing
