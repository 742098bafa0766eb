"""``wlmap infer --crd NAME`` without -f: the CRD, its objects and their pods read live."""

from __future__ import annotations

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load
from tests.integration.wlmapcli import Wlmap
from wlmap.cli._exits import OK

CRD = "jobsets.jobset.x-k8s.io"
INSTANCE_LABEL = '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]'


def test_infer_by_name_lists_the_kinds_objects_and_their_pods(
    wlmap: Wlmap, kube: Kube, namespace: str
) -> None:
    (manifest,) = load("jobset/coordinator.yaml")
    jobset_children(kube, kube.create(manifest, namespace))

    result = wlmap("infer", "--crd", CRD, "--explain")
    assert result.code == OK, result.err
    assert "from the CRD's schema and samples" in result.out
    # the pods' labels, not a placeholder, name each replicated job's instance
    assert INSTANCE_LABEL in result.out
    assert "label values are the instance ids" in result.err


def test_infer_by_name_finds_the_crd_of_the_runtime_a_trainjob_names(
    wlmap: Wlmap, kube: Kube, namespace: str
) -> None:
    (runtime,) = load("kubeflow-trainingruntime/torch-distributed.yaml")
    runtime["metadata"]["name"] = f"infer-{namespace}"[:63]
    kube.create(runtime)
    try:
        result = wlmap("infer", "--crd", "trainjobs.trainer.kubeflow.org", "--explain")
    finally:
        kube.delete(runtime)
    assert result.code == OK, result.err
    # the TrainJob holds no pod template: the cluster's ClusterTrainingRuntime CRD does
    assert "kind: ClusterTrainingRuntime" in result.out
    assert "$clusterTrainingRuntime | .spec.template.spec.replicatedJobs[]?" in result.out
    assert "reference: $clusterTrainingRuntime  [shape] .spec.runtimeRef" in result.err
    # the runtime listed from the cluster shows its trainer step: numNodes counts its pods
    assert "replicasPath: .spec.trainer.numNodes first  [sample]" in result.err
