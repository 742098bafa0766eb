"""``kubectl get -o yaml`` dumps: pods reach their workload through owner references, and
workloads owned by another mapped workload are not listed on their own."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_object
from tests.unit.cli.runner import run
from tests.unit.workload.podfactory import make_pod
from wlmap.app import workloads


def owned_by(obj: dict[str, Any], owner: dict[str, Any]) -> dict[str, Any]:
    obj.setdefault("metadata", {})["ownerReferences"] = [
        {
            "apiVersion": owner["apiVersion"],
            "kind": owner["kind"],
            "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"],
            "controller": True,
        }
    ]
    return obj


def dump(tmp_path: Path) -> Path:
    deployment = copy.deepcopy(
        corpus_object("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml", "Deployment")
    )
    deployment["metadata"].update(uid="d-1", namespace="gpu")
    template = deployment["spec"]["template"]
    replicaset = owned_by(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "plugin-abc", "namespace": "gpu", "uid": "rs-1"},
            "spec": {"replicas": deployment["spec"]["replicas"], "template": template},
        },
        deployment,
    )
    pods = [
        owned_by(make_pod(f"plugin-abc-{i}", template, {}, ready=i != 0), replicaset)
        for i in range(deployment["spec"]["replicas"])
    ]
    for pod in pods:
        pod["metadata"]["namespace"] = "gpu"
    path = tmp_path / "dump.yaml"
    path.write_text(
        yaml.safe_dump(
            {"apiVersion": "v1", "kind": "List", "items": [deployment, replicaset, *pods]}
        )
    )
    return path


def test_pods_are_attributed_through_owner_references(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "describe", "-f", str(dump(tmp_path)), "-o", "json")
    assert code == 0
    view = json.loads(out)  # one top-level workload: the ReplicaSet and pods sit under it
    assert view["kind"] == "Deployment"
    [component] = view["components"]
    replicas = component["replicas"]
    assert (component["podsObserved"], component["podsReady"]) == (replicas, replicas - 1)
    assert view["unclaimedPods"] == []


def test_owned_workloads_are_not_listed_on_their_own(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "get", "--all-types", "-f", str(dump(tmp_path)), "-o", "json")
    assert code == 0
    assert [(i["kind"], i["name"]) for i in json.loads(out)["items"]] == [
        ("Deployment", "nvidia-plugin-test")
    ]
    code, out, _ = run(capsys, "get", "replicasets", "-f", str(dump(tmp_path)), "-o", "json")
    assert [i["name"] for i in json.loads(out)["items"]] == ["plugin-abc"]  # asked for by type


def test_a_bare_pod_counts_itself(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pod = make_pod("lonely", {"spec": {"containers": [{"name": "c", "image": "x"}]}}, {})
    pod["metadata"].update(uid="p-1", namespace="gpu")
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pod))
    code, out, _ = run(capsys, "describe", "-f", str(path), "-o", "json")
    assert code == 0
    [component] = json.loads(out)["components"]
    assert (component["podsObserved"], component["podsReady"]) == (1, 1)


def test_get_shows_ready_over_desired_pods_when_the_dump_holds_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "get", "deployments", "-f", str(dump(tmp_path)), "-o", "json")
    assert code == 0
    [item] = json.loads(out)["items"]
    assert (item["podsReady"], item["totals"]["pods"]) == (4, 5)
    code, out, _ = run(capsys, "get", "deployments", "-f", str(dump(tmp_path)))
    assert out.splitlines()[1].split()[3] == "4/5"  # NAMESPACE NAME PHASE PODS ...


def test_a_large_dump_lists_the_same_rows_in_forked_workers_as_in_one_process(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kinds = [
        ("jobset/tpu-multislice-v6e-jax.yaml", "JobSet"),
        ("kubeflow-pytorchjob/simple.yaml", "PyTorchJob"),
        ("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml", "Deployment"),
    ]
    bases = [corpus_object(relative, kind) for relative, kind in kinds]
    items = []
    for index in range(workloads.PARALLEL_THRESHOLD + 100):
        obj = copy.deepcopy(bases[index % len(bases)])
        obj["metadata"].update(name=f"w-{index}", namespace=f"ns-{index % 7}", uid=f"u-{index}")
        items.append(obj)
    path = tmp_path / "dump.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    code, forked, _ = run(capsys, "get", "--all-types", "-f", str(path), "-o", "json")
    assert code == 0
    monkeypatch.setattr(workloads, "PARALLEL_THRESHOLD", len(items) + 1)
    code, serial, _ = run(capsys, "get", "--all-types", "-f", str(path), "-o", "json")
    assert code == 0
    rows = json.loads(forked)["items"]
    assert len(rows) == len(items)
    assert rows == json.loads(serial)["items"]
