"""Pods attributed to components, instances and replicas; unclaimed pods and empty components."""

from __future__ import annotations

from typing import Any

from tests.corpus import corpus_object
from tests.unit.workload.definitions import JOBSET, LWS, define
from tests.unit.workload.podfactory import make_pod
from wlmap.workload import interpret

RJ = "jobset.sigs.k8s.io/replicatedjob-name"
JOB_INDEX = "jobset.sigs.k8s.io/job-index"
LWS_GROUP = "leaderworkerset.sigs.k8s.io/group-index"
LWS_WORKER = "leaderworkerset.sigs.k8s.io/worker-index"


def jobset_pods(obj: dict[str, Any]) -> list[dict[str, Any]]:
    pods = []
    for job in obj["spec"]["replicatedJobs"]:
        template = job["template"]["spec"]["template"]
        for index in range(job.get("replicas", 1)):
            for pod in range(job["template"]["spec"].get("parallelism", 1)):
                labels = {
                    RJ: job["name"],
                    JOB_INDEX: str(index),
                    "jobset.sigs.k8s.io/jobset-name": "x",
                }
                pods.append(
                    make_pod(f"{job['name']}-{index}-{pod}", template, labels, ready=pod != 0)
                )
    return pods


def lws_pods(obj: dict[str, Any], groups: int = 2, size: int = 2) -> list[dict[str, Any]]:
    """Pods as the LeaderWorkerSet controller creates them: worker 0 of each group leads."""
    template = obj["spec"]["leaderWorkerTemplate"]
    return [
        make_pod(
            f"vllm-{g}-{w}",
            template["leaderTemplate" if w == 0 else "workerTemplate"],
            {LWS_GROUP: str(g), LWS_WORKER: str(w)},
        )
        for g in range(groups)
        for w in range(size)
    ]


def test_pods_land_on_their_instance_and_replica() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    pods = jobset_pods(obj)
    view = interpret(JOBSET, obj, pods=pods, strict=True)
    assert view.pods is not None
    assert all(p.component == "replicatedJob" and p.instance == "slice" for p in view.pods)
    assert sorted({p.replica or "" for p in view.pods}) == ["0", "1"]
    [slice_view] = [c for c in view.components if c.instance == "slice"]
    assert (slice_view.pods_observed, slice_view.pods_ready, slice_view.pods) == (8, 6, 8)
    assert view.components_without_pods == ()


def test_pod_of_an_unknown_instance_is_unclaimed_with_a_reason() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    stray = make_pod("stray", {}, {RJ: "no-such-job"})
    view = interpret(JOBSET, obj, pods=[stray], strict=True)
    assert view.pods is not None
    [placement] = view.pods
    assert placement.component is None
    assert placement.reason is not None and "'no-such-job'" in placement.reason
    assert view.to_dict()["unclaimedPods"][0]["name"] == "stray"
    assert view.components_without_pods == (("replicatedJob", "slice"),)


def test_pod_no_selector_claims() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    view = interpret(JOBSET, obj, pods=[make_pod("other", {}, {"app": "x"})], strict=True)
    assert view.pods is not None
    assert view.pods[0].reason == "no component selector matches the pod"


def test_value_selectors_split_leaders_and_workers_with_group_replicas() -> None:
    obj = corpus_object("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet")
    template = obj["spec"]["leaderWorkerTemplate"]
    pods = []
    for group in range(2):
        pods.append(
            make_pod(
                f"vllm-{group}",
                template["leaderTemplate"],
                {LWS_GROUP: str(group), LWS_WORKER: "0"},
            )
        )
        pods.append(
            make_pod(
                f"vllm-{group}-1",
                template["workerTemplate"],
                {LWS_GROUP: str(group), LWS_WORKER: "1"},
            )
        )
    view = interpret(LWS, obj, pods=pods, strict=True)
    assert view.pods is not None
    assert [(p.name, p.component, p.replica) for p in view.pods] == [
        ("vllm-0", "leader", "0"),
        ("vllm-0-1", "worker", "0"),
        ("vllm-1", "leader", "1"),
        ("vllm-1-1", "worker", "1"),
    ]


def test_single_pod_bearing_component_without_selector_claims_every_pod() -> None:
    definition = define(
        """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: plain-deployment}
spec:
  structureDefinition:
    rootComponent:
      name: deployment
      kind: {group: apps, version: v1, kind: Deployment}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: .spec.replicas}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running: [{byConditions: [{type: Available, status: "True"}]}]
"""
    )
    obj = corpus_object("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml", "Deployment")
    pods = [make_pod(f"p{i}", obj["spec"]["template"], {}) for i in range(2)]
    view = interpret(definition, obj, pods=pods, strict=True)
    assert view.pods is not None
    assert [p.component for p in view.pods] == ["deployment", "deployment"]


def test_match_labels_selector() -> None:
    definition = define(
        """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: labels}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: example.com, version: v1, kind: Thing}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
    childComponents:
      - name: a
        ownerRef: root
        specDefinition: {podTemplateSpecPath: .spec.a}
        podSelector: {componentTypeSelector: {matchLabels: {role: a, tier: gpu}}}
      - name: b
        ownerRef: root
        specDefinition: {podTemplateSpecPath: .spec.b}
        podSelector: {componentTypeSelector: {matchLabels: {role: b}}}
"""
    )
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Thing",
        "spec": {"a": {"spec": {}}, "b": {"spec": {}}},
    }
    pods = [
        make_pod("one", {}, {"role": "a", "tier": "gpu"}),
        make_pod("two", {}, {"role": "a"}),
        make_pod("three", {}, {"role": "b", "tier": "gpu"}),
    ]
    view = interpret(definition, obj, pods=pods, strict=True)
    assert view.pods is not None
    assert [p.component for p in view.pods] == ["a", None, "b"]
