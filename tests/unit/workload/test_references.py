"""References: a TrainJob's pods come from the runtime it names, passed in by the caller."""

from __future__ import annotations

import pytest

from tests.corpus import corpus_object
from tests.unit.workload.definitions import define
from wlmap.definitions import definition_from_mapping
from wlmap.errors import ExpressionError
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


CHILDREN = define(
    """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: test-children}
spec:
  structureDefinition:
    references:
      - name: cliques
        kind: {group: grove.io, version: v1alpha1, kind: PodClique}
        ownedByWorkload: true
        labelSelectorExpression: '{"app.kubernetes.io/part-of": .metadata.name}'
    rootComponent:
      name: set
      kind: {group: grove.io, version: v1alpha1, kind: PodCliqueSet}
      statusDefinition:
        statusMappings:
          degraded:
            - byExpression:
                expression: '[$cliques[].status.conditions[]? | select(.type == "MinAvailableBreached" and .status == "True")] | length > 0'
                expectedResult: "true"
          running:
            - byExpression:
                expression: '[$cliques[].status.conditions[]? | select(.type == "MinAvailableBreached" and .status == "True")] | length == 0'
                expectedResult: "true"
"""
)


def _set() -> dict[str, object]:
    pcs = corpus_object("grove-podcliqueset/simple1.yaml", "PodCliqueSet")
    return {**pcs, "metadata": {**pcs["metadata"], "namespace": "ml", "uid": "pcs-uid"}}


def test_a_selection_asks_for_labels_and_the_workload_as_owner() -> None:
    (request,) = reference_requests(prepare(CHILDREN), _set())
    assert request.many and request.name is None and request.namespace == "ml"
    assert request.label_selector == "app.kubernetes.io/part-of=simple1"
    assert request.owner is not None and request.owner.uid == "pcs-uid"


def test_a_selection_is_bound_as_a_list_and_never_missing() -> None:
    breached = {"status": {"conditions": [{"type": "MinAvailableBreached", "status": "True"}]}}
    view = interpret(CHILDREN, _set(), references={"cliques": [breached]}, strict=True)
    assert view.phases == ("Degraded",)
    alone = interpret(CHILDREN, _set(), strict=True)
    assert alone.phases == ("Running",)  # none given: an empty list, not null
    assert alone.missing_references == ()


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ('"part-of=simple1"', "a map of label names to values, got str"),
        ('{"app": 3}', "valid label values"),
        ('{"app": "not a value"}', "valid label values"),
        ('{"not a key": "x"}', "label names such as app.kubernetes.io/part-of"),
        ('{"Example.com/app": "x"}', "label names such as"),
    ],
)
def test_a_label_selector_that_is_not_labels_is_a_located_error(expression: str, says: str) -> None:
    doc = CHILDREN.model_dump(by_alias=True, exclude_none=True, mode="json")
    doc["spec"]["structureDefinition"]["references"][0]["labelSelectorExpression"] = expression
    definition = definition_from_mapping(doc)
    with pytest.raises(ExpressionError) as caught:
        reference_requests(prepare(definition), _set())
    assert caught.value.field == "spec.structureDefinition.references[0].labelSelectorExpression"
    assert says in caught.value.reason
    # interpreting reports it and still gives a view
    assert any(says in warning for warning in interpret(definition, _set()).warnings)


def test_a_selector_that_gives_nothing_selects_nothing() -> None:
    doc = CHILDREN.model_dump(by_alias=True, exclude_none=True, mode="json")
    reference = doc["spec"]["structureDefinition"]["references"][0]
    reference.update(ownedByWorkload=False, labelSelectorExpression=".metadata.labels.missing")
    definition = definition_from_mapping(doc)
    (request,) = reference_requests(prepare(definition), _set())
    assert not request.applies  # not "every PodClique of the namespace"
    reference.update(labelSelectorExpression="{}")
    (request,) = reference_requests(prepare(definition_from_mapping(doc)), _set())
    assert request.applies and request.label_selector is None  # {} selects all, as in the API
