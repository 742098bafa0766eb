"""Write-back: only the touched fields change, in every spec shape, in both patch formats."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.corpus import corpus_object
from tests.unit.workload.definitions import JOBSET, KSERVE, LWS, NIM, POD, define
from wlmap.definitions import Definition
from wlmap.errors import WriteBackError
from wlmap.workload import PodChanges, interpret, patch_pods

Path = list[str | int]


def merge_apply(target: Any, patch: Any) -> Any:
    """RFC 7386, written out here so the library's output is checked independently."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_apply(result.get(key), value)
    return result


# (case id, definition, corpus file, kind, component, instance, spec location, metadata location)
CASES: list[tuple[str, Definition, str, str, str, str | None, Path, Path]] = [
    (
        "template",
        JOBSET,
        "jobset/tpu-multislice-v6e-jax.yaml",
        "JobSet",
        "replicatedJob",
        "slice",
        ["spec", "replicatedJobs", 0, "template", "spec", "template", "spec"],
        ["spec", "replicatedJobs", 0, "template", "spec", "template", "metadata"],
    ),
    (
        "nested-template",
        LWS,
        "lws-leaderworkerset/vllm-gpu.yaml",
        "LeaderWorkerSet",
        "leader",
        None,
        ["spec", "leaderWorkerTemplate", "leaderTemplate", "spec"],
        ["spec", "leaderWorkerTemplate", "leaderTemplate", "metadata"],
    ),
    (
        "pod-spec",
        KSERVE,
        "kserve-inferenceservice/tensorflow-gpu.yaml",
        "InferenceService",
        "predictor",
        None,
        ["spec", "predictor"],
        ["metadata"],
    ),
    (
        "pod-itself",
        POD,
        "core-gpu/kai-quickstart-gpu-pod.yaml",
        "Pod",
        "pod",
        None,
        ["spec"],
        ["metadata"],
    ),
]

names = st.text(alphabet="abcdefghij-", min_size=1, max_size=8).filter(lambda s: s[0] != "-")
label_maps = st.dictionaries(names, names, max_size=3)
tolerations = st.lists(
    st.fixed_dictionaries(
        {"key": names, "operator": st.just("Exists"), "effect": st.just("NoSchedule")}
    ),
    max_size=2,
)
changes_strategy = st.builds(
    PodChanges,
    scheduler_name=st.one_of(st.none(), names),
    priority_class_name=st.one_of(st.none(), names),
    labels=label_maps,
    annotations=label_maps,
    node_selector=label_maps,
    tolerations=tolerations,
    scheduling_gates=st.lists(names, max_size=2, unique=True),
)


def strip(doc: Any, spec: Path, meta: Path, changes: PodChanges) -> Any:
    """The document without everything the changes may touch."""
    doc = copy.deepcopy(doc)

    def node(path: Path) -> Any:
        current = doc
        for part in path:
            try:
                current = current[part]
            except (KeyError, IndexError, TypeError):
                return None
        return current

    spec_node, meta_node = node(spec), node(meta)
    if isinstance(spec_node, dict):
        for field in ("schedulerName", "priorityClassName", "tolerations", "schedulingGates"):
            spec_node.pop(field, None)
        selector = spec_node.get("nodeSelector")
        if isinstance(selector, dict):
            for key in changes.node_selector:
                selector.pop(key, None)
            if not selector:
                spec_node.pop("nodeSelector")
    if isinstance(meta_node, dict):
        for field, keys in (("labels", changes.labels), ("annotations", changes.annotations)):
            values = meta_node.get(field)
            if isinstance(values, dict):
                for key in keys:
                    values.pop(key, None)
                if not values:
                    meta_node.pop(field)
        if not meta_node:
            parent = node(meta[:-1])
            if isinstance(parent, dict):
                parent.pop(meta[-1], None)
    return doc


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(changes=changes_strategy)
def test_patch_writes_exactly_the_fields(case: tuple[Any, ...], changes: PodChanges) -> None:
    _id, definition, relative, kind, component, instance, spec_at, meta_at = case
    original = corpus_object(relative, kind)
    before = copy.deepcopy(original)
    patch = patch_pods(definition, original, component, changes, instance=instance)
    assert original == before, "the input object must not be modified"
    assert jsonpatch.apply_patch(original, patch.json_patch) == patch.patched
    assert merge_apply(original, patch.merge_patch) == patch.patched
    view = interpret(definition, patch.patched, strict=True)
    template = next(
        c.template for c in view.components if c.name == component and c.instance == instance
    )
    assert template is not None
    spec, metadata = template["spec"], template["metadata"]
    if changes.scheduler_name is not None:
        assert spec["schedulerName"] == changes.scheduler_name
    if changes.priority_class_name is not None:
        assert spec["priorityClassName"] == changes.priority_class_name
    for key, value in changes.labels.items():
        assert metadata["labels"][key] == value
    for key, value in changes.annotations.items():
        assert metadata["annotations"][key] == value
    for key, value in changes.node_selector.items():
        assert spec["nodeSelector"][key] == value
    for toleration in changes.tolerations:
        assert toleration in spec["tolerations"]
    gates = [g["name"] for g in spec.get("schedulingGates", [])]
    assert all(gates.count(gate) == 1 for gate in changes.scheduling_gates)
    assert strip(patch.patched, spec_at, meta_at, changes) == strip(
        original, spec_at, meta_at, changes
    )


def test_writing_into_a_bare_pod_keeps_everything_else() -> None:
    original = corpus_object("core-gpu/kai-quickstart-gpu-pod.yaml", "Pod")
    assert original["spec"]["schedulerName"] == "kai-scheduler"
    patch = patch_pods(
        POD, original, "pod", PodChanges(scheduler_name="volcano", labels={"team": "a"})
    )
    assert patch.json_patch == [
        {"op": "replace", "path": "/spec/schedulerName", "value": "volcano"},
        {"op": "add", "path": "/metadata/labels/team", "value": "a"},
    ]
    assert patch.merge_patch == {
        "spec": {"schedulerName": "volcano"},
        "metadata": {"labels": {"team": "a"}},
    }
    assert patch.patched["apiVersion"] == "v1" and patch.patched["kind"] == "Pod"


def test_labels_merge_and_none_removes() -> None:
    original = corpus_object("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet")
    patch = patch_pods(LWS, original, "leader", PodChanges(labels={"team": "a", "role": None}))
    labels = patch.patched["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["metadata"]["labels"]
    assert labels == {"team": "a"}
    assert {op["op"] for op in patch.json_patch} == {"add", "remove"}


def test_fragmented_fields_write_through_their_own_paths() -> None:
    original = corpus_object("nvidia-nim/standalone-basic-llm.yaml", "NIMService")
    patch = patch_pods(NIM, original, "nim", PodChanges(scheduler_name="kai", labels={"team": "a"}))
    assert patch.patched["spec"]["schedulerName"] == "kai"
    assert patch.patched["spec"]["labels"] == {"team": "a"}
    with pytest.raises(WriteBackError, match="no path for it"):
        patch_pods(
            NIM, original, "nim", PodChanges(tolerations=[{"key": "gpu", "operator": "Exists"}])
        )


def test_read_only_projection_is_refused_clearly() -> None:
    definition = define(
        """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: projection}
spec:
  structureDefinition:
    rootComponent:
      name: x
      kind: {group: apps.nvidia.com, version: v1alpha1, kind: NIMService}
      specDefinition:
        podSpecPath: '{containers: [{name: "main", resources: .spec.resources}]}'
      statusDefinition:
        phaseDefinition: {path: .status.state}
        statusMappings:
          running: [{byPhase: Ready}]
"""
    )
    original = corpus_object("nvidia-nim/standalone-basic-llm.yaml", "NIMService")
    assert interpret(definition, original, strict=True).total_pods == 1  # readable
    with pytest.raises(WriteBackError, match="read-only projection"):
        patch_pods(definition, original, "x", PodChanges(scheduler_name="kai"))


def test_unknown_component_or_instance_is_refused() -> None:
    original = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    with pytest.raises(WriteBackError, match="no component 'ghost'"):
        patch_pods(JOBSET, original, "ghost", PodChanges(scheduler_name="x"))
    with pytest.raises(WriteBackError, match="no instance 'ghost'"):
        patch_pods(
            JOBSET, original, "replicatedJob", PodChanges(scheduler_name="x"), instance="ghost"
        )
    with pytest.raises(WriteBackError, match="describes no pods"):
        patch_pods(JOBSET, original, "jobset", PodChanges(scheduler_name="x"))


def test_resource_claims_are_upserted_by_name() -> None:
    original = corpus_object("core-gpu/kai-quickstart-gpu-pod.yaml", "Pod")
    first = patch_pods(
        POD,
        original,
        "pod",
        PodChanges(resource_claims=[{"name": "gpu", "resourceClaimTemplateName": "a"}]),
    )
    second = patch_pods(
        POD,
        first.patched,
        "pod",
        PodChanges(resource_claims=[{"name": "gpu", "resourceClaimTemplateName": "b"}]),
    )
    assert second.patched["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "b"}
    ]
