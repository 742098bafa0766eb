"""The placement controller: the gate, the cluster's capacity, plans for gated gangs,
their devices, and the faults that take nodes and devices out of them."""

from __future__ import annotations

from wlmap.operator.placing._slice_faults import register_fault_watches
from wlmap.operator.placing.capacity import CapacityCache
from wlmap.operator.placing.gating import opted_in, register_webhook
from wlmap.operator.placing.placement import place
from wlmap.operator.placing.placement_condition import restate, waiting_reason
from wlmap.operator.placing.release import release
from wlmap.operator.placing.state import PlacingState

__all__ = [
    "CapacityCache",
    "PlacingState",
    "opted_in",
    "place",
    "register_fault_watches",
    "register_webhook",
    "release",
    "restate",
    "waiting_reason",
]
