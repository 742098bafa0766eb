"""Workload events that change nothing a reconciliation reads are skipped: a Job's status
counts moving as its pods start, or the placement condition, bring no reconciliation;
a change of its spec, labels or annotations does, and so does any change of a workload
whose definition reads its status elsewhere than in its status mappings."""

from __future__ import annotations

import copy
from typing import Any

from wlmap.catalog import builtin_registry
from wlmap.definitions import Definition
from wlmap.operator.runtime.read_keys import ReadKeys, reads_status


def _job() -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "team", "uid": "u1", "resourceVersion": "7"},
        "spec": {"parallelism": 4, "completions": 4, "template": {"spec": {"containers": []}}},
        "status": {"active": 1},
    }


def _definition(api_version: str, kind: str) -> Definition:
    entry = builtin_registry().find(api_version, kind)
    assert entry is not None
    return entry.definition


def test_a_status_change_of_a_reconciled_job_is_skipped_and_a_spec_change_is_not() -> None:
    definition = _definition("batch/v1", "Job")
    assert not reads_status(definition)
    keys = ReadKeys()
    job = _job()
    assert not keys.unchanged(job, definition)  # never reconciled
    keys.reconciled(job)
    later = copy.deepcopy(job)
    later["metadata"]["resourceVersion"] = "9"
    later["status"] = {"active": 4, "ready": 4, "conditions": [{"type": "WlmapPlacement"}]}
    assert keys.unchanged(later, definition)
    scaled = copy.deepcopy(later)
    scaled["spec"]["parallelism"] = 8
    assert not keys.unchanged(scaled, definition)
    labelled = copy.deepcopy(later)
    labelled["metadata"]["annotations"] = {"wlmap.dev/placement": "disabled"}
    assert not keys.unchanged(labelled, definition)
    keys.forget(job)  # its reconciliation failed: the next event runs it again
    assert not keys.unchanged(later, definition)


def test_a_definition_reading_status_outside_its_mappings_never_skips() -> None:
    job = _definition("batch/v1", "Job")
    data = job.model_dump(by_alias=True)
    scale = data["spec"]["structureDefinition"]["rootComponent"]["scaleDefinition"]
    scale["replicasPath"] = ".status.active"
    reading = Definition.model_validate(data)
    assert reads_status(reading)
    keys = ReadKeys()
    keys.reconciled(_job())
    assert not keys.unchanged(_job(), reading)
    assert keys.unchanged(_job(), job)


def test_the_builtin_gang_kinds_are_skipped_on_status_and_status_readers_are_not() -> None:
    for api_version, kind in (
        ("batch/v1", "Job"),
        ("jobset.x-k8s.io/v1alpha2", "JobSet"),
        ("kubeflow.org/v1", "PyTorchJob"),
        ("apps/v1", "StatefulSet"),
    ):
        assert not reads_status(_definition(api_version, kind)), kind
    # a DaemonSet's pods come from its status (one per node scheduled)
    assert reads_status(_definition("apps/v1", "DaemonSet"))
