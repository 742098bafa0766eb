"""``wlmap get`` and ``wlmap describe`` without -f: what they show of a real API server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load
from tests.integration.testcluster import TestCluster
from tests.integration.wlmapcli import (
    Wlmap,
    aligned,
    deployment_with_pods,
    jobset_completed,
    jobset_running,
    kubeconfig_copy,
)
from wlmap.cli._exits import OK
from wlmap.sources.cluster import Cluster, discover, list_objects

COORDINATOR = "jobset/coordinator.yaml"
TPU_MULTISLICE = "jobset/tpu-multislice-v6e-jax.yaml"
SAMPLE = "jobset/sample-v1alpha2.yaml"
HEADER = ("NAMESPACE", "NAME", "PHASE", "PODS", "GPUS")


def create_jobset(kube: Kube, namespace: str, relative: str = COORDINATOR) -> dict[str, Any]:
    (manifest,) = load(relative)
    return kube.create(manifest, namespace)


def test_get_jobsets_shows_the_phase_the_controller_wrote(
    wlmap: Wlmap, kube: Kube, namespace: str
) -> None:
    jobset = create_jobset(kube, namespace)
    jobset_children(kube, jobset)

    result = wlmap("get", "jobsets", "-n", namespace)
    assert result.code == OK, result.err
    assert result.table() == aligned(
        HEADER, (namespace, "coordinator-example", "Undefined", "5/5", "0")
    )

    jobset_running(kube, jobset)
    assert wlmap("get", "jobsets", "-n", namespace).table() == aligned(
        HEADER, (namespace, "coordinator-example", "Running", "5/5", "0")
    )

    jobset_completed(kube, jobset)
    result = wlmap("get", "jobsets", "-n", namespace, "-o", "json")
    assert result.code == OK
    (item,) = json.loads(result.out)["items"]
    assert (item["name"], item["namespace"], item["phases"]) == (
        "coordinator-example",
        namespace,
        ["Completed"],
    )
    assert (item["totals"]["pods"], item["origin"]) == (5, "built-in")
    assert result.err == ""


def test_type_tokens_name_the_same_rows(wlmap: Wlmap, kube: Kube, namespace: str) -> None:
    deployment_with_pods(kube, namespace)
    create_jobset(kube, namespace)
    tokens = {
        "Deployment": [
            "deployments",
            "deployment",
            "Deployment",
            "deploy",
            "deployments.apps",
            "deployment.v1.apps",
            "deployments.v1.apps",
        ],
        "JobSet": [
            "jobsets",
            "jobset",
            "JobSet",
            "jobsets.jobset.x-k8s.io",
            "jobset.v1alpha2.jobset.x-k8s.io",
        ],
    }
    expected = {
        # PODS is ready/desired: the Deployment's pods run, the JobSet has none yet
        "Deployment": aligned(HEADER, (namespace, "nvidia-plugin-test", "Running", "5/5", "5")),
        "JobSet": aligned(HEADER, (namespace, "coordinator-example", "Undefined", "0/5", "0")),
    }
    for kind, names in tokens.items():
        outputs = {token: wlmap("get", token, "-n", namespace).table() for token in names}
        assert outputs == dict.fromkeys(names, expected[kind])
    named = wlmap("get", "deploy/nvidia-plugin-test", "-n", namespace, "-o", "json")
    assert json.loads(named.out)["name"] == "nvidia-plugin-test"


def test_all_types_lists_only_top_level_workloads(wlmap: Wlmap, kube: Kube, namespace: str) -> None:
    jobset = create_jobset(kube, namespace)
    jobset_children(kube, jobset)
    jobset_running(kube, jobset)
    deployment_with_pods(kube, namespace)

    result = wlmap("get", "--all-types", "-A")
    assert result.code == OK, result.err
    table = result.table()
    assert table[0].split() == ["NAMESPACE", "NAME", "KIND", "PHASE", "PODS", "GPUS"]
    mine = [line.split() for line in table[1:] if line.startswith(f"{namespace} ")]
    assert mine == [
        [namespace, "nvidia-plugin-test", "Deployment", "Running", "5/5", "5"],
        [namespace, "coordinator-example", "JobSet", "Running", "5/5", "0"],
    ]
    # the children are workloads of mapped kinds too: named, they are listed
    jobs = wlmap("get", "jobs", "-n", namespace, "-o", "json")
    assert sorted(i["name"] for i in json.loads(jobs.out)["items"]) == [
        "coordinator-example-driver-0",
        "coordinator-example-workers-0",
    ]
    pods = wlmap("get", "pods", "-n", namespace, "-o", "json")
    assert json.loads(pods.out)["count"] == 10  # each pod once


def test_label_selector_is_sent_to_the_server(
    wlmap: Wlmap, kube: Kube, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for relative in (COORDINATOR, TPU_MULTISLICE, SAMPLE):
        create_jobset(kube, namespace, relative)
    answered: list[tuple[str, dict[str, Any], int]] = []
    request = Cluster.request

    async def recording(self: Cluster, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        answer = await request(self, method, path, **kwargs)
        answered.append((path, dict(kwargs.get("params") or {}), len(answer.get("items") or ())))
        return answer

    monkeypatch.setattr(Cluster, "request", recording)

    queue = "kueue.x-k8s.io/queue-name"
    result = wlmap("get", "jobsets", "-n", namespace, "-l", f"{queue}=multislice-queue")
    assert result.code == OK, result.err
    assert result.table() == aligned(HEADER, (namespace, "v6e-multislice", "Undefined", "0/8", "0"))
    lists = [(p, n) for p, params, n in answered if p.endswith("/jobsets")]
    assert lists == [(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets", 1)]
    assert [params["labelSelector"] for p, params, _ in answered if p.endswith("/jobsets")] == [
        f"{queue}=multislice-queue"
    ]

    names = {
        selector: [
            line.split()[1]
            for line in wlmap("get", "jobsets", "-n", namespace, "-l", selector).table()[1:]
        ]
        for selector in ("app.kubernetes.io/name=jobset", f"!{queue}", f"{queue}!=multislice-queue")
    }
    assert names == {
        "app.kubernetes.io/name=jobset": ["jobset-sample"],
        f"!{queue}": ["coordinator-example", "jobset-sample"],
        f"{queue}!=multislice-queue": ["coordinator-example", "jobset-sample"],
    }


def test_describe_counts_the_pods_of_each_component(
    wlmap: Wlmap, kube: Kube, namespace: str
) -> None:
    jobset = create_jobset(kube, namespace)
    pods = jobset_children(kube, jobset)
    not_ready = next(p for p in pods if p["metadata"]["name"].endswith("-workers-0-3"))
    kube.set_status(not_ready, {"conditions": [{"type": "Ready", "status": "False"}]})
    jobset_running(kube, jobset)

    result = wlmap("describe", "jobset/coordinator-example", "-n", namespace, "-o", "json")
    assert result.code == OK, result.err
    view = json.loads(result.out)
    counted = {
        (c["name"], c["instance"]): (c["pods"], c["podsObserved"], c["podsReady"])
        for c in view["components"]
        if c["name"] == "pod"
    }
    assert counted == {("pod", "workers"): (4, 4, 3), ("pod", "driver"): (1, 1, 1)}, result
    assert view["phases"] == ["Running"], result

    table = wlmap("describe", "jobset", "coordinator-example", "-n", namespace)
    assert table.code == OK, table
    lines = table.out.splitlines()
    assert lines[0] == (
        f"JobSet/coordinator-example  namespace: {namespace}  "
        "definition: jobset-x-k8s-io-jobset-v1alpha2  (built-in)"
    )
    assert "│  └─ pod         workers   4         3/4 ready  0        0     0    0" in lines
    assert "   └─ pod         driver    1         1/1 ready  0        0     0    0" in lines
    assert "Totals: 5 pods, 0 GPUs, 0 CPU, 0 memory" in lines


def test_describe_reaches_pods_through_owners_it_did_not_list(
    wlmap: Wlmap, kube: Kube, namespace: str
) -> None:
    deployment_with_pods(kube, namespace, ready=3)

    result = wlmap("describe", "deploy", "-n", namespace)
    assert result.code == OK, result.err
    lines = result.out.splitlines()
    assert lines[0] == (
        f"Deployment/nvidia-plugin-test  namespace: {namespace}  "
        "definition: apps-deployment-v1  (built-in)"
    )
    assert lines[1].startswith("Status: Initializing  [initializing[0]: ")
    table = lines.index("COMPONENT   INSTANCE  REPLICAS  PODS       GPU/POD  GPUS  CPU  MEMORY")
    assert lines[table + 1 :] == [
        "deployment  -         5         3/5 ready  1        5     0    0",
        "",
        "Totals: 5 pods, 5 GPUs, 0 CPU, 0 memory",
    ]


def test_describe_watch_prints_again_when_the_status_changes(
    wlmap: Wlmap, kube: Kube, namespace: str
) -> None:
    jobset = create_jobset(kube, namespace)
    jobset_children(kube, jobset)
    jobset_running(kube, jobset)

    watching = wlmap.popen(
        "describe", "jobset/coordinator-example", "-n", namespace, "--watch", "--timeout", "8"
    )
    try:
        assert watching.stdout is not None
        first = watching.stdout.readline()
        assert first.startswith("JobSet/coordinator-example"), first
        jobset_completed(kube, jobset)
        watching.wait(timeout=30)  # --timeout ends it
        assert watching.stderr is not None
        rest, err = watching.stdout.read(), watching.stderr.read()
    finally:
        watching.kill()
        watching.wait()
    assert watching.returncode == OK, err
    assert "Traceback" not in err
    renders = (first + rest).split("\n---\n")
    assert len(renders) == 2, first + rest
    assert [r.splitlines()[1].split("  [")[0] for r in renders] == [
        "Status: Running",
        "Status: Completed",
    ]
    assert renders[1].splitlines()[1] == (
        "Status: Completed  [completed[0]: Completed=True (AllJobsCompleted)]"
    )


def test_list_objects_pages_through_every_object(
    cluster: TestCluster, kube: Kube, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    configmap = next(
        d
        for d in load("spark-sparkapplication/spark-pi-pod-template.yaml")
        if d["kind"] == "ConfigMap"
    )
    names = [f"{configmap['metadata']['name']}-{i:02d}" for i in range(20)]
    for name in names:
        kube.create({**configmap, "metadata": {"name": name}}, namespace)
    pages: list[dict[str, Any]] = []
    request = Cluster.request

    async def counting(self: Cluster, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        answer = await request(self, method, path, **kwargs)
        if path.endswith("/configmaps"):
            pages.append(dict(kwargs.get("params") or {}))
        return answer

    monkeypatch.setattr(Cluster, "request", counting)

    async def read() -> list[dict[str, Any]]:
        connection = await Cluster.connect(str(cluster.kubeconfig))
        try:
            resource = (await discover(connection)).find("", "ConfigMap")
            assert resource is not None
            return await list_objects(connection, resource, namespace, page_size=7)
        finally:
            await connection.close()

    objects = asyncio.run(read())
    assert sorted(o["metadata"]["name"] for o in objects) == names
    assert {(o["apiVersion"], o["kind"]) for o in objects} == {("v1", "ConfigMap")}
    assert [p["limit"] for p in pages] == [7, 7, 7]
    assert ["continue" in p for p in pages] == [False, True, True]


def test_without_namespace_the_context_namespace_is_read(
    wlmap: Wlmap, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    create_jobset(kube, namespace)
    config = kubeconfig_copy(wlmap.kubeconfig, tmp_path / "kubeconfig", namespace=namespace)
    result = wlmap("get", "jobsets", kubeconfig=config)
    assert result.code == OK, result.err
    assert result.table() == aligned(
        HEADER, (namespace, "coordinator-example", "Undefined", "0/5", "0")
    )
    assert wlmap("get", "jobsets").table() == []  # the default namespace holds none
