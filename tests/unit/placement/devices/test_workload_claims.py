"""Pods' DRA claims come from the workload view: templates named by the pod, and templates
an operator creates from the workload's spec (NIMService DRA auto-creation)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.corpus import corpus_path
from tests.unit.placement.devices._cluster import GPU_CLASS, four_gpu_node
from wlmap.catalog import builtin_registry
from wlmap.errors import PlacementInputError
from wlmap.placement.devices import DeviceState, GangPlanner, PodClaims, Request, read_dra
from wlmap.placement.feed import workload_claims
from wlmap.sources.manifests import Manifest, read_manifests
from wlmap.sources.workloads import WorkloadReader

CASES = Path(__file__).resolve().parents[3] / "catalog" / "cases"


def pod_claims(
    manifests: list[Manifest], file: str = "", warnings: list[str] | None = None
) -> list[PodClaims]:
    found, _ = WorkloadReader(builtin_registry(), manifests).read(manifests)
    inventory = read_dra([m.obj for m in manifests])
    return [
        p
        for f in found
        if f.top_level
        for p in workload_claims(f.view, inventory, file=file, warnings=warnings)
    ]


def test_nimservice_pod_gets_the_template_it_names() -> None:
    path = str(corpus_path("nvidia-nim/dra-manual-llm.yaml"))
    (pod,) = pod_claims(read_manifests([path]))
    (claim,) = pod.claims
    assert claim.name == "ResourceClaimTemplate nim-service/gpu-resourceclaimtemplate"
    assert claim.requests == (Request("gpu", "gpu.nvidia.com", count=1),)
    assert pod.name == "meta-llama3-2-1b-instruct-nim-0"


def test_nimservice_auto_created_claim_is_planned_like_a_named_one() -> None:
    case = yaml.safe_load(
        (
            CASES / "apps-nvidia-com-nimservice-v1alpha1/upstream-dra-auto-creation-example1.yaml"
        ).read_text(encoding="utf-8")
    )
    obj = case["object"]
    obj["spec"]["replicas"] = 2
    pods = pod_claims([Manifest(obj, "llm.yaml")])
    assert [p.devices for p in pods] == [1, 1]
    (claim,) = pods[0].claims
    assert claim.requests[0].device_class == "gpu.nvidia.com"
    # the two pods, one GPU each, get devices from the planner
    state = DeviceState(read_dra([GPU_CLASS, four_gpu_node("n1")]))
    found = GangPlanner(state).plan(pods)
    assert found is not None
    assert len(found.devices) == 2


def test_a_template_missing_from_the_input_names_workload_and_component() -> None:
    path = str(corpus_path("nvidia-nim/dra-manual-llm.yaml"))
    manifests = [m for m in read_manifests([path]) if m.obj.get("kind") != "ResourceClaimTemplate"]
    with pytest.raises(PlacementInputError) as caught:
        pod_claims(manifests, file="llm.yaml")
    assert str(caught.value).startswith(
        "llm.yaml: NIMService nim-service/meta-llama3-2-1b-instruct component "
    )
    assert (
        "ResourceClaimTemplate 'gpu-resourceclaimtemplate' (resourceClaims[0]) is not in the input"
        in str(caught.value)
    )


def test_every_replica_of_a_deployment_gets_its_own_claim_from_the_template() -> None:
    path = str(corpus_path("dra-gpu/quickstart-v1-gpu-test4-deployment.yaml"))
    pods = pod_claims(read_manifests([path]))
    assert [p.name for p in pods] == [f"pod-deployment-{i}" for i in range(4)]
    (claim,) = pods[0].claims
    assert claim.name == "ResourceClaimTemplate gpu-test4/mig-devices"
    assert {r.device_class for r in claim.requests} == {"mig.nvidia.com"}


def test_a_shared_claim_is_left_out_with_a_warning() -> None:
    path = str(corpus_path("dra-gpu/aicr-dra-gpu-test.yaml"))
    warnings: list[str] = []
    assert pod_claims(read_manifests([path]), warnings=warnings) == []
    assert warnings == [
        "Pod dra-test/dra-gpu-test component pod: shared ResourceClaim 'gpu-claim' is not "
        "placed per pod"
    ]
