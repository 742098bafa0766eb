"""The devices engine: DRA devices for the placement engine.

The ``resource.k8s.io/v1`` model (:mod:`.dra_objects`), CEL selectors (:mod:`.selectors`),
the in-tree allocator's first-fit search (:mod:`.allocator`, :mod:`.gang_allocation`) and
wlmap's gang device planner (:mod:`.gang_planner`), with the reasons a claim does not fit
(:mod:`.diagnose`) and the claim narrowed to the devices chosen (:mod:`.narrowing`).

Needs the ``placement`` extra (the CEL engine).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wlmap.placement._front_door import attribute

if TYPE_CHECKING:
    from wlmap.placement.devices.allocator import DeviceChoice, allocate_pod
    from wlmap.placement.devices.claims import read_claim
    from wlmap.placement.devices.device_state import DeviceState, PodClaims
    from wlmap.placement.devices.diagnose import kept_constraints, why_not
    from wlmap.placement.devices.dra_objects import (
        Claim,
        Constraint,
        Device,
        DeviceClass,
        Request,
        Version,
    )
    from wlmap.placement.devices.gang_allocation import GangAllocation, aligned, first_fit_gang
    from wlmap.placement.devices.gang_planner import GangPlanner
    from wlmap.placement.devices.inventory import DraInventory, read_dra, read_dra_file
    from wlmap.placement.devices.narrowing import (
        identifying_attributes,
        narrowed_claim_spec,
        selector_for,
    )
    from wlmap.placement.devices.scenario import (
        CLIQUE,
        DRIVER,
        GPU_CLASS,
        PCIE_ROOT,
        POLICIES,
        claim_template,
        gang_stream,
        prefilled_state,
        run_scenario,
    )
    from wlmap.placement.devices.selectors import SelectorEngine

_WHERE = {
    "aligned": "wlmap.placement.devices.gang_allocation",
    "allocate_pod": "wlmap.placement.devices.allocator",
    "Claim": "wlmap.placement.devices.dra_objects",
    "claim_template": "wlmap.placement.devices.scenario",
    "CLIQUE": "wlmap.placement.devices.scenario",
    "Constraint": "wlmap.placement.devices.dra_objects",
    "Device": "wlmap.placement.devices.dra_objects",
    "DeviceChoice": "wlmap.placement.devices.allocator",
    "DeviceClass": "wlmap.placement.devices.dra_objects",
    "DeviceState": "wlmap.placement.devices.device_state",
    "DraInventory": "wlmap.placement.devices.inventory",
    "DRIVER": "wlmap.placement.devices.scenario",
    "first_fit_gang": "wlmap.placement.devices.gang_allocation",
    "gang_stream": "wlmap.placement.devices.scenario",
    "GangAllocation": "wlmap.placement.devices.gang_allocation",
    "GangPlanner": "wlmap.placement.devices.gang_planner",
    "GPU_CLASS": "wlmap.placement.devices.scenario",
    "identifying_attributes": "wlmap.placement.devices.narrowing",
    "kept_constraints": "wlmap.placement.devices.diagnose",
    "narrowed_claim_spec": "wlmap.placement.devices.narrowing",
    "PCIE_ROOT": "wlmap.placement.devices.scenario",
    "PodClaims": "wlmap.placement.devices.device_state",
    "POLICIES": "wlmap.placement.devices.scenario",
    "prefilled_state": "wlmap.placement.devices.scenario",
    "read_claim": "wlmap.placement.devices.claims",
    "read_dra": "wlmap.placement.devices.inventory",
    "read_dra_file": "wlmap.placement.devices.inventory",
    "Request": "wlmap.placement.devices.dra_objects",
    "run_scenario": "wlmap.placement.devices.scenario",
    "selector_for": "wlmap.placement.devices.narrowing",
    "SelectorEngine": "wlmap.placement.devices.selectors",
    "Version": "wlmap.placement.devices.dra_objects",
    "why_not": "wlmap.placement.devices.diagnose",
}


def __getattr__(name: str) -> Any:
    return attribute(__name__, _WHERE, name)


__all__ = [
    "CLIQUE",
    "DRIVER",
    "GPU_CLASS",
    "PCIE_ROOT",
    "POLICIES",
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
    "claim_template",
    "first_fit_gang",
    "gang_stream",
    "identifying_attributes",
    "kept_constraints",
    "narrowed_claim_spec",
    "prefilled_state",
    "read_claim",
    "read_dra",
    "read_dra_file",
    "run_scenario",
    "selector_for",
    "why_not",
]
