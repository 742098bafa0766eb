"""Faults, live, of DRA devices: which devices count as gone when slices change, and where
the replacement of a pod that lost its devices goes (the devices of its gang's domain, or
nowhere while the domain has no room, never another clique)."""

from __future__ import annotations

from typing import Any

from tests.unit.placement.devices._cluster import (
    CLIQUE,
    DRIVER,
    GPU_CLASS,
    claim_template,
    four_gpu_node,
    gpu,
    node_slice,
)
from wlmap.operator.placing._claims import gang_domain
from wlmap.operator.placing._slice_faults import gone_devices, slice_devices, unlisted_devices
from wlmap.operator.placing.devices import plan_devices
from wlmap.placement.devices import read_dra


def test_a_device_no_slice_lists_any_more_is_gone() -> None:
    b1 = four_gpu_node("b1", "B")
    slices = {"b0": slice_devices(four_gpu_node("b0", "B")), "b1": slice_devices(b1)}
    republished = node_slice("b1", [gpu(i, f"pci{i // 2}", "B") for i in range(3)])
    after, gone = gone_devices(slices, "b1", slice_devices(republished))
    assert gone == {(DRIVER, "b1", "gpu-3")}
    assert after["b1"] == slice_devices(republished)
    # the slice deleted: every device it listed is gone
    _, gone = gone_devices(after, "b1", None)
    assert gone == {(DRIVER, "b1", f"gpu-{i}") for i in range(3)}
    # a slice seen for the first time, or listing more, removes nothing
    assert gone_devices({}, "b1", slice_devices(b1))[1] == frozenset()
    assert gone_devices(after, "b1", slice_devices(b1))[1] == frozenset()


def test_a_device_moved_to_another_slice_of_its_pool_is_not_gone() -> None:
    whole = four_gpu_node("b1", "B")
    first = node_slice("b1", [gpu(i, "pci0", "B") for i in range(2)])
    second = node_slice("b1", [gpu(i, "pci1", "B") for i in range(2, 4)])
    second["metadata"]["name"] = "b1-second"
    slices = {"b1-gpu.nvidia.com": slice_devices(whole), "b1-second": slice_devices(second)}
    _, gone = gone_devices(slices, "b1-gpu.nvidia.com", slice_devices(first))
    assert gone == frozenset()


def _claim(node: str, gpus: range) -> dict[str, Any]:
    results = [
        {"driver": DRIVER, "pool": node, "device": f"gpu-{i}", "request": "gpus"} for i in gpus
    ]
    return {
        "metadata": {"name": f"claim-{node}", "namespace": "ml"},
        "status": {"allocation": {"devices": {"results": results}}},
    }


def test_devices_removed_while_away_are_those_claims_hold_and_no_slice_lists() -> None:
    """Found at start: b1 republished without gpu-3, b2's slice deleted; a claim not
    allocated yet holds nothing."""
    b1 = node_slice("b1", [gpu(i, f"pci{i // 2}", "B") for i in range(3)])
    claims = [_claim("b0", range(4)), _claim("b1", range(2, 4)), _claim("b2", range(1))]
    pending = {"metadata": {"name": "pending", "namespace": "ml"}, "status": {}}
    found = unlisted_devices([four_gpu_node("b0", "B"), b1], [*claims, pending])
    assert found == {(DRIVER, "b1", "gpu-3"), (DRIVER, "b2", "gpu-0")}
    assert unlisted_devices([four_gpu_node("b0", "B")], claims[:1]) == frozenset()


def _replacement() -> dict[str, Any]:
    return {
        "metadata": {"name": "train-new", "namespace": "ml"},
        "spec": {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "four"}]},
    }


def _where(slices: list[dict[str, Any]], bound: list[dict[str, Any]], lost: dict[str, Any]) -> Any:
    """The node and clique the replacement is given, with and without its gang's domain
    (None: it waits)."""
    inventory = read_dra([GPU_CLASS, claim_template("four", 4), *slices], "cluster.yaml")
    domain = gang_domain(inventory, bound, [CLIQUE])
    answers: list[tuple[str, set[str]] | None] = []
    for keep in (domain, {}):
        allocation, _, _ = plan_devices(inventory, [_replacement()], [*bound, lost], [CLIQUE], keep)
        if allocation is None:
            answers.append(None)
        else:
            ((_, node, choices),) = allocation.pods
            answers.append((node, {str(c.device.attributes[CLIQUE]) for c in choices}))
    return domain, answers


def test_the_replacement_of_a_pod_that_lost_a_device_stays_in_its_gangs_clique() -> None:
    """A 2-pod gang of 4 GPUs each on b0 and b1 (clique B); b1 loses gpu-3. With b2 in
    clique B free, the replacement goes there; with no room in B it waits, where a fresh
    plan would put it in clique A, apart from its peer."""
    a0 = four_gpu_node("a0", "A")
    b0, b2 = four_gpu_node("b0", "B"), four_gpu_node("b2", "B")
    b1 = node_slice("b1", [gpu(i, f"pci{i // 2}", "B") for i in range(3)])  # gpu-3 gone
    healthy, lost = _claim("b0", range(4)), _claim("b1", range(4))
    domain, (kept, fresh) = _where([a0, b0, b1, b2], [healthy], lost)
    assert domain == {CLIQUE: "B"}
    assert kept == ("b2", {"B"})
    domain, (kept, fresh) = _where([a0, b0, b1], [healthy], lost)
    assert kept is None
    assert fresh == ("a0", {"A"})


def test_held_devices_that_disagree_leave_the_domain_open() -> None:
    slices = [four_gpu_node("a0", "A"), four_gpu_node("b0", "B")]
    inventory = read_dra([GPU_CLASS, claim_template("four", 4), *slices], "cluster.yaml")
    both = [_claim("a0", range(2)), _claim("b0", range(2))]
    assert gang_domain(inventory, both, [CLIQUE]) == {}
    assert gang_domain(inventory, [None], [CLIQUE]) == {}


def _tainted(node: str, clique: str, effect: str, gpus: range) -> dict[str, Any]:
    """A node's 4-GPU slice with the ``gpus`` tainted ``effect`` by their driver."""
    out = four_gpu_node(node, clique)
    for index in gpus:
        out["spec"]["devices"][index]["taints"] = [
            {"key": "gpu.nvidia.com/unhealthy", "value": "xid-79", "effect": effect}
        ]
    return out


def test_a_device_tainted_no_execute_is_gone_and_no_schedule_is_not() -> None:
    """A NoExecute taint is the driver's word that the device's pods must go: the watch
    counts it as no longer listed (and as listed again once the taint is lifted). A
    NoSchedule taint keeps its pods."""
    slices = {"b1": slice_devices(four_gpu_node("b1", "B"))}
    _, gone = gone_devices(slices, "b1", slice_devices(_tainted("b1", "B", "NoExecute", range(1))))
    assert gone == {(DRIVER, "b1", "gpu-0")}
    _, gone = gone_devices(slices, "b1", slice_devices(_tainted("b1", "B", "NoSchedule", range(4))))
    assert gone == frozenset()
    claims = [_claim("b1", range(4))]
    found = unlisted_devices([_tainted("b1", "B", "NoExecute", range(2, 3))], claims)
    assert found == {(DRIVER, "b1", "gpu-2")}


def test_a_replacement_is_given_no_tainted_device() -> None:
    """The lost pod's replacement in clique B: one of b2's GPUs is tainted NoSchedule (kept by
    nothing, offered to no new claim), so it waits rather than take it, as the
    scheduler's allocator would refuse it; b3 untainted takes it."""
    b0 = four_gpu_node("b0", "B")
    healthy, lost = _claim("b0", range(4)), _claim("b1", range(4))
    b1_gone = node_slice("b1", [gpu(i, f"pci{i // 2}", "B") for i in range(3)])
    tainted = _tainted("b2", "B", "NoSchedule", range(1))
    _, (kept, _) = _where([b0, b1_gone, tainted], [healthy], lost)
    assert kept is None
    _, (kept, _) = _where([b0, b1_gone, tainted, four_gpu_node("b3", "B")], [healthy], lost)
    assert kept == ("b3", {"B"})
