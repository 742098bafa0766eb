"""Why a pod's claims fit no node, counted over nodes, and the constraints a fitting pod
keeps. Each cluster is small enough to see the answer by hand."""

from __future__ import annotations

from tests.unit.placement.devices._cluster import PCIE_ROOT, claim_template, four_gpu_node, state_of
from wlmap.placement.devices import PodClaims, allocate_pod, kept_constraints, read_dra, why_not

A100 = "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-80GB'"


def pod(gpus: int, *, match: str | None = None, selectors: tuple[str, ...] = ()) -> PodClaims:
    template = claim_template("gpus", gpus, match=match, selectors=selectors)
    return PodClaims("p", (read_dra([template]).claims["gpus"],))


def test_a_request_selector_no_device_matches_is_named_with_its_node_count() -> None:
    state = state_of(four_gpu_node("n1"), four_gpu_node("n2"))  # every GPU an H100
    assert why_not(pod(1, selectors=(A100,)), state) == (
        f"2 nodes: ResourceClaimTemplate ml/gpus request gpus: selector #0 {A100!r} "
        "matches 0 free devices, the request needs 1"
    )


def test_too_few_free_devices_of_the_class_and_a_constraint_no_root_keeps() -> None:
    # n1: one free GPU; n2: gpu-1 (pci0) and gpu-2 (pci1) free, never two on one root
    state = state_of(
        four_gpu_node("n1"), four_gpu_node("n2"), taken={"n1": [0, 1, 2], "n2": [0, 3]}
    )
    assert why_not(pod(2, match=PCIE_ROOT), state) == (
        "1 node: ResourceClaimTemplate ml/gpus request gpus: DeviceClass gpu.nvidia.com "
        "matches 1 free device, the request needs 2; 1 node: ResourceClaimTemplate ml/gpus: "
        f"matchAttribute {PCIE_ROOT} cannot be kept"
    )


def test_a_pod_that_fits_alone_is_told_apart_from_one_that_fits_nowhere() -> None:
    state = state_of(four_gpu_node("n1"), four_gpu_node("n2"), taken={"n2": [0, 1, 2, 3]})
    assert why_not(pod(2), state).startswith(
        "1 node: fits alone, but not with the rest of the gang; 1 node: "
    )


def test_a_fitting_pod_names_the_root_its_devices_share() -> None:
    state = state_of(four_gpu_node("n1"), taken={"n1": [0]})
    wanted = pod(2, match=PCIE_ROOT)
    choices = allocate_pod(wanted, "n1", state.free("n1"), state)
    assert choices is not None
    assert kept_constraints(wanted, choices) == [
        f"ResourceClaimTemplate ml/gpus: matchAttribute {PCIE_ROOT} = pci1"
    ]
