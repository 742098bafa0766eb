"""Gated DRA gangs waiting for devices: which a slice that adds devices wakes, how a
burst of slice events is coalesced into one plan per gang, and which drivers a gang waits
for."""

from __future__ import annotations

from typing import Any

from tests.unit.placement.devices._cluster import (
    DRIVER,
    GPU_CLASS,
    claim_template,
    four_gpu_node,
    gpu,
    node_slice,
)
from wlmap.operator.placing._device_plan import wanted_drivers
from wlmap.operator.placing._device_waits import DeviceWaits
from wlmap.operator.placing._slice_faults import added_devices, slice_devices
from wlmap.placement.devices import read_dra

NIC = "nic.example.com"


def _workload(uid: str) -> dict[str, Any]:
    return {"kind": "Deployment", "metadata": {"name": uid, "namespace": "ml", "uid": uid}}


def test_only_devices_no_slice_listed_count_as_added() -> None:
    whole = slice_devices(four_gpu_node("b1", "B"))
    slices = {"b1": slice_devices(node_slice("b1", [gpu(i, "pci0", "B") for i in range(3)]))}
    assert added_devices(slices, whole) == {(DRIVER, "b1", "gpu-3")}  # published again
    assert added_devices({"b1": whole}, whole) == frozenset()  # republished as it was
    assert added_devices({"b1": whole}, None) == frozenset()  # deleted
    fresh = slice_devices(four_gpu_node("b2", "B"))
    assert added_devices({"b1": whole}, fresh) == fresh  # a new node's slice


def test_added_devices_wake_the_gangs_waiting_for_their_driver_once_per_burst() -> None:
    waits = DeviceWaits()
    waits.wait(_workload("gpus"), {DRIVER})
    waits.wait(_workload("nics"), {NIC})
    waits.wait(_workload("unknown"), ())  # its requests matched no device: any driver
    assert waits.wake({DRIVER}) is True  # the first of a burst: the caller plans them soon
    assert waits.wake({DRIVER}) is False  # the rest of the burst joins that batch
    assert sorted(uid for uid, _ in waits.take_due()) == ["gpus", "unknown"]
    assert waits.take_due() == []
    assert waits.woken == 2
    # still waiting until a plan says otherwise: the next device's return wakes it again
    assert waits.wake({DRIVER}) is True
    waits.done("gpus")  # placed meanwhile
    assert [uid for uid, _ in waits.take_due()] == ["unknown"]
    waits.done("unknown")
    assert waits.wake({DRIVER}) is False and waits.take_due() == []
    assert "nics" in waits and "gpus" not in waits


def test_a_gang_waits_for_the_drivers_its_claims_may_use() -> None:
    nic = node_slice("b0", [{"name": "nic-0", "attributes": {"type": {"string": "nic"}}}])
    nic["metadata"]["name"] = "b0-nic"
    nic["spec"]["driver"] = NIC
    pod = {"spec": {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "four"}]}}
    objects = [GPU_CLASS, claim_template("four", 4), nic]
    assert wanted_drivers(read_dra([*objects, four_gpu_node("b0")], "c.yaml"), [pod]) == {DRIVER}
    # every GPU slice gone: nothing tells which driver will bring them back
    assert wanted_drivers(read_dra(objects, "c.yaml"), [pod]) == frozenset()
