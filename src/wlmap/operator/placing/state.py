"""The placement controller's own state, beside what every room shares: the cluster's
capacity, the gangs waiting for devices, and what the placement condition last said."""

from __future__ import annotations

from dataclasses import dataclass, field

from wlmap.operator.core.shared import Shared
from wlmap.operator.placing._device_waits import DeviceWaits
from wlmap.operator.placing.capacity import CapacityCache

__all__ = ["PlacingState"]


@dataclass
class PlacingState(Shared):
    """What the placement controller keeps between events."""

    capacity: CapacityCache | None = None  # nodes and pods for the placement controller
    device_waits: DeviceWaits = field(default_factory=DeviceWaits)  # DRA gangs without room
    # uid: the placement condition last said (status, reason, message, its Event unsent)
    placement_said: dict[str, tuple[bool, str, str, bool]] = field(default_factory=dict)
