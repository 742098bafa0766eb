"""Every workload object of the shared corpus, interpreted with the built-in catalog."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.corpus import CORPUS, missing
from wlmap.catalog import builtin_registry
from wlmap.errors import ManifestError
from wlmap.sources import Inventory, read_manifests
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import NOT_WORKLOADS
from wlmap.workload import interpret

# Kinds that are not workloads but are not in the CLI's list either: scheduler and
# runtime configuration objects that the corpus holds next to workloads.
CONFIGURATION = frozenset(
    {
        "TrainingRuntime",
        "ClusterTrainingRuntime",
        "WorkflowTemplate",
        "ClusterWorkflowTemplate",
        "LLMInferenceServiceConfig",
        "ServerConfig",
        "ModelConfig",
        "Configuration",
        "Route",
        "Gateway",
        "HTTPRoute",
        "DynamoComponentDeployment",
        "ClusterServingRuntime",
        "ServingRuntime",
        "PodGang",
        "SandboxTemplate",
        "SandboxWarmPool",
        "SandboxClaim",
        "AgenticSandbox",
        "Pipeline",
        "Task",
        "Model",
        "Experiment",
        "LocalModelNode",
        "LocalModelCache",
        "LocalModelNodeGroup",
        "InferenceGraph",
        "ResourceFlavor",
        "ClusterQueue",
        "LocalQueue",
        "WorkloadPriorityClass",
        "HyperNode",
        "Workload",
    }
)
# Coverage measured last (187 of 190 objects); it may only go up.
COVERAGE_FLOOR = 0.98


@dataclass(frozen=True)
class Walked:
    manifest: Manifest
    covered: bool


def workload_objects() -> list[Manifest]:
    # read at collection (a fraction of a second with libyaml) so that each object is a test
    if not CORPUS.is_dir():
        return []
    errors: list[ManifestError] = []  # unreadable files are the CLI tests' concern
    folders = [str(p) for p in sorted(CORPUS.iterdir()) if p.is_dir() and p.name != "crds"]
    manifests = read_manifests(folders, errors)
    return [
        m
        for m in manifests
        if m.obj.get("kind") not in NOT_WORKLOADS | CONFIGURATION
        and isinstance(m.obj.get("spec"), dict)
    ]


OBJECTS = workload_objects()
REGISTRY = builtin_registry()
COVERED = [
    m for m in OBJECTS if REGISTRY.find(str(m.obj.get("apiVersion")), str(m.obj.get("kind")))
]


def covered_params() -> list[object]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=missing()))]
    return [
        pytest.param(m, id=f"{m.origin.split('corpus/')[-1]}:{m.obj.get('kind')}") for m in COVERED
    ]


def test_coverage_does_not_drop(capsys: pytest.CaptureFixture[str]) -> None:
    if not CORPUS.is_dir():
        pytest.skip(missing())
    uncovered = sorted(
        {f"{m.obj.get('kind')} ({m.obj.get('apiVersion')})" for m in OBJECTS}
        - {f"{m.obj.get('kind')} ({m.obj.get('apiVersion')})" for m in COVERED}
    )
    share = len(COVERED) / len(OBJECTS)
    with capsys.disabled():
        print(
            f"\ncorpus coverage: {len(COVERED)}/{len(OBJECTS)} workload objects ({share:.0%}); "
            f"kinds not covered: {', '.join(uncovered) or 'none'}"
        )
    assert share >= COVERAGE_FLOOR


@pytest.mark.parametrize("manifest", covered_params())
def test_covered_object_is_interpreted_fully(manifest: Manifest) -> None:
    obj = manifest.obj
    entry = REGISTRY.find(str(obj.get("apiVersion")), str(obj.get("kind")))
    assert entry is not None
    inventory = Inventory([manifest])
    view = interpret(entry.definition, obj, claims=inventory.claims or None)
    assert [w for w in view.warnings if "reference $" not in w] == []
    if view.missing_references:
        return  # its pods are described by an object the corpus file does not hold
    assert any(c.template is not None for c in view.components) or view.total_pods > 0, (
        "no component has a pod template"
    )
    asks_for_pods = any(
        (c.replicas or 0) > 0 or c.replicas is None for c in view.components if c.template
    )
    if asks_for_pods:
        assert view.total_pods > 0
