"""Start stages under the upstream Workload API: each stage of a workload is a gang of its
own (a PodGroup per stage), and the operator's pod-group webhook creates every pod naming
its stage's PodGroup in ``spec.schedulingGroup`` (immutable after creation, so only
admission can set it)."""

from __future__ import annotations

import copy
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_object, corpus_path
from tests.integration.controllers import jobset_children
from tests.integration.gangcluster import GangCluster, PodEvents
from tests.integration.kube import Kube, load, wait_for
from tests.integration.operator_process import OperatorProcess, workload_api_operator
from tests.integration.testcluster import REPO, TestCluster, free_port
from wlmap.operator.deploy import rbac
from wlmap.operator.deploy.webhooks import service_host, webhook_manifests

WORKLOAD_API = "scheduling.k8s.io/v1alpha2"
ADMISSION = "admissionregistration.k8s.io/v1"
DEPENDS_ON = "jobset/multiple-depends-on.yaml"
WITH_CACHE = "kubeflow-trainingruntime/torch-distributed-with-cache.yaml"
MULTI_NODE = "kubeflow-trainjob/01-multi-node.yaml"
# how long a gang that cannot be satisfied is watched not starting: the JobSet that is
# split in stages completes in less
UNSCHEDULED_SECONDS = 10.0


@pytest.fixture(autouse=True)
def corpus_files() -> None:
    """Skip before any cluster starts when the corpus is not beside the checkout."""
    for relative in (DEPENDS_ON, WITH_CACHE, MULTI_NODE):
        corpus_path(relative)


def pod_groups_by_template(kube: Kube, namespace: str) -> dict[str, str]:
    """PodGroup name by the name of the Workload's gang template it comes from."""
    return {
        group["spec"]["podGroupTemplateRef"]["workload"]["podGroupTemplateName"]: group["metadata"][
            "name"
        ]
        for group in kube.list(WORKLOAD_API, "PodGroup", namespace)
    }


def scheduling_group(pod: dict[str, Any]) -> str | None:
    return ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")


@pytest.fixture
def operator_wapi(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    process = workload_api_operator(kube, cluster.kubeconfig, namespace, tmp_path)
    try:
        yield process
    finally:
        process.stop()


def depends_on_completes_in_stages(
    kube: Kube, namespace: str, pod_events: PodEvents, operator: OperatorProcess
) -> None:
    """The multiple-depends-on JobSet reaches Completed, its pods run as a gang of the 2
    initializers, then one of the 4 workers."""
    (obj,) = load(DEPENDS_ON)
    created = kube.create(obj, namespace)
    wait_for(
        lambda: condition(
            kube.get(created["apiVersion"], "JobSet", namespace, "multiple-depends-on"),
            "Completed",
        ),
        "the JobSet Completed",
        timeout=COMPLETION_TIMEOUT,
    )
    finished_in_stages(kube, namespace, pod_events, [2, 4], operator)


def test_each_pod_is_created_naming_its_stage_podgroup(
    kube: Kube, namespace: str, operator_wapi: OperatorProcess
) -> None:
    """The initializers' pods join the first stage's PodGroup, the workers' the second's:
    the mapping gang sync uses for the other targets' links, applied at creation."""
    (obj,) = load(DEPENDS_ON)
    created = kube.create(obj, namespace)
    groups = wait_for(
        lambda: (found := pod_groups_by_template(kube, namespace)) and len(found) == 2 and found,
        "a PodGroup per stage",
    )
    assert sorted(groups) == ["jobset-dataset-initializer", "jobset-worker"]
    pods = jobset_children(kube, created, ready=False)
    joined = {pod["metadata"]["name"]: scheduling_group(pod) for pod in pods}
    first, second = groups["jobset-dataset-initializer"], groups["jobset-worker"]
    assert joined == {
        "multiple-depends-on-dataset-initializer-0-0": first,
        "multiple-depends-on-model-initializer-0-0": first,
        **{f"multiple-depends-on-worker-0-{i}": second for i in range(4)},
    }, operator_wapi.output()[-3000:]


def test_a_pod_of_an_unserved_namespace_is_left_as_it_came(
    kube: Kube, namespace: str, operator_wapi: OperatorProcess
) -> None:
    other = kube.namespace(f"{namespace}-other"[:63])
    (obj,) = load(DEPENDS_ON)
    created = kube.create(obj, other)
    pods = jobset_children(kube, created, ready=False)
    assert [scheduling_group(pod) for pod in pods] == [None] * 6


# --- under kube-scheduler's gang scheduling, with the real controllers -----------------

CATALOG = REPO / "src" / "wlmap" / "catalog" / "definitions"
COMPLETION_TIMEOUT = 300.0


@pytest.fixture
def gang_namespace(gang_cluster: GangCluster, request: pytest.FixtureRequest) -> str:
    name = re.sub(r"[^a-z0-9-]", "-", request.node.name.lower())[:50].strip("-")
    return gang_cluster.kube.namespace(name)


@pytest.fixture
def pod_events(gang_cluster: GangCluster, gang_namespace: str) -> Iterator[PodEvents]:
    events = PodEvents(gang_cluster.server, gang_namespace).start()
    try:
        yield events
    finally:
        events.stop()


@pytest.fixture
def gang_operator(
    gang_cluster: GangCluster, gang_namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    kube = gang_cluster.kube
    process = workload_api_operator(kube, gang_cluster.server.kubeconfig, gang_namespace, tmp_path)
    try:
        yield process
    finally:
        process.stop()


def condition(obj: dict[str, Any] | None, kind: str) -> bool:
    conditions = ((obj or {}).get("status") or {}).get("conditions") or ()
    return any(c.get("type") == kind and c.get("status") == "True" for c in conditions)


def min_counts(kube: Kube, namespace: str) -> dict[str, int]:
    return {
        group["metadata"]["name"]: int(group["spec"]["schedulingPolicy"]["gang"]["minCount"])
        for group in kube.list(WORKLOAD_API, "PodGroup", namespace)
    }


def finished_in_stages(
    kube: Kube, namespace: str, events: PodEvents, expected: list[int], operator: OperatorProcess
) -> None:
    """Every pod Succeeded in the PodGroup of its stage (one per stage, with the minimums
    ``expected``), and none was bound while its gang was short."""
    groups = min_counts(kube, namespace)
    assert sorted(groups.values()) == sorted(expected), groups
    pods = kube.list("v1", "Pod", namespace)
    assert len(pods) == sum(expected)
    assert {p["metadata"]["name"]: p["status"]["phase"] for p in pods} == {
        p["metadata"]["name"]: "Succeeded" for p in pods
    }
    joined: dict[str, int] = {}
    for pod in pods:
        group = scheduling_group(pod)
        assert group in groups, (pod["metadata"]["name"], group, operator.output()[-3000:])
        joined[group] = joined.get(group, 0) + 1
    assert joined == groups, "each stage's gang held exactly its own pods"
    assert events.bound_while_short(groups) == []


def test_multiple_depends_on_runs_to_completion_one_gang_per_stage(
    gang_cluster: GangCluster,
    gang_namespace: str,
    pod_events: PodEvents,
    gang_operator: OperatorProcess,
) -> None:
    """The initializers (2 pods) form one gang and the worker Job (4 pods), created once
    both completed, another; kube-scheduler binds each gang whole and the JobSet completes."""
    depends_on_completes_in_stages(gang_cluster.kube, gang_namespace, pod_events, gang_operator)


def test_trainjob_with_a_dataset_initializer_runs_to_completion(
    gang_cluster: GangCluster,
    gang_namespace: str,
    pod_events: PodEvents,
    gang_operator: OperatorProcess,
) -> None:
    """TrainJob ``01-multi-node`` (3 nodes) on the runtime whose dataset initializer runs
    first: Trainer makes a JobSet whose node job dependsOn the initializer; a gang of 1,
    then a gang of 3, and the TrainJob completes."""
    if gang_cluster.trainer_missing:
        pytest.skip(gang_cluster.trainer_missing)
    kube = gang_cluster.kube
    runtime = corpus_object(WITH_CACHE, "ClusterTrainingRuntime")
    name = runtime["metadata"]["name"]
    if kube.get(runtime["apiVersion"], "ClusterTrainingRuntime", None, name) is None:
        kube.create(runtime)
    job = corpus_object(MULTI_NODE, "TrainJob")
    job["spec"]["runtimeRef"]["name"] = name
    created = kube.create(job, gang_namespace)
    wait_for(
        lambda: condition(
            kube.get(created["apiVersion"], "TrainJob", gang_namespace, job["metadata"]["name"]),
            "Complete",
        ),
        "the TrainJob Complete",
        timeout=COMPLETION_TIMEOUT,
    )
    finished_in_stages(kube, gang_namespace, pod_events, [1, 3], gang_operator)


@pytest.fixture
def bundled_operator(
    gang_cluster: GangCluster, gang_namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    """The operator with the bundle's webhook objects (``--pod-groups``) instead of the
    configuration kopf keeps: the Service as an ExternalName naming ``localhost`` (no pod
    runs here), on the port the operator serves, and the operator writing its
    certificate into the configuration at start."""
    kube = gang_cluster.kube
    port = free_port()
    service, configuration = copy.deepcopy(webhook_manifests(placement=False, pod_groups=True))
    service["spec"] = {
        "type": "ExternalName",
        "externalName": "localhost",
        "ports": [{"name": "webhook", "port": port}],
    }
    configuration["webhooks"][0]["clientConfig"]["service"]["port"] = port
    kube.namespace(rbac.NAMESPACE)
    kube.delete(configuration)  # the one kopf kept for an earlier test
    made = [kube.create(service), kube.create(configuration)]
    env = {
        "WLMAP_WEBHOOK": f"{service_host()}:{port}",
        "WLMAP_WEBHOOK_MANAGED": "false",
        "WLMAP_LOG_FORMAT": "plain",
    }
    config = gang_cluster.server.kubeconfig
    process = OperatorProcess(
        config, gang_namespace, tmp_path / "operator.log", target="workload-api", env=env
    ).start()
    try:
        wait_for(lambda: _ca_bundle(kube), "the operator's certificate in the bundle's webhook")
        wait_for(lambda: _listening(port), "the operator's webhook server listening")
        yield process
    finally:
        process.stop()
        for obj in reversed(made):
            kube.delete(obj)


def _ca_bundle(kube: Kube) -> str | None:
    found = kube.get(ADMISSION, "MutatingWebhookConfiguration", None, "wlmap.dev")
    hooks: list[dict[str, Any]] = (found or {}).get("webhooks") or []
    return hooks[0]["clientConfig"].get("caBundle") if hooks else None


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def test_the_bundles_pod_group_webhook_runs_the_stages_to_completion(
    gang_cluster: GangCluster,
    gang_namespace: str,
    pod_events: PodEvents,
    bundled_operator: OperatorProcess,
) -> None:
    """As deployed: the API server calls the operator through the bundle's Service and
    configuration, and the JobSet's stages run as they do with kopf's configuration."""
    depends_on_completes_in_stages(gang_cluster.kube, gang_namespace, pod_events, bundled_operator)


@pytest.fixture
def one_gang_definition(gang_cluster: GangCluster) -> Iterator[None]:
    """The catalog's JobSet definition without its start stages, stored in the cluster
    (where it overrides the built-in one): one gang over every replicatedJob, as wlmap
    wrote before stages were split."""
    kube = gang_cluster.kube
    names = kube.install_crds([REPO / "deploy" / "crds" / "wlmap.dev_workloadmaps.yaml"])
    document: dict[str, Any] = yaml.safe_load(
        (CATALOG / "jobset-x-k8s-io-jobset-v1alpha2.yaml").read_text()
    )
    del document["spec"]["optimizationInstructions"]["gangScheduling"]["podGroup"]["stages"]
    document["metadata"] = {"name": "jobset-one-gang"}
    stored = kube.create(document)
    try:
        yield
    finally:
        kube.delete(stored)
        kube.remove_crds(names)


@pytest.mark.usefixtures("one_gang_definition")
def test_one_gang_over_every_stage_never_starts(
    gang_cluster: GangCluster,
    gang_namespace: str,
    pod_events: PodEvents,
    gang_operator: OperatorProcess,
) -> None:
    """The contrast: with one gang of 6 over both stages, the initializers' 2 pods wait
    for 4 workers that are only created once they complete, so nothing is ever bound."""
    kube = gang_cluster.kube
    (obj,) = load(DEPENDS_ON)
    kube.create(obj, gang_namespace)
    (group,) = wait_for(lambda: list(min_counts(kube, gang_namespace).items()), "the one PodGroup")
    assert group[1] == 6

    def initializers() -> list[dict[str, Any]]:
        pods = kube.list("v1", "Pod", gang_namespace)
        return pods if len(pods) == 2 and all(scheduling_group(p) for p in pods) else []

    pods = wait_for(initializers, "the initializers' 2 pods, in the one gang")
    assert {scheduling_group(p) for p in pods} == {group[0]}
    time.sleep(UNSCHEDULED_SECONDS)  # what "never" can be in a test: long past the others
    pods = kube.list("v1", "Pod", gang_namespace)
    assert len(pods) == 2, "no worker pod: the initializers never ran"
    assert [p["spec"].get("nodeName") for p in pods] == [None, None]
    assert pod_events.bound_while_short({group[0]: 6}) == []
