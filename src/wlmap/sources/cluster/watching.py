"""Watching one type: events as (type, object) pairs, resumed after a dropped connection
and re-listed when the server has forgotten the resource version (410 Gone)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from wlmap.errors import ClusterError
from wlmap.sources.cluster.connection import ApiError, Cluster
from wlmap.sources.cluster.discovery import ApiResource

WATCH_SECONDS = 300
RETRY_SECONDS = 1.0


async def watch_events(
    cluster: Cluster,
    resource: ApiResource,
    namespace: str | None = None,
    field_selector: str | None = None,
    resource_version: str | None = None,
) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """Events of one type from ``resource_version`` on (from now when None), forever.

    A connection that drops is resumed from the last version seen; a version the server no
    longer has starts over from the current state.
    """
    version = resource_version
    while True:
        params: dict[str, Any] = {
            "watch": "true",
            "allowWatchBookmarks": "true",
            "timeoutSeconds": WATCH_SECONDS,
            "fieldSelector": field_selector,
            "resourceVersion": version,
        }
        try:
            async for line in cluster.lines(resource.path(namespace), params):
                event = json.loads(line)
                kind, obj = event.get("type"), event.get("object") or {}
                if kind == "ERROR":
                    if obj.get("code") == 410:
                        version = None
                        break
                    raise ApiError(str(obj.get("message")), int(obj.get("code") or 500))
                version = (obj.get("metadata") or {}).get("resourceVersion") or version
                if kind != "BOOKMARK":
                    obj.setdefault("apiVersion", resource.api_version)
                    obj.setdefault("kind", resource.kind)
                    yield str(kind), obj
        except ApiError as exc:
            if exc.code != 410:
                raise
            version = None
        except ClusterError:
            await asyncio.sleep(RETRY_SECONDS)  # the server went away: resume when it is back
