"""References: a TrainJob's pods come from the runtime it names, passed in by the caller."""

from __future__ import annotations

from tests.corpus import corpus_object
from tests.unit.workload.definitions import define
from wlmap.workload import interpret, prepare, reference_requests

TRAINJOB = define(
    """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: test-trainjob}
spec:
  structureDefinition:
    references:
      - name: runtime
        kind: {group: trainer.kubeflow.org, version: v1alpha1, kind: TrainingRuntime}
        nameExpression: 'if .spec.runtimeRef.kind == "TrainingRuntime" then .spec.runtimeRef.name else empty end'
      - name: clusterRuntime
        kind: {group: trainer.kubeflow.org, version: v1alpha1, kind: ClusterTrainingRuntime}
        nameExpression: 'if (.spec.runtimeRef.kind // "ClusterTrainingRuntime") == "ClusterTrainingRuntime" then .spec.runtimeRef.name else empty end'
    rootComponent:
      name: trainjob
      kind: {group: trainer.kubeflow.org, version: v1alpha1, kind: TrainJob}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          completed: [{byConditions: [{type: Complete, status: "True"}]}]
    childComponents:
      - name: node
        ownerRef: trainjob
        specDefinition:
          podTemplateSpecPath: >-
            ($runtime // $clusterRuntime) | .spec.template.spec.replicatedJobs[]
            | select(.name == "node") | .template.spec.template
        scaleDefinition:
          replicasPath: '.spec.trainer.numNodes // (($runtime // $clusterRuntime) | .spec.mlPolicy.numNodes)'
"""
)


def test_the_caller_learns_what_to_fetch() -> None:
    job = corpus_object("kubeflow-trainjob/01-multi-node.yaml", "TrainJob")
    requests = reference_requests(prepare(TRAINJOB), job)
    assert [(r.reference, r.kind.kind, r.name) for r in requests] == [
        ("runtime", "TrainingRuntime", None),
        ("clusterRuntime", "ClusterTrainingRuntime", "torch-distributed"),
    ]


def test_pods_come_from_the_referenced_runtime() -> None:
    job = corpus_object("kubeflow-trainjob/01-multi-node.yaml", "TrainJob")
    runtime = corpus_object(
        "kubeflow-trainingruntime/torch-distributed.yaml", "ClusterTrainingRuntime"
    )
    view = interpret(TRAINJOB, job, references={"clusterRuntime": runtime}, strict=True)
    node = next(c for c in view.components if c.name == "node")
    assert node.template is not None
    assert node.pods == 3  # spec.trainer.numNodes
    assert view.missing_references == ()


def test_a_missing_reference_is_reported() -> None:
    job = corpus_object("kubeflow-trainjob/01-multi-node.yaml", "TrainJob")
    view = interpret(TRAINJOB, job)
    assert view.missing_references == ("clusterRuntime",)
    assert view.to_dict()["missingReferences"] == ["clusterRuntime"]
    assert "reference $clusterRuntime was not provided" in view.warnings[0]
    node = next(c for c in view.components if c.name == "node")
    assert node.template is None
