"""Counts read by expressions are range-checked: an impossible count is a located error,
never a total and never a gang object asking for it (``minMember: -5``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.corpus import corpus_object
from tests.unit.workload.definitions import define
from wlmap.catalog import builtin_registry
from wlmap.errors import WorkloadShapeError
from wlmap.schedulers import TARGETS
from wlmap.workload import MAX_COUNT, interpret

TEMPLATE = """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: counted}
spec:
  structureDefinition:
    rootComponent:
      name: jobset
      kind: {group: jobset.x-k8s.io, version: v1alpha2, kind: JobSet}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          completed: [{byConditions: [{type: Completed, status: "True"}]}]
    childComponents:
      - name: replicatedJob
        ownerRef: jobset
        instanceIdPath: .spec.replicatedJobs[].name
        specDefinition:
          podTemplateSpecPath: .spec.replicatedJobs[].template.spec.template
        scaleDefinition:
          replicasPath: .spec.replicatedJobs[] | .replicas
          minReplicasPath: .spec.replicatedJobs[] | .minimum // null
        podSelector:
          componentTypeSelector:
            keyPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'
          componentInstanceSelector:
            idPath: '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'
  optimizationInstructions:
    gangScheduling:
      podGroup: {name: jobset}
"""
COUNTED = define(TEMPLATE)
INFINITE = define(TEMPLATE.replace("| .replicas", "| infinite"))

BAD = [-5, 2.5, 1e38, MAX_COUNT + 1, "-5", "2.5", "1e38", "1_000", "0x10", "nan", "inf", True]


def jobset(replicas: Any, minimum: Any = None) -> dict[str, Any]:
    obj = copy.deepcopy(corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet"))
    job = obj["spec"]["replicatedJobs"][0]
    job["replicas"] = replicas
    if minimum is not None:
        job["minimum"] = minimum
    return obj


@pytest.mark.parametrize("value", BAD, ids=repr)
def test_impossible_replicas_are_located_errors(value: Any) -> None:
    obj = jobset(value)
    view = interpret(COUNTED, obj)
    [warning] = [w for w in view.warnings if "replicasPath" in w]
    assert "counted: component 'replicatedJob'" in warning
    assert f"gave {value!r}" in warning
    assert f"whole number from 0 to {MAX_COUNT:,}" in warning
    job = obj["spec"]["replicatedJobs"][0]["name"]
    counted = next(c for c in view.components if c.instance == job)
    assert counted.replicas is None
    assert all(g.min_member >= 0 for g in view.gang_groups)
    for target in ("kai", "volcano"):
        for group in TARGETS[target](view, obj):
            assert 0 <= group["spec"]["minMember"] <= MAX_COUNT
    with pytest.raises(WorkloadShapeError, match="replicasPath"):
        interpret(COUNTED, obj, strict=True)


@pytest.mark.parametrize("value", [-5, MAX_COUNT + 1, 10**40, True, {}, [], 2.5], ids=repr)
def test_impossible_replicas_alone_are_located_errors(value: Any) -> None:
    # the catalog's JobSet reads replicas alone, without minReplicas or maxReplicas
    obj = jobset(value)
    view = interpret(builtin_registry().for_object(obj), obj)
    assert any("replicasPath gave" in w for w in view.warnings), view.warnings
    assert view.total_pods >= 0
    assert all(0 <= g.min_member <= MAX_COUNT for g in view.gang_groups)
    with pytest.raises(WorkloadShapeError, match="replicasPath"):
        interpret(builtin_registry().for_object(obj), obj, strict=True)


@pytest.mark.parametrize("value", [-5, 1e38, "1e38"], ids=repr)
def test_impossible_minimum_is_a_located_error(value: Any) -> None:
    view = interpret(COUNTED, jobset(1, value))
    assert any("minReplicasPath gave" in w for w in view.warnings), view.warnings
    assert all(0 <= g.min_member <= MAX_COUNT for g in view.gang_groups)


def test_infinite_from_jq_is_a_located_error() -> None:
    view = interpret(INFINITE, jobset(1))
    assert any("replicasPath gave 1.79" in w for w in view.warnings), view.warnings


@pytest.mark.parametrize("value", [0, 3, "3", " 3 ", "3.0", MAX_COUNT], ids=repr)
def test_possible_counts_are_kept(value: Any) -> None:
    obj = jobset(value)
    view = interpret(COUNTED, obj, strict=True)
    job = obj["spec"]["replicatedJobs"][0]["name"]
    counted = next(c for c in view.components if c.instance == job)
    assert counted.replicas == int(float(str(value)))


@pytest.mark.parametrize("value", [-5, "1e38"], ids=repr)
def test_impossible_gpu_requests_are_located_errors(value: Any) -> None:
    pod = copy.deepcopy(corpus_object("core-gpu/kai-quickstart-gpu-pod.yaml", "Pod"))
    pod["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": value}}
    view = interpret(builtin_registry().for_object(pod), pod)
    assert any(
        "nvidia.com/gpu" in w and "must be from 0 to 1,000,000 devices" in w for w in view.warnings
    ), view.warnings
    assert view.totals.gpus >= 0


def test_an_upper_bound_may_be_int32s_largest_value() -> None:
    # KubeRay's maxReplicas default: "no bound", not a count of pods
    obj = copy.deepcopy(corpus_object("ray-rayservice/high-throughput-llm-gpu.yaml", "RayService"))
    view = interpret(builtin_registry().for_object(obj), obj, strict=True)
    assert 2**31 - 1 in {c.max_replicas for c in view.components}
