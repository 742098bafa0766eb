"""One pod's claims on one node, found as the in-tree allocator finds them: devices in slice
order, the first that fits, backtracking when a matchAttribute constraint cannot be met."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.placement.devices._cluster import GPU_CLASS, PCIE_ROOT, gpu, node_slice, state_of
from wlmap.errors import PlacementInputError
from wlmap.placement.devices import DeviceState, PodClaims, allocate_pod, read_dra


def claim(requests: list[dict[str, Any]], constraints: list[dict[str, Any]] | None = None) -> Any:
    obj = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "ml"},
        "spec": {"devices": {"requests": requests, "constraints": constraints or []}},
    }
    return read_dra([obj]).claims["c"]


def gpus(name: str, count: int = 1, **extra: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": "gpu.nvidia.com", "count": count, **extra}}


def picked(
    state: DeviceState, *requests: dict[str, Any], constraints: Any = None
) -> list[str] | None:
    pod = PodClaims("p", (claim(list(requests), constraints),))
    found = allocate_pod(pod, "n1", state.free("n1"), state)
    return None if found is None else [f"{c.request}={c.device.name}" for c in found]


ROOTS = node_slice("n1", [gpu(0, "pci0"), gpu(1, "pci1"), gpu(2, "pci1")])
SAME_ROOT = [{"matchAttribute": PCIE_ROOT}]


def test_without_constraint_the_first_devices_in_slice_order_are_taken() -> None:
    assert picked(state_of(ROOTS), gpus("g", 2)) == ["g=gpu-0", "g=gpu-1"]


def test_match_attribute_backtracks_past_a_device_whose_root_has_no_partner() -> None:
    # gpu-0 is tried first; pci0 has no second free GPU, so the search moves to gpu-1
    assert picked(state_of(ROOTS), gpus("g", 2), constraints=SAME_ROOT) == ["g=gpu-1", "g=gpu-2"]


def test_a_device_without_the_attribute_never_satisfies_the_constraint() -> None:
    bare = gpu(0, "pci0")
    del bare["attributes"][PCIE_ROOT]
    node = node_slice("n1", [bare, gpu(1, "pci1"), gpu(2, "pci1")])
    assert picked(state_of(node), gpus("g", 2), constraints=SAME_ROOT) == ["g=gpu-1", "g=gpu-2"]
    assert picked(state_of(node), gpus("g", 3), constraints=SAME_ROOT) is None


def test_constraint_across_two_requests_moves_the_first_request() -> None:
    # a takes gpu-0 (pci0); b then finds no free pci0 GPU, so a is moved to gpu-1
    assert picked(state_of(ROOTS), gpus("a"), gpus("b"), constraints=SAME_ROOT) == [
        "a=gpu-1",
        "b=gpu-2",
    ]


def test_constraint_naming_one_request_leaves_the_other_free() -> None:
    only_b = [{"matchAttribute": PCIE_ROOT, "requests": ["b"]}]
    assert picked(state_of(ROOTS), gpus("a"), gpus("b", 2), constraints=only_b) == [
        "a=gpu-0",
        "b=gpu-1",
        "b=gpu-2",
    ]


def test_allocated_devices_are_skipped_and_an_impossible_claim_finds_nothing() -> None:
    state = state_of(ROOTS, taken={"n1": [2]})
    assert picked(state, gpus("g", 2), constraints=SAME_ROOT) is None
    assert state.allocated == {("gpu.nvidia.com", "n1", "gpu-2")}


def test_selectors_of_the_request_filter_candidates() -> None:
    node = node_slice("n1", [gpu(0, "pci0", product="A100"), gpu(1, "pci0"), gpu(2, "pci1")])
    h100 = ["device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA H100')"]
    selectors = [{"cel": {"expression": e}} for e in h100]
    assert picked(state_of(node), gpus("g", 2, selectors=selectors)) == ["g=gpu-1", "g=gpu-2"]


def test_all_mode_takes_every_matching_device_or_none() -> None:
    every = {"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "All"}}
    assert picked(state_of(ROOTS), every) == ["g=gpu-0", "g=gpu-1", "g=gpu-2"]
    assert picked(state_of(ROOTS, taken={"n1": [0]}), every) is None


def test_first_available_falls_back_to_the_next_alternative() -> None:
    request = {
        "name": "g",
        "firstAvailable": [
            {"name": "four", "deviceClassName": "gpu.nvidia.com", "count": 4},
            {"name": "two", "deviceClassName": "gpu.nvidia.com", "count": 2},
        ],
    }
    assert picked(state_of(ROOTS), request) == ["g/two=gpu-0", "g/two=gpu-1"]


def test_a_missing_device_class_names_the_claim_and_request() -> None:
    state = DeviceState(read_dra([ROOTS, GPU_CLASS]))
    pod = PodClaims("p", (claim([{"name": "n", "exactly": {"deviceClassName": "nic"}}]),))
    with pytest.raises(
        PlacementInputError, match=r"ResourceClaim ml/c request n: DeviceClass 'nic'"
    ):
        allocate_pod(pod, "n1", state.free("n1"), state)


def test_constraint_naming_an_alternative_applies_when_that_alternative_is_used() -> None:
    request = {
        "name": "g",
        "firstAvailable": [{"name": "pair", "deviceClassName": "gpu.nvidia.com", "count": 2}],
    }
    on_pair = [{"matchAttribute": PCIE_ROOT, "requests": ["g/pair"]}]
    assert picked(state_of(ROOTS), request, constraints=on_pair) == ["g/pair=gpu-1", "g/pair=gpu-2"]
