"""Workloads become the pods they would create: per component, replicas times the per-pod
request (CPU, memory, whole GPUs, GPU shares, MIG, accepted models); what the placement
model cannot express is an error naming the workload and the component."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_path
from wlmap.catalog import builtin_registry
from wlmap.errors import PlacementInputError
from wlmap.placement.feed import workload_pods
from wlmap.placement.packing import Pod
from wlmap.sources.manifests import Manifest, read_manifests
from wlmap.sources.workloads import WorkloadReader
from wlmap.workload import WorkloadView


def views(manifests: list[Manifest]) -> list[WorkloadView]:
    found, _ = WorkloadReader(builtin_registry(), manifests).read(manifests)
    return [f.view for f in found if f.top_level]


def corpus_pods(relative: str, **options: Any) -> list[Pod]:
    path = str(corpus_path(relative))
    return [p for v in views(read_manifests([path])) for p in workload_pods(v, **options)]


def inline_pods(text: str, **options: Any) -> list[Pod]:
    manifests = [Manifest(d, "inline.yaml") for d in yaml.safe_load_all(text) if d]
    return [p for v in views(manifests) for p in workload_pods(v, file="inline.yaml", **options)]


def test_raycluster_head_asks_for_four_whole_gpus() -> None:
    (head,) = corpus_pods("ray-raycluster/verl-gpu.yaml")
    assert (head.cpu_milli, head.memory_mib, head.num_gpu, head.gpu_milli) == (
        36_000,
        math.ceil(144e9 / 2**20),  # 144G rounded up to a whole MiB
        4,
        1000,
    )
    assert head.gpu_models is None
    assert head.origin == "RayCluster default/verl-cluster component head"


def test_jobset_gives_replicas_times_parallelism_pods() -> None:
    pods = corpus_pods("scheduling-workload/jobset-was-preemption-high-priority.yaml")
    assert len(pods) == 4  # 2 replicated jobs x parallelism 2
    assert {(p.cpu_milli, p.num_gpu, p.gpu_milli) for p in pods} == {(3000, 0, 0)}
    assert len({p.name for p in pods}) == 4


def test_gpu_fraction_annotation_is_a_share_of_one_gpu() -> None:
    (pod,) = corpus_pods("kai-podgroup/gpu-sharing-fraction-pod.yaml")
    assert (pod.num_gpu, pod.gpu_milli) == (1, 500)


def test_mig_profile_is_a_share_in_sevenths() -> None:
    (pod,) = corpus_pods("dra-gpu/extended-resources-mig-1g-12gb.yaml")
    assert (pod.num_gpu, pod.gpu_milli) == (1, 143)  # 1/7 rounded up


def test_node_selector_names_the_accepted_model() -> None:
    pods = corpus_pods("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml")
    assert pods
    assert {p.gpu_models for p in pods} == {frozenset({"Tesla-T4-SHARED"})}


JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: ml}
spec:
  replicatedJobs:
  - name: worker
    replicas: 2
    template:
      spec:
        parallelism: 3
        completions: 3
        template:
          metadata: {annotations: ANNOTATIONS}
          spec:
            affinity: AFFINITY
            containers:
            - name: trainer
              image: trainer
              resources: {requests: REQUESTS}
"""


def jobset(requests: str, annotations: str = "{}", affinity: str = "{}") -> str:
    return (
        JOBSET.replace("REQUESTS", requests)
        .replace("ANNOTATIONS", annotations)
        .replace("AFFINITY", affinity)
    )


def affinity(*terms: str) -> str:
    listed = ", ".join(f"{{matchExpressions: [{t}]}}" for t in terms)
    return (
        "{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        f"{{nodeSelectorTerms: [{listed}]}}}}}}"
    )


def product(operator: str, *values: str) -> str:
    listed = ", ".join(values)
    return f"{{key: nvidia.com/gpu.product, operator: {operator}, values: [{listed}]}}"


@pytest.mark.parametrize(
    ("terms", "expected"),
    [
        ([product("In", "G2", "T4")], frozenset({"G2", "T4"})),
        ([product("In", "G2"), product("In", "V100M32")], frozenset({"G2", "V100M32"})),
        ([product("NotIn", "T4")], frozenset({"G2", "V100M32"})),
        ([product("In", "G2"), "{key: zone, operator: In, values: [a]}"], None),
        (["{key: nvidia.com/gpu.product, operator: Exists}"], None),
    ],
)
def test_required_node_affinity_gives_accepted_models(
    terms: list[str], expected: frozenset[str] | None
) -> None:
    text = jobset("{nvidia.com/gpu: 2, cpu: 4}", affinity=affinity(*terms))
    pods = inline_pods(text, models=["G2", "T4", "V100M32"])
    assert len(pods) == 6
    assert {p.gpu_models for p in pods} == {expected}
    assert {(p.num_gpu, p.gpu_milli) for p in pods} == {(2, 1000)}


@pytest.mark.parametrize(
    ("requests", "annotations", "says"),
    [
        ("{cpu: 1}", "{gpu-fraction: '1.5'}", "above 1"),
        ("{cpu: 1}", "{gpu-fraction: '0.5', gpu-fraction-num-devices: '2'}", "on each of 2 GPUs"),
        ("{cpu: 1}", "{gpu-memory: '2000'}", "use gpu-fraction"),
        ("{nvidia.com/gpu: 1}", "{gpu-fraction: '0.5'}", "whole GPUs and a GPU share"),
        ("{nvidia.com/mig-1g.10gb: 2}", "{}", "2 MIG devices"),
        ("{nvidia.com/mig-big: 1}", "{}", "no <n>g.<memory> profile"),
        ("{cpu: '-1'}", "{}", "negative"),
    ],
)
def test_pods_the_model_cannot_express_are_located_errors(
    requests: str, annotations: str, says: str
) -> None:
    with pytest.raises(PlacementInputError) as caught:
        inline_pods(jobset(requests, annotations))
    error = caught.value
    assert error.file == "inline.yaml"
    assert str(error).startswith("inline.yaml: JobSet ml/train component pod[worker]: ")
    assert says in str(error)


def test_not_in_without_the_cluster_models_is_an_error() -> None:
    text = jobset("{nvidia.com/gpu: 1}", affinity=affinity(product("NotIn", "T4")))
    with pytest.raises(PlacementInputError, match="without the cluster's models"):
        inline_pods(text)


def test_resources_left_out_are_warned_of(tmp_path: Path) -> None:
    warnings: list[str] = []
    pods = corpus_pods("jobset/tpu-multislice-v6e-jax.yaml", warnings=warnings)
    assert len(pods) == 8
    assert warnings == [
        "JobSet default/v6e-multislice component pod[slice]: google.com/tpu is not modelled; "
        "the pods are placed by CPU, memory and GPUs only"
    ]
