"""Components, instances, the three spec shapes and pod counts, on real upstream manifests."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.corpus import corpus_object
from tests.unit.workload.definitions import JOBSET, KSERVE, LWS, NIM, POD
from wlmap.definitions import definition_from_mapping
from wlmap.errors import WorkloadShapeError
from wlmap.workload import ComponentView, WorkloadView, interpret


def component(view: WorkloadView, name: str, instance: str | None = None) -> ComponentView:
    return next(c for c in view.components if c.name == name and c.instance == instance)


def test_jobset_instances_are_keyed_by_replicated_job_name() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    view = interpret(JOBSET, obj, strict=True)
    instances = [c.instance for c in view.components if c.name == "replicatedJob"]
    assert instances == [j["name"] for j in obj["spec"]["replicatedJobs"]]
    assert component(view, "jobset").template is None
    assert all(c.template is not None for c in view.components if c.name == "replicatedJob")


def test_jobset_pods_multiply_replicas_by_parallelism() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    view = interpret(JOBSET, obj, strict=True)
    expected = {
        j["name"]: j.get("replicas", 1) * j["template"]["spec"].get("parallelism", 1)
        for j in obj["spec"]["replicatedJobs"]
    }
    assert {c.instance: c.pods for c in view.components if c.name == "replicatedJob"} == expected
    assert view.total_pods == sum(expected.values())


def test_nested_counts_multiply_through_a_grouping_component() -> None:
    obj = corpus_object("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet")
    view = interpret(LWS, obj, strict=True)
    # replicas 2 groups; each group: 1 leader + (size 2 - 1) = 1 worker
    assert component(view, "group").replicas == 2
    assert component(view, "leader").pods == 2  # 1 x 2 groups
    assert component(view, "worker").pods == 2  # (2 - 1) x 2 groups
    assert view.total_pods == 4
    # every pod asks for 8 GPUs: 4 pods x 8
    assert view.to_dict()["totals"]["gpus"] == 32


def test_pod_spec_and_separate_metadata() -> None:
    obj = corpus_object("kserve-inferenceservice/tensorflow-gpu.yaml", "InferenceService")
    view = interpret(KSERVE, obj, strict=True)
    predictor = component(view, "predictor")
    assert predictor.template is not None
    assert predictor.template["metadata"]["name"] == "tensorflow-gpu"
    assert "tensorflow" in predictor.template["spec"]


def test_elastic_replicas_from_numeric_strings() -> None:
    obj = copy.deepcopy(
        corpus_object("kserve-inferenceservice/tensorflow-gpu.yaml", "InferenceService")
    )
    obj["spec"]["predictor"].update(minReplicas="2", maxReplicas=5)
    predictor = component(interpret(KSERVE, obj, strict=True), "predictor")
    assert (predictor.replicas, predictor.min_replicas, predictor.max_replicas) == (None, 2, 5)
    assert predictor.pods == 2  # no replicas: the minimum is what is asked for


def test_fragmented_spec_builds_one_container() -> None:
    obj = corpus_object("nvidia-nim/standalone-basic-llm.yaml", "NIMService")
    view = interpret(NIM, obj, strict=True)
    nim = component(view, "nim")
    assert nim.template is not None
    [container] = nim.template["spec"]["containers"]
    assert container["image"] == "nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0"
    assert container["resources"] == {"limits": {"nvidia.com/gpu": 1}}
    assert view.to_dict()["totals"]["gpus"] == 1  # 1 replica x limit standing in for request


def test_bare_pod_is_its_own_template() -> None:
    obj = corpus_object("core-gpu/kai-quickstart-gpu-pod.yaml", "Pod")
    view = interpret(POD, obj, strict=True)
    assert component(view, "pod").pods == 1
    assert view.to_dict()["totals"]["gpus"] == 1


def test_count_mismatch_is_reported_not_misaligned() -> None:
    obj = copy.deepcopy(corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet"))
    data = JOBSET.model_dump(mode="json", by_alias=True, exclude_none=True)
    data["spec"]["structureDefinition"]["childComponents"][0]["scaleDefinition"] = {
        "replicasPath": '.spec.replicatedJobs[] | select(.name != "workers") | .replicas'
    }
    broken = definition_from_mapping(data)
    obj["spec"]["replicatedJobs"].append(copy.deepcopy(obj["spec"]["replicatedJobs"][0]))
    obj["spec"]["replicatedJobs"][-1]["name"] = "workers"
    view = interpret(broken, obj)
    assert any("result(s) for" in w and "instance(s)" in w for w in view.warnings)
    assert all(c.replicas is None for c in view.components if c.name == "replicatedJob")
    with pytest.raises(WorkloadShapeError, match="instance"):
        interpret(broken, obj, strict=True)


def test_bad_replica_value_is_reported() -> None:
    obj: dict[str, Any] = copy.deepcopy(
        corpus_object("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet")
    )
    obj["spec"]["replicas"] = "two"
    view = interpret(LWS, obj)
    assert any("'two'" in w and "expected a whole number from 0 to" in w for w in view.warnings)


def test_missing_template_is_absent_not_empty() -> None:
    isvc = {"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService", "spec": {}}
    predictor = component(interpret(KSERVE, isvc, strict=True), "predictor")
    assert predictor.template is None
    assert predictor.pods == 0  # an absent role without a count runs nothing


def test_a_count_without_a_template_still_counts_pods() -> None:
    # The operator may build pods from a template of its own (KubeRay's default submitter):
    # the count is known, the per-pod resources are not.
    obj = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "x"},
        "spec": {"replicatedJobs": [{"name": "a", "replicas": 2}]},
    }
    view = interpret(JOBSET, obj, strict=True)
    job = component(view, "replicatedJob", "a")
    assert job.template is None
    assert (job.pods, job.per_pod) == (2, None)
    assert view.total_pods == 2
