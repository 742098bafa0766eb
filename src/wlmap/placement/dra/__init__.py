"""DRA devices for the placement engine: the ``resource.k8s.io/v1`` model, CEL selectors,
the in-tree allocator's first-fit search and wlmap's gang device planner.

Needs the ``placement`` extra (the CEL engine).
"""

from __future__ import annotations

from wlmap.placement.dra.allocator import DeviceChoice, allocate_pod
from wlmap.placement.dra.gang import GangAllocation, aligned, first_fit_gang
from wlmap.placement.dra.inventory import DraInventory, read_dra, read_dra_file
from wlmap.placement.dra.model import (
    Claim,
    Constraint,
    Device,
    DeviceClass,
    Request,
    Version,
)
from wlmap.placement.dra.planner import GangPlanner
from wlmap.placement.dra.selectors import SelectorEngine
from wlmap.placement.dra.state import DeviceState, PodClaims

__all__ = [
    "Claim",
    "Constraint",
    "Device",
    "DeviceChoice",
    "DeviceClass",
    "DeviceState",
    "DraInventory",
    "GangAllocation",
    "GangPlanner",
    "PodClaims",
    "Request",
    "SelectorEngine",
    "Version",
    "aligned",
    "allocate_pod",
    "first_fit_gang",
    "read_dra",
    "read_dra_file",
]
