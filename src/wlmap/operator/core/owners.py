"""Owner chains read from the operator's cluster cache, for every room that walks from a
pod up to its workload (the gate's webhook, the fault evictions, the handlers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.sources.cluster.cache import ClusterCache

__all__ = ["complete_chain"]


async def complete_chain(cache: ClusterCache, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The object's owner chain, nearest first, or nothing when an owner in it has not
    been seen yet (the top workload is unknown; that owner's arrival brings it back)."""
    chain = await cache.owners(obj)
    return [] if cache.index.missing_owner(obj) is not None else chain
