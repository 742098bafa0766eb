"""Claims narrowed to planned devices: the narrowed claim's selectors, evaluated by the
CEL engine over every device, accept exactly the devices the plan gave each request."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.placement.devices._cluster import (
    GPU_CLASS,
    PCIE_ROOT,
    claim_template,
    four_gpu_node,
)
from wlmap.errors import PlacementInputError
from wlmap.placement.devices import (
    DeviceState,
    GangPlanner,
    PodClaims,
    identifying_attributes,
    narrowed_claim_spec,
    read_claim,
    read_dra,
    selector_for,
)


def _with_uuids(node_slice: dict[str, Any]) -> dict[str, Any]:
    node = node_slice["spec"]["nodeName"]
    for device in node_slice["spec"]["devices"]:
        device["attributes"]["uuid"] = {"string": f"GPU-{node}-{device['name']}"}
    return node_slice


def test_a_narrowed_claim_accepts_exactly_the_planned_devices() -> None:
    template = claim_template("pair", 2, match=PCIE_ROOT)
    slices = [_with_uuids(four_gpu_node(n)) for n in ("node-a", "node-b")]
    inventory = read_dra([GPU_CLASS, *slices, template], "cluster.yaml")
    state = DeviceState(inventory)
    state.take(d for d in state.devices("node-a") if d.name == "gpu-0")  # pci0 half used
    pods = [PodClaims(f"p{i}", (inventory.claims["pair"],)) for i in range(2)]
    allocation = GangPlanner(state, (), (PCIE_ROOT,)).plan(pods)
    assert allocation is not None
    identifying = identifying_attributes(inventory.devices)
    assert identifying == {"gpu.nvidia.com": "gpu.nvidia.com/uuid"}
    for _, node, choices in allocation.pods:
        fresh = DeviceState(inventory)
        spec = narrowed_claim_spec(template["spec"]["spec"], choices, identifying)
        narrowed = read_claim(
            {"kind": "ResourceClaim", "metadata": {"name": "c"}, "spec": spec}, ""
        )
        (request,) = narrowed.requests
        accepted = fresh.candidates(narrowed, request, inventory.devices)
        assert {d.key for d in accepted} == {c.device.key for c in choices}
        assert {d.node for d in accepted} == {node}
        assert narrowed.constraints == inventory.claims["pair"].constraints  # kept as written


def test_without_uuid_another_attribute_no_two_devices_share_names_them() -> None:
    nodes = [four_gpu_node(n) for n in ("node-a", "node-b")]
    for node in nodes:
        for device in node["spec"]["devices"]:
            serial = f"S-{node['spec']['nodeName']}-{device['name']}"
            device["attributes"]["serial"] = {"string": serial}
    inventory = read_dra([GPU_CLASS, *nodes], "cluster.yaml")
    # index is unique on each node but repeats across the two: serial names the devices
    assert identifying_attributes(inventory.devices) == {"gpu.nvidia.com": "gpu.nvidia.com/serial"}
    assert selector_for(inventory.devices[:1], {"gpu.nvidia.com": "gpu.nvidia.com/serial"}) == (
        "(device.driver == 'gpu.nvidia.com'"
        " && device.attributes['gpu.nvidia.com'].serial in ['S-node-a-gpu-0'])"
    )


def test_devices_no_attribute_tells_apart_are_an_error_naming_the_driver() -> None:
    inventory = read_dra([GPU_CLASS, four_gpu_node("a"), four_gpu_node("b")], "cluster.yaml")
    with pytest.raises(
        PlacementInputError, match=r"driver 'gpu\.nvidia\.com': expected an attribute"
    ):
        selector_for(inventory.devices[:2], identifying_attributes(inventory.devices))
