"""Native suspend: the current state and the patches that suspend and resume."""

from __future__ import annotations

import copy

import pytest

from tests.corpus import corpus_object
from tests.unit.workload.definitions import JOBSET, LWS, define
from wlmap.errors import WriteBackError
from wlmap.workload import interpret, suspend_patch


def test_suspend_then_resume_a_real_jobset() -> None:
    original = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    assert interpret(JOBSET, original, strict=True).suspend.to_dict() == {
        "supported": True,
        "suspended": False,
    }
    suspended = suspend_patch(JOBSET, original)
    assert suspended.json_patch == [{"op": "add", "path": "/spec/suspend", "value": True}]
    assert suspended.merge_patch == {"spec": {"suspend": True}}
    assert interpret(JOBSET, suspended.patched, strict=True).suspend.suspended is True
    resumed = suspend_patch(JOBSET, suspended.patched, resume=True)
    assert resumed.json_patch == [{"op": "replace", "path": "/spec/suspend", "value": False}]
    assert interpret(JOBSET, resumed.patched, strict=True).suspend.suspended is False


def test_suspending_an_already_suspended_object_changes_nothing() -> None:
    original = copy.deepcopy(corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet"))
    original["spec"]["suspend"] = True
    assert suspend_patch(JOBSET, original).json_patch == []


def test_kind_without_native_suspend_says_so() -> None:
    original = corpus_object("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet")
    assert interpret(LWS, original, strict=True).suspend.to_dict() == {
        "supported": False,
        "suspended": None,
    }
    with pytest.raises(WriteBackError, match="no native suspend"):
        suspend_patch(LWS, original)


def test_a_null_resume_value_removes_the_field() -> None:
    definition = define(
        """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: stop-annotation}
spec:
  structureDefinition:
    rootComponent:
      name: nb
      kind: {group: kubeflow.org, version: v1, kind: Notebook}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running: [{byConditions: [{type: Ready, status: "True"}]}]
      suspendDefinition:
        suspendActions:
          - {path: '.metadata.annotations["kubeflow-resource-stopped"]', value: '"stopped"'}
        resumeActions:
          - {path: '.metadata.annotations["kubeflow-resource-stopped"]', value: "null"}
"""
    )
    original = corpus_object("kubeflow-notebook/sample-v1.yaml", "Notebook")
    stopped = suspend_patch(definition, original).patched
    assert interpret(definition, stopped, strict=True).suspend.suspended is True
    resumed = suspend_patch(definition, stopped, resume=True)
    assert resumed.json_patch == [
        {"op": "remove", "path": "/metadata/annotations/kubeflow-resource-stopped"}
    ]
    assert resumed.merge_patch == {"metadata": {"annotations": {"kubeflow-resource-stopped": None}}}
