"""GPU counting: extended resources, MIG, sharing annotations, DRA claims, real manifests."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest
import yaml

from tests.corpus import LOADER, corpus_path
from tests.unit.workload.podfactory import container
from wlmap.errors import WorkloadShapeError
from wlmap.workload.gpus import is_gpu_resource, mig_profile
from wlmap.workload.resources import pod_resources, total

Pod = tuple[Mapping[str, Any], Mapping[str, Any]]


def load(relative: str) -> tuple[list[Pod], dict[str, Mapping[str, Any]], list[int]]:
    """Pod specs with their metadata, claim objects by name, and replica counts of a file."""
    path = corpus_path(relative)
    pods: list[Pod] = []
    replicas: list[int] = []
    claims: dict[str, Mapping[str, Any]] = {}
    for doc in yaml.load_all(path.read_text(), Loader=LOADER):
        if not doc:
            continue
        if doc["kind"] in {"ResourceClaim", "ResourceClaimTemplate"}:
            claims[doc["metadata"]["name"]] = doc
        elif doc["kind"] == "Pod":
            pods.append((doc["spec"], doc["metadata"]))
            replicas.append(1)
        elif "template" in doc.get("spec", {}):
            template = doc["spec"]["template"]
            pods.append((template["spec"], template.get("metadata") or {}))
            replicas.append(doc["spec"].get("replicas", 1))
    return pods, claims, replicas


# --- GPUs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource", "is_gpu"),
    [
        ("nvidia.com/gpu", True),
        ("amd.com/gpu", True),
        ("gpu.intel.com/i915", False),
        ("habana.ai/gaudi", False),
        ("nvidia.com/gpumem", False),
        ("nvidia.com/gpucores", False),
        ("gpu", False),
        ("nvidia.com/mig-1g.5gb", False),
    ],
)
def test_what_counts_as_a_whole_gpu(resource: str, is_gpu: bool) -> None:
    assert is_gpu_resource(resource) is is_gpu


def test_gpus_of_every_vendor_add_up_and_other_devices_stay_plain() -> None:
    spec = {
        "containers": [
            container("n", limits={"nvidia.com/gpu": 2, "nvidia.com/gpumem": 1024}),
            container("a", limits={"amd.com/gpu": "1"}),
            container("i", limits={"gpu.intel.com/i915": 1}),
        ]
    }
    result = pod_resources(spec)
    assert result.gpus == 3  # 2 nvidia + 1 amd; i915 is not named */gpu
    assert result.requests["nvidia.com/gpumem"] == 1024
    assert result.requests["gpu.intel.com/i915"] == 1


def test_init_container_gpus_follow_the_max_rule() -> None:
    spec = {
        "initContainers": [container("check", limits={"nvidia.com/gpu": 1})],
        "containers": [container("train", limits={"nvidia.com/gpu": 8})],
    }
    assert pod_resources(spec).gpus == 8  # max(1, 8), the init GPU is reused


def test_mig_profiles_are_kept_apart_from_whole_gpus() -> None:
    spec = {
        "containers": [
            container("a", limits={"nvidia.com/mig-1g.5gb": 2, "nvidia.com/gpu": 1}),
            container("b", limits={"nvidia.com/mig-3g.20gb": 1, "nvidia.com/mig-1g.5gb": 1}),
        ]
    }
    result = pod_resources(spec)
    assert result.mig == {"1g.5gb": 3, "3g.20gb": 1}
    assert result.gpus == 1
    assert mig_profile("nvidia.com/mig-3g.20gb") == "3g.20gb"


def test_gpu_fraction_annotation_asks_for_a_share() -> None:
    spec = {"containers": [container("a")]}
    half = pod_resources(spec, {"annotations": {"gpu-fraction": "0.5"}})
    assert half.gpus == Fraction(1, 2)
    assert half.gpu_fraction.gpus == Fraction(1, 2)
    assert half.gpu_fraction.devices == 1
    two = pod_resources(
        spec, {"annotations": {"gpu-fraction": "0.5", "gpu-fraction-num-devices": "2"}}
    )
    assert two.gpus == 1  # 0.5 of each of 2 devices
    assert two.to_dict()["gpus"] == 1


def test_gpu_memory_annotation_is_memory_not_a_gpu_count() -> None:
    result = pod_resources({"containers": []}, {"annotations": {"gpu-memory": "4096"}})
    assert result.gpus == 0
    assert result.gpu_fraction.memory_mib == 4096


@pytest.mark.parametrize(
    "annotations",
    [
        {"gpu-fraction": "1.5"},
        {"gpu-fraction": "half"},
        {"gpu-fraction": "0"},
        {"gpu-fraction": "0.5", "gpu-fraction-num-devices": "1.5"},
    ],
)
def test_invalid_sharing_annotations_are_a_shape_error(annotations: dict[str, str]) -> None:
    with pytest.raises(WorkloadShapeError, match=r"metadata\.annotations"):
        pod_resources({"containers": []}, {"annotations": annotations})


# --- DRA ---------------------------------------------------------------------------------


def claim_template(*requests: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "spec": {"spec": {"devices": {"requests": list(requests)}}},
    }


def dra_pod(**source: str) -> dict[str, Any]:
    return {
        "containers": [{"name": "c", "resources": {"claims": [{"name": "gpus"}]}}],
        "resourceClaims": [{"name": "gpus", **source}],
    }


def test_dra_template_counts_exact_gpus_per_pod() -> None:
    template = claim_template(
        {"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 4}},
        {"name": "nic", "exactly": {"deviceClassName": "rdma.example.com", "count": 2}},
    )
    result = pod_resources(dra_pod(resourceClaimTemplateName="t"), claims={"t": template})
    assert result.gpus == 4  # the rdma request is not a GPU
    assert result.dra_gpus == 4
    assert result.scaled(3).gpus == 12  # one claim per pod: 4 x 3
    assert result.unresolved_claims == ()


def test_dra_v1beta1_shape_first_available_and_all_mode() -> None:
    template = claim_template(
        {"name": "old", "deviceClassName": "gpu.example.com", "count": 2},
        {
            "name": "pick",
            "firstAvailable": [
                {"name": "big", "deviceClassName": "gpu.nvidia.com", "count": 1},
                {"name": "small", "deviceClassName": "mig.nvidia.com", "count": 2},
            ],
        },
        {
            "name": "every",
            "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "All"},
        },
        {"name": "slice", "exactly": {"deviceClassName": "mig.nvidia.com"}},
    )
    result = pod_resources(dra_pod(resourceClaimTemplateName="t"), claims={"t": template})
    assert result.gpus == 3  # 2 (v1beta1 request) + 1 (preferred firstAvailable choice)
    assert result.mig == {"mig.nvidia.com": 1}  # count defaults to 1
    assert result.dra_all_requests == ("t/every",)


def test_dra_template_carried_in_place_counts_per_pod_without_being_provided() -> None:
    template = claim_template(
        {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}},
    )
    spec: dict[str, Any] = {
        "containers": [{"name": "c"}],
        "resourceClaims": [{"name": "claimtemplate", "resourceClaimTemplate": template}],
    }
    result = pod_resources(spec, claims={})
    assert result.gpus == 2
    assert result.unresolved_claims == ()
    assert result.scaled(3).gpus == 6  # one claim per pod


def test_dra_entry_with_neither_a_name_nor_a_template_is_a_shape_error() -> None:
    spec = {"containers": [{"name": "c"}], "resourceClaims": [{"name": "x", "requests": ["a"]}]}
    with pytest.raises(WorkloadShapeError, match=r"spec.resourceClaims\[0\] must name"):
        pod_resources(spec)


def test_dra_claim_not_provided_is_unresolved() -> None:
    result = pod_resources(dra_pod(resourceClaimTemplateName="missing"), claims={})
    assert result.gpus == 0
    assert result.unresolved_claims == ("missing",)
    assert result.to_dict()["unresolvedClaims"] == ["missing"]


def test_shared_claim_is_counted_once_across_replicas() -> None:
    claim = {
        "kind": "ResourceClaim",
        "spec": {
            "devices": {
                "requests": [
                    {"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}},
                ]
            }
        },
    }
    one = pod_resources(dra_pod(resourceClaimName="shared"), claims={"shared": claim})
    assert one.gpus == 0  # not a per-pod GPU
    assert one.shared_claims["shared"].gpus == 2
    assert one.total_gpus == 2
    five = one.scaled(5)
    assert five.total_gpus == 2  # five pods, still one claim of 2 GPUs
    both = five.add(pod_resources({"containers": [container("a", limits={"nvidia.com/gpu": 1})]}))
    assert both.total_gpus == 3  # the shared 2 + one extended-resource GPU


def test_invalid_dra_count_is_a_shape_error() -> None:
    template = claim_template({"name": "g", "exactly": {"deviceClassName": "gpu.x", "count": 0}})
    with pytest.raises(WorkloadShapeError, match=r"claims\['t'\]\.spec\.spec\.devices\.requests"):
        pod_resources(dra_pod(resourceClaimTemplateName="t"), claims={"t": template})


# --- real manifests ----------------------------------------------------------------------


def test_corpus_dra_quickstart_one_gpu_per_pod() -> None:
    pods, claims, _ = load("dra-gpu/quickstart-v1-gpu-test1.yaml")
    results = [pod_resources(spec, meta, claims) for spec, meta in pods]
    # Each pod makes its own claim from template single-gpu: one request, count defaults to 1.
    assert [r.gpus for r in results] == [1, 1]
    assert total(results).gpus == 2  # 1 + 1, two distinct GPUs


def test_corpus_two_mig_requests_in_one_claim() -> None:
    pods, claims, _ = load("dra-gpu/bats-gpu-multiple-mig.yaml")
    ((spec, meta),) = pods
    result = pod_resources(spec, meta, claims)
    # Template rct-migdevs has requests mig1 and mig2 on mig.nvidia.com, count 1 each: 1 + 1.
    assert result.mig == {"mig.nvidia.com": 2}
    assert result.gpus == 0  # MIG devices are not whole GPUs


def test_corpus_mig_deployment_scales_per_replica() -> None:
    pods, claims, replicas = load("dra-gpu/quickstart-v1-gpu-test4-deployment.yaml")
    ((spec, meta),) = pods
    result = pod_resources(spec, meta, claims).scaled(replicas[0])
    # Template mig-devices: 4 requests on mig.nvidia.com (2 x 1g.5gb, 2g.10gb, 3g.20gb),
    # one device each, per pod; 4 replicas: 4 x 4.
    assert result.mig == {"mig.nvidia.com": 16}


def test_corpus_mig_extended_resource() -> None:
    pods, claims, _ = load("dra-gpu/extended-resources-mig-1g-12gb.yaml")
    ((spec, meta),) = pods
    result = pod_resources(spec, meta, claims)
    assert result.mig == {"1g.12gb": 1}  # limits nvidia.com/mig-1g.12gb: 1
    assert result.gpus == 0


def test_corpus_kai_quickstart_gpu_pod() -> None:
    pods, claims, _ = load("core-gpu/kai-quickstart-gpu-pod.yaml")
    ((spec, meta),) = pods
    result = pod_resources(spec, meta, claims)
    assert result.gpus == 1  # limits nvidia.com/gpu: "1" becomes the request
    assert result.requests == {"nvidia.com/gpu": 1}


def test_corpus_kai_gpu_fraction_pod() -> None:
    pods, claims, _ = load("kai-podgroup/gpu-sharing-fraction-pod.yaml")
    ((spec, meta),) = pods
    assert pod_resources(spec, meta, claims).gpus == Fraction(1, 2)  # gpu-fraction "0.5" x 1


def test_corpus_kai_gpu_memory_pod() -> None:
    pods, claims, _ = load("kai-podgroup/gpu-sharing-memory-pod.yaml")
    ((spec, meta),) = pods
    result = pod_resources(spec, meta, claims)
    assert result.gpu_fraction.memory_mib == 2000  # gpu-memory "2000" MiB
    assert result.gpus == 0


def test_corpus_shared_claim_across_two_pods() -> None:
    pods, claims, _ = load("dra-gpu/quickstart-v1-gpu-test3-shared-claim.yaml")
    results = [pod_resources(spec, meta, claims) for spec, meta in pods]
    # Both pods name ResourceClaim single-gpu (one request, count 1): one GPU for both.
    assert total(results).total_gpus == 1
    assert set(total(results).shared_claims) == {"single-gpu"}


def test_corpus_imex_channel_template_is_unresolved() -> None:
    pods, claims, _ = load("dra-gpu/kai-gpu-imex-computedomain-pod.yaml")
    ((spec, meta),) = pods
    result = pod_resources(spec, meta, claims)
    assert result.gpus == 1  # limits nvidia.com/gpu: "1"
    # The ComputeDomain controller creates template imex-channel-0; the file does not hold it.
    assert result.unresolved_claims == ("imex-channel-0",)


def test_corpus_hami_vgpu_deployment() -> None:
    pods, claims, _ = load("core-gpu/kueue-sample-hami-deployment-vgpu.yaml")
    ((spec, meta),) = pods
    result = pod_resources(spec, meta, claims)
    assert result.gpus == 2  # nvidia.com/gpu: "2" vGPU slices
    assert result.requests["nvidia.com/gpucores"] == 30  # HAMi resources stay plain
    assert result.requests["nvidia.com/gpumem"] == 1024
