"""The DRA side of the placement controller: which pods it places by devices, and the
grants narrowing their claims needs, given only with placement."""

from __future__ import annotations

from typing import Any

from wlmap.operator.deploy import rbac
from wlmap.operator.placing._claims import NARROWED_FROM, PLANNED, held, narrowed
from wlmap.operator.placing.devices import template_claims

DRA = "resource.k8s.io"


def _verbs(rules: list[dict[str, Any]], group: str, resource: str) -> set[str]:
    found: set[str] = set()
    for rule in rules:
        if group in rule["apiGroups"] and resource in rule["resources"]:
            found.update(rule["verbs"])
    return found


def test_pods_are_placed_by_devices_for_their_template_claims_only() -> None:
    pod = {
        "spec": {
            "resourceClaims": [
                {"name": "mig-devices", "resourceClaimTemplateName": "mig-devices"},
                {"name": "shared", "resourceClaimName": "gpu-claim"},
            ]
        }
    }
    assert template_claims(pod) == {"mig-devices": "mig-devices"}
    assert template_claims({"spec": {}}) == {}


def test_replacing_claims_is_granted_only_with_placement() -> None:
    plain, placing = rbac.namespaced_rules(), rbac.namespaced_rules(placement=True)
    assert _verbs(plain, DRA, "resourceclaims") == {"list", "watch"}
    assert _verbs(placing, DRA, "resourceclaims") == {"create", "delete", "list", "watch"}
    assert _verbs(plain, "", "pods/status") == set()
    assert _verbs(placing, "", "pods/status") == {"patch"}
    assert _verbs(placing, DRA, "resourceclaimtemplates") == {"list"}
    for resource in ("resourceslices", "deviceclasses", "resourceclaims"):
        assert _verbs(rbac.cluster_rules(), DRA, resource) == set()
    for resource in ("deviceclasses", "resourceclaims"):
        assert _verbs(rbac.cluster_rules(placement=True), DRA, resource) == {"list"}
    # a device removed from a slice is a fault: slices are watched, never written
    assert _verbs(rbac.cluster_rules(placement=True), DRA, "resourceslices") == {"list", "watch"}


def test_a_narrowed_claim_holds_its_planned_devices_until_allocated() -> None:
    planned = "gpu.nvidia.com/node-a/gpu-0,gpu.nvidia.com/rack-1/node-b/gpu-3"
    claim: dict[str, Any] = {
        "metadata": {"annotations": {NARROWED_FROM: "pod-0-gpus-abcde", PLANNED: planned}}
    }
    assert narrowed(claim)
    assert held(claim) == [
        ("gpu.nvidia.com", "node-a", "gpu-0"),
        ("gpu.nvidia.com", "rack-1/node-b", "gpu-3"),  # a pool name may hold slashes
    ]
    result = {"driver": "gpu.nvidia.com", "pool": "node-a", "device": "gpu-1", "request": "r"}
    claim["status"] = {"allocation": {"devices": {"results": [result]}}}
    assert held(claim) == [("gpu.nvidia.com", "node-a", "gpu-1")]  # the allocation wins
    assert not narrowed({"metadata": {}}) and not narrowed(None)
