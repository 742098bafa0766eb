"""GPU totals of every GPU workload in the shared corpus, checked against counts worked by hand.

Each expected value below was worked out from the manifest itself (replicas, parallelism,
group sizes, DRA device counts, sharing annotations), with the arithmetic beside it, so a
definition that reads the wrong field or misses a multiplier fails here. Rows marked
``xfail`` keep the hand-worked value where a built-in definition is known to get it wrong.
"""

from __future__ import annotations

import csv
from typing import Any

import pytest

from tests.corpus import CORPUS, corpus_object, corpus_path, missing
from wlmap.catalog import builtin_registry
from wlmap.sources import Inventory, read_manifests
from wlmap.workload import interpret

REGISTRY = builtin_registry()

# (corpus file, kind, metadata.name or generateName, GPUs, MIG devices by profile or class)
GPU_TOTALS: list[tuple[str, str, str, float, dict[str, int] | None] | pytest.ParameterSet] = [
    (
        "codeflare-appwrapper/wrapped-gpu-job.yaml",
        "AppWrapper",
        "sample-gpu-job",
        4,  # 1 wrapped Job x parallelism 1 x 4 nvidia.com/gpu
        None,
    ),
    (
        "core-gpu/aicr-hpa-gpu-test.yaml",
        "Deployment",
        "gpu-workload",
        1,  # 1 replica x 1 nvidia.com/gpu (limits only)
        None,
    ),
    (
        "core-gpu/gpu-operator-tests-plugin-test-deployment.yaml",
        "Deployment",
        "nvidia-plugin-test",
        5,  # 5 replicas x 1 nvidia.com/gpu
        None,
    ),
    (
        "core-gpu/kai-quickstart-gpu-pod.yaml",
        "Pod",
        "gpu-pod",
        1,  # 1 pod x 1 nvidia.com/gpu
        None,
    ),
    (
        "core-gpu/kueue-provisioning-sample-job-gpu.yaml",
        "Job",
        "sample-job-",
        3,  # parallelism 3 x 1 nvidia.com/gpu
        None,
    ),
    (
        "core-gpu/kueue-sample-hami-deployment-vgpu.yaml",
        "Deployment",
        "gpu-burn",
        2,  # 1 replica x 2 nvidia.com/gpu; gpucores and gpumem are not GPU counts
        None,
    ),
    (
        "dra-gpu/aicr-dra-gpu-test.yaml",
        "Pod",
        "dra-gpu-test",
        1,  # claim gpu-claim: 1 request of gpu.nvidia.com, ExactCount 1
        None,
    ),
    (
        "dra-gpu/bats-gpu-multiple-mig.yaml",
        "Pod",
        "pod-2mig",
        0,  # no whole GPUs
        {"mig.nvidia.com": 2},  # template rct-migdevs: requests mig1 + mig2, 1 device each
    ),
    (
        "dra-gpu/extended-resources-mig-1g-12gb.yaml",
        "Pod",
        "mig-1g12gb-pod",
        0,  # no whole GPUs
        {"1g.12gb": 1},  # 1 pod x 1 nvidia.com/mig-1g.12gb
    ),
    (
        "dra-gpu/kai-gpu-imex-computedomain-pod.yaml",
        "Pod",
        "gpu-imex-pod",
        1,  # 1 nvidia.com/gpu; the IMEX channel claim is not a GPU
        None,
    ),
    (
        "dra-gpu/quickstart-v1-gpu-test-mps.yaml",
        "Pod",
        "test-pod",
        1,  # 2 containers share request mps-gpu of one claim: 1 gpu.nvidia.com device
        None,
    ),
    (
        "dra-gpu/quickstart-v1-gpu-test1.yaml",
        "Pod",
        "pod1",
        1,  # own claim from template single-gpu: 1 gpu.nvidia.com device
        None,
    ),
    (
        "dra-gpu/quickstart-v1-gpu-test1.yaml",
        "Pod",
        "pod2",
        1,  # own claim from template single-gpu: 1 gpu.nvidia.com device
        None,
    ),
    (
        "dra-gpu/quickstart-v1-gpu-test3-shared-claim.yaml",
        "Pod",
        "pod1",
        1,  # claim single-gpu (shared with pod2): 1 gpu.nvidia.com device
        None,
    ),
    (
        "dra-gpu/quickstart-v1-gpu-test3-shared-claim.yaml",
        "Pod",
        "pod2",
        1,  # claim single-gpu (shared with pod1): 1 gpu.nvidia.com device
        None,
    ),
    (
        "dra-gpu/quickstart-v1-gpu-test4-deployment.yaml",
        "Deployment",
        "pod",
        0,  # no whole GPUs
        # 4 replicas x 4 mig.nvidia.com requests (1g.5gb, 1g.5gb, 2g.10gb, 3g.20gb)
        {"mig.nvidia.com": 16},
    ),
    (
        "dra-gpu/quickstart-v1-imex-test1.yaml",
        "Deployment",
        "deployment0",
        2,  # 2 replicas x 1 gpu.nvidia.com (template node-gpus); IMEX channel is not a GPU
        None,
    ),
    (
        "dra-gpu/quickstart-v1-imex-test1.yaml",
        "Deployment",
        "deployment1",
        2,  # 2 replicas x 1 gpu.nvidia.com (template node-gpus)
        None,
    ),
    (
        "dra-gpu/quickstart-v1-imex-test1.yaml",
        "Deployment",
        "deployment2",
        2,  # 2 replicas x 1 gpu.nvidia.com (template node-gpus)
        None,
    ),
    (
        "dra-gpu/quickstart-v1-imex-test1.yaml",
        "Deployment",
        "deployment3",
        2,  # 2 replicas x 1 gpu.nvidia.com (template node-gpus)
        None,
    ),
    pytest.param(
        "extracted/dynamographdeployment-with-status-from-aicr-evidence.yaml",
        "DynamoGraphDeployment",
        "vllm-agg",
        1,  # Frontend 0 + VllmDecodeWorker 1 replica x limits.gpu 1
        None,
    ),
    (
        "extracted/mpijob-v2beta1-gpu-with-status-from-readme.yaml",
        "MPIJob",
        "tensorflow-benchmarks",
        2,  # Launcher 1 x 0 + Worker 1 x 2 nvidia.com/gpu
        None,
    ),
    (
        "grove-podcliqueset/e2e-mnnvl-comprehensive-mix-gpu.yaml",
        "PodCliqueSet",
        "mnnvl-mix",
        12,  # 1 replica x 12 cliques (sa1-sa3, p1-p9) x 1 pod x 1 nvidia.com/gpu
        None,
    ),
    (
        "grove-podcliqueset/e2e-mnnvl-gpu-default.yaml",
        "PodCliqueSet",
        "mnnvl-gpu-default",
        1,  # 1 replica x 1 clique x 1 pod x 1 nvidia.com/gpu
        None,
    ),
    (
        "kai-podgroup/aicr-gang-scheduling-test.yaml",
        "Pod",
        "gang-worker-0",
        1,  # claim gang-gpu-claim-0: ExactCount 1 of gpu.nvidia.com
        None,
    ),
    (
        "kai-podgroup/aicr-gang-scheduling-test.yaml",
        "Pod",
        "gang-worker-1",
        1,  # claim gang-gpu-claim-1: ExactCount 1 of gpu.nvidia.com
        None,
    ),
    (
        "kai-podgroup/external-podgroup-job-gpu.yaml",
        "Job",
        "external-batch-job",
        2,  # parallelism 2 x 1 nvidia.com/gpu
        None,
    ),
    (
        "kai-podgroup/gpu-sharing-fraction-pod.yaml",
        "Pod",
        "gpu-sharing",
        0.5,  # gpu-fraction 0.5 x 1 device
        None,
    ),
    (
        "kai-podgroup/gpu-sharing-memory-pod.yaml",
        "Pod",
        "gpu-sharing",
        0,  # gpu-memory 2000 MiB is an amount of memory, not a GPU count
        None,
    ),
    (
        "kai-podgroup/multi-topology-jobs-gpu.yaml",
        "Job",
        "rack-bound-job",
        12,  # parallelism 3 x 4 nvidia.com/gpu
        None,
    ),
    (
        "kai-podgroup/multi-topology-jobs-gpu.yaml",
        "Job",
        "zone-bound-job",
        12,  # parallelism 3 x 4 nvidia.com/gpu
        None,
    ),
    (
        "kserve-inferenceservice/autoscale-gpu.yaml",
        "InferenceService",
        "flowers-sample-gpu",
        1,  # predictor minReplicas 1 (default) x 1 nvidia.com/gpu
        None,
    ),
    (
        "kserve-inferenceservice/hf-storage-gpu.yaml",
        "InferenceService",
        "huggingface-llama2",
        1,  # predictor 1 replica x 1 nvidia.com/gpu
        None,
    ),
    (
        "kserve-inferenceservice/tensorflow-gpu.yaml",
        "InferenceService",
        "tensorflow-gpu",
        1,  # predictor 1 replica x 1 nvidia.com/gpu
        None,
    ),
    (
        "kserve-llminferenceservice/dp-ep-deepseek-r1-gpu-deepep-ht.yaml",
        "LLMInferenceService",
        "deepseek-r1-0528",
        # 1 replica x (data 32 / dataLocal 8 = 1 leader + 3 workers) x 8 nvidia.com/gpu
        32,
        None,
    ),
    (
        "kserve-llminferenceservice/gpt-oss-pd-disaggregation.yaml",
        "LLMInferenceService",
        "gpt-oss-20b",
        3,  # decode 1 replica x 1 + prefill 2 replicas x 1 nvidia.com/gpu
        None,
    ),
    pytest.param(
        "kserve-llminferenceservice/managed-dra-multi-device.yaml",
        "LLMInferenceService",
        "qwen2-7b-instruct-dra-multi",
        2,  # 1 replica x exp-dra-device-count 2 of gpu.nvidia.com (managed DRA claim)
        None,
        marks=pytest.mark.xfail(
            reason="the LLMInferenceService v1alpha2 definition ignores the managed DRA "
            "annotations serving.kserve.io/exp-dra-device-class and exp-dra-device-count, "
            "from which KServe makes a claim for the pod's main container",
            strict=True,
        ),
    ),
    (
        "kserve-llminferenceservice/nemotron-3-ultra-pd.yaml",
        "LLMInferenceService",
        "nemotron-ultra-pd",
        16,  # decode 1 replica x 8 + prefill 1 replica x 8 nvidia.com/gpu
        None,
    ),
    (
        "kserve-llminferenceservice/pd-qwen2-7b-gpu.yaml",
        "LLMInferenceService",
        "qwen2-7b-instruct-pd",
        3,  # decode 1 replica x 1 + prefill 2 replicas x 1 nvidia.com/gpu
        None,
    ),
    (
        "kserve-llminferenceservice/qwen2-7b-amd-no-scheduler.yaml",
        "LLMInferenceService",
        "qwen2-7b-instruct-amd",
        2,  # 2 replicas x 1 amd.com/gpu; no router, so no scheduler pod
        None,
    ),
    (
        "kubeflow-paddlejob/simple-gpu.yaml",
        "PaddleJob",
        "paddle-simple-gpu",
        4,  # Worker 2 replicas x 2 nvidia.com/gpu
        None,
    ),
    (
        "kubeflow-pytorchjob/deepspeed-demo-gpu.yaml",
        "PyTorchJob",
        "pytorch-deepspeed-demo",
        2,  # Master 1 x 1 + Worker 1 x 1 nvidia.com/gpu
        None,
    ),
    (
        "kubeflow-tfjob/multi-worker-gpu.yaml",
        "TFJob",
        "multi-worker",
        2,  # Worker 2 replicas x 1 nvidia.com/gpu
        None,
    ),
    (
        "kubeflow-trainjob/flux-lammps-train-gpus.yaml",
        "TrainJob",
        "lammps-flux",
        2,  # trainer numNodes 2 x resourcesPerNode 1 nvidia.com/gpu (runtime flux-distributed)
        None,
    ),
    (
        "lws-leaderworkerset/kueue-sample-leaderworkerset-tas-gpu.yaml",
        "LeaderWorkerSet",
        "nginx-leaderworkerset",
        4,  # 2 replicas x (leader 0 + (size 3 - 1) workers x 1 nvidia.com/gpu)
        None,
    ),
    (
        "lws-leaderworkerset/sglang-gpu.yaml",
        "LeaderWorkerSet",
        "sglang",
        4,  # 2 replicas x (1 leader + 1 worker) x 1 nvidia.com/gpu
        None,
    ),
    (
        "lws-leaderworkerset/tensorrt-llm-gpu.yaml",
        "LeaderWorkerSet",
        "tensorrt",
        16,  # 1 replica x (1 leader + 1 worker) x 8 nvidia.com/gpu
        None,
    ),
    (
        "lws-leaderworkerset/vllm-gpu.yaml",
        "LeaderWorkerSet",
        "vllm",
        32,  # 2 replicas x (1 leader + 1 worker) x 8 nvidia.com/gpu
        None,
    ),
    pytest.param(
        "nvidia-dynamo/trtllm-disagg-multinode.yaml",
        "DynamoGraphDeployment",
        "trtllm-disagg-tp8",
        16,  # prefill 1 x 2 nodes x limits.gpu 4 + decode 1 x 2 nodes x limits.gpu 4
        None,
    ),
    (
        "nvidia-dynamo/vllm-agg-xpu-dra.yaml",
        "DynamoGraphDeployment",
        "vllm-agg-xpu-dra",
        1,  # VllmDecodeWorker 1 replica x 1 gpu.intel.com device (template gpu-template)
        None,
    ),
    pytest.param(
        "nvidia-dynamo/vllm-disagg-planner.yaml",
        "DynamoGraphDeployment",
        "vllm-disagg-planner",
        2,  # decode 1 replica x limits.gpu 1 + prefill 1 replica x limits.gpu 1
        None,
    ),
    (
        "nvidia-dynamo/vllm-v1beta1-disagg-multinode.yaml",
        "DynamoGraphDeployment",
        "vllm-disagg",
        4,  # decode 1 x 2 nodes x 1 + prefill 1 x 2 nodes x 1 nvidia.com/gpu
        None,
    ),
    (
        "nvidia-dynamo/vllm-v1beta1-disagg.yaml",
        "DynamoGraphDeployment",
        "vllm-disagg",
        2,  # VllmDecodeWorker 1 x 1 + VllmPrefillWorker 1 x 1 nvidia.com/gpu
        None,
    ),
    (
        "nvidia-nemo/nemocustomizer.yaml",
        "NemoCustomizer",
        "nemocustomizer-sample",
        0,  # the API pod asks for none (only a GPU toleration for training jobs)
        None,
    ),
    (
        "nvidia-nim/dra-manual-llm.yaml",
        "NIMService",
        "meta-llama3-2-1b-instruct",
        1,  # 1 replica x ExactCount 1 gpu.nvidia.com (draResources template)
        None,
    ),
    (
        "nvidia-nim/e2e-nimservice.yaml",
        "NIMService",
        "meta-llama3-8b-instruct",
        1,  # 1 replica x 1 nvidia.com/gpu
        None,
    ),
    (
        "nvidia-nim/kserve-knative-llm.yaml",
        "NIMService",
        "meta-llama-3-2-1b-instruct",
        1,  # 1 replica x 1 nvidia.com/gpu (KServe platform, min-scale 1)
        None,
    ),
    (
        "nvidia-nim/multi-node-nimservice.yaml",
        "NIMService",
        "deepseek-r1",
        16,  # 1 replica x (pipeline 2 = 1 leader + 1 worker) x 8 nvidia.com/gpu
        None,
    ),
    (
        "nvidia-nim/standalone-autoscaling-llm.yaml",
        "NIMService",
        "meta-llama-3-2-1b-instruct",
        1,  # 1 replica (HPA minReplicas 1) x 1 nvidia.com/gpu
        None,
    ),
    (
        "nvidia-nim/standalone-basic-llm.yaml",
        "NIMService",
        "meta-llama-3-2-1b-instruct",
        1,  # 1 replica x 1 nvidia.com/gpu
        None,
    ),
    (
        "nvidia-nim/standalone-full-llm.yaml",
        "NIMService",
        "meta-llama-3-2-1b-instruct",
        1,  # 1 replica (HPA minReplicas 1) x 1 nvidia.com/gpu
        None,
    ),
    (
        "ray-raycluster/verl-gpu.yaml",
        "RayCluster",
        "verl-cluster",
        4,  # head 1 x 4 nvidia.com/gpu, no worker groups
        None,
    ),
    (
        "ray-rayjob/pytorch-image-classifier-gpu.yaml",
        "RayJob",
        "pytorch-image-classifier-",
        4,  # head 0 + gpu-group 4 replicas x 1 host x 1 nvidia.com/gpu; submitter 0
        None,
    ),
    (
        "ray-rayservice/deepseek-gpu.yaml",
        "RayService",
        "deepseek-r1",
        16,  # head 0 + gpu-group 2 replicas x 1 host x 8 nvidia.com/gpu
        None,
    ),
    (
        "ray-rayservice/high-throughput-llm-gpu.yaml",
        "RayService",
        "qwen-35-4b",
        4,  # head 0 + gpu-group 4 replicas x 1 host x 1 nvidia.com/gpu
        None,
    ),
    (
        "ray-rayservice/llm-serve-gpu.yaml",
        "RayService",
        "ray-serve-llm",
        4,  # head 0 + gpu-group 1 replica x numOfHosts 1 x 4 nvidia.com/gpu
        None,
    ),
    (
        "seldon-v2-mlops/server-triton-gpu.yaml",
        "Server",
        "triton-gpu",
        1,  # 1 replica (default) x 1 nvidia.com/gpu
        None,
    ),
    (
        "volcano-job/mindspore-gpu.yaml",
        "Job",
        "mindspore-gpu",
        2,  # mpimaster 1 x 0 + mpiworker 2 x 1 nvidia.com/gpu
        None,
    ),
]

# GPU files with no workload of their own for a definition to cover.
NOT_WORKLOADS = {
    "kserve-llminferenceservice/llmisvc-config-pd-disagg.yaml": (
        "an LLMInferenceServiceConfig: its GPUs reach the LLMInferenceServices that name it"
    ),
    "scheduling-workload/jobset-was-dra-resourceclaimtemplate.yaml": (
        "a lone ResourceClaimTemplate, no workload uses it in this file"
    ),
}

# Objects a definition reads from outside the workload's own file, by reference name.
REFERENCES = {
    ("kubeflow-trainjob/flux-lammps-train-gpus.yaml", "TrainJob", "lammps-flux"): {
        "clusterRuntime": ("kubeflow-trainingruntime/flux-runtime.yaml", "ClusterTrainingRuntime"),
    },
}


def row_values(row: tuple[Any, ...] | pytest.ParameterSet) -> tuple[Any, ...]:
    return tuple(row.values) if isinstance(row, pytest.ParameterSet) else row


def row_id(row: tuple[Any, ...] | pytest.ParameterSet) -> str:
    relative, kind, name, *_ = row_values(row)
    return f"{relative}:{kind}/{name}"


def object_name(obj: dict[str, Any]) -> str | None:
    metadata = obj.get("metadata") or {}
    name = metadata.get("name") or metadata.get("generateName")
    return name if isinstance(name, str) else None


def workload_totals(relative: str, kind: str, name: str) -> dict[str, Any]:
    """The ``totals`` of one top-level object, read with the file's DRA claims."""
    manifests = read_manifests([str(corpus_path(relative))])
    claims = Inventory(manifests).claims
    references = {
        reference: corpus_object(file, reference_kind)
        for reference, (file, reference_kind) in REFERENCES.get((relative, kind, name), {}).items()
    }
    for manifest in manifests:
        obj = manifest.obj
        if obj.get("kind") != kind or object_name(obj) != name:
            continue
        entry = REGISTRY.find(obj["apiVersion"], kind)
        assert entry is not None, f"no built-in definition covers {obj['apiVersion']} {kind}"
        view = interpret(entry.definition, obj, claims=claims or None, references=references)
        totals: dict[str, Any] = view.to_dict()["totals"]
        return totals
    raise AssertionError(f"no {kind} named {name} in {relative}")


@pytest.mark.parametrize(
    ("relative", "kind", "name", "gpus", "mig"),
    GPU_TOTALS,
    ids=[row_id(row) for row in GPU_TOTALS],
)
def test_workload_gpu_total(
    relative: str, kind: str, name: str, gpus: float, mig: dict[str, int] | None
) -> None:
    totals = workload_totals(relative, kind, name)
    assert (totals["gpus"], totals["mig"]) == (gpus, mig or {})


def test_rows_name_each_workload_once() -> None:
    keys = [row_values(row)[:3] for row in GPU_TOTALS]
    assert len(keys) == len(set(keys))


def gpu_files() -> set[str]:
    sources = CORPUS / "SOURCES.tsv"
    if not sources.is_file():
        pytest.skip(missing("SOURCES.tsv"))
    with sources.open(encoding="utf-8", newline="") as handle:
        return {
            r["local_path"] for r in csv.DictReader(handle, delimiter="\t") if r["has_gpu"] == "yes"
        }


def test_every_gpu_file_is_checked_or_explained() -> None:
    checked = {row_values(row)[0] for row in GPU_TOTALS}
    assert sorted(gpu_files() - checked - NOT_WORKLOADS.keys()) == []
    assert sorted(checked & NOT_WORKLOADS.keys()) == []


@pytest.mark.parametrize("relative", sorted(NOT_WORKLOADS))
def test_explained_files_hold_no_covered_workload(relative: str) -> None:
    manifests = read_manifests([str(corpus_path(relative))])
    covered = [
        f"{m.obj['kind']}/{object_name(m.obj)}"
        for m in manifests
        if REGISTRY.find(m.obj["apiVersion"], m.obj["kind"]) is not None
    ]
    assert covered == []
