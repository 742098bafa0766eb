"""The feed from workloads: what the engines place, read from workload views.

- :mod:`.pod_feed`: a workload's pods as the packing engine's pods;
- :mod:`.gang_feed`: a workload's gang groups, with their topology intent, as gangs;
- :mod:`.claim_feed`: a workload's DRA claims as the devices engine's pod claims.

With the plan, the only part of placement that reads :mod:`wlmap.workload`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wlmap.placement._front_door import attribute

if TYPE_CHECKING:
    from wlmap.placement.feed.claim_feed import workload_claims
    from wlmap.placement.feed.gang_feed import (
        INTENT_GROUP,
        Intent,
        WorkloadGang,
        gang_requests,
        to_gang,
    )
    from wlmap.placement.feed.pod_feed import workload_pods

_WHERE = {
    "gang_requests": "wlmap.placement.feed.gang_feed",
    "Intent": "wlmap.placement.feed.gang_feed",
    "INTENT_GROUP": "wlmap.placement.feed.gang_feed",
    "to_gang": "wlmap.placement.feed.gang_feed",
    "workload_claims": "wlmap.placement.feed.claim_feed",
    "workload_pods": "wlmap.placement.feed.pod_feed",
    "WorkloadGang": "wlmap.placement.feed.gang_feed",
}


def __getattr__(name: str) -> Any:
    return attribute(__name__, _WHERE, name)


__all__ = [
    "INTENT_GROUP",
    "Intent",
    "WorkloadGang",
    "gang_requests",
    "to_gang",
    "workload_claims",
    "workload_pods",
]
