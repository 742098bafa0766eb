"""The series ``wlmap metrics -f`` prints for a dump: a PyTorchJob with GPUs, its pods,
its namespace and GPU nodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile import hostile_yaml
from tests.unit.cli.runner import EXAMPLES, run
from tests.unit.metrics.cluster import T0, job, namespace, node, pod, write
from tests.unit.metrics.exposition import one, samples, values
from wlmap.metrics import STATES

JOB = {"namespace": "ml", "workload": "pytorch-tcp-dist-mnist", "kind": "PyTorchJob"}


def metrics(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> str:
    code, out, err = run(capsys, "metrics", "-f", str(path), *args)
    assert code == 0, err
    return out


def test_a_workload_is_named_counted_and_in_one_state(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    owner = job()
    pods = [pod(owner, "master", 0), *(pod(owner, "worker", i) for i in range(2))]
    path = write(tmp_path, [namespace({"team": "vision"}), owner, *pods])
    out = metrics(capsys, path)
    [(_, info, value)] = [s for s in samples(out) if s[0] == "wlmap_workload_info"]
    assert value == 1
    assert info == {
        **JOB,
        "group": "kubeflow.org",
        "version": "v1",
        "definition": "kubeflow-org-pytorchjob-v1",
        "team": "vision",  # from the namespace: the job names none
    }
    assert one(out, "wlmap_workload_components", **JOB) == 3
    states = {dict(k)["state"]: v for k, v in values(out, "wlmap_workload_state").items()}
    assert set(states) == set(STATES)
    assert [s for s, v in states.items() if v == 1] == ["Completed"]  # the example's status
    _, described, _ = run(capsys, "describe", "-f", str(path), "-o", "json")
    assert json.loads(described)["phases"] == ["Completed"]
    worker = {**JOB, "component": "worker"}
    assert one(out, "wlmap_workload_component_pods_desired", **worker) == 3
    assert one(out, "wlmap_workload_component_pods_ready", **worker) == 2
    assert one(out, "wlmap_workload_component_gpus_requested", **worker) == 6
    assert one(out, "wlmap_workload_gpus_requested", **JOB) == 7
    assert one(out, "wlmap_workload_cpu_cores_requested", **JOB) == 0


def test_the_team_label_of_the_workload_wins_over_its_namespace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    owner = job()
    owner["metadata"]["labels"] = {"owner": "speech"}
    path = write(tmp_path, [namespace({"team": "vision", "owner": "ops"}), owner])
    out = metrics(capsys, path, "--team-label", "owner")
    assert dict(next(iter(values(out, "wlmap_workload_info"))))["team"] == "speech"


def test_a_gang_short_of_its_minimum_says_since_when_and_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    owner = job()
    waiting = ("Unschedulable", T0 + 60)
    pods = [
        pod(owner, "master", 0),
        pod(owner, "worker", 0),
        pod(owner, "worker", 1, node=None, start=None, waiting=waiting),
        pod(owner, "worker", 2, node=None, start=None, waiting=("Unschedulable", T0 + 90)),
    ]
    out = metrics(capsys, write(tmp_path, [owner, *pods]))
    gang = {**JOB, "gang": "pytorchjob"}
    assert one(out, "wlmap_workload_gang_min_member", **gang) == 4
    assert one(out, "wlmap_workload_gang_members_scheduled", **gang) == 2
    assert one(out, "wlmap_workload_gang_waiting_since_timestamp_seconds", **gang) == T0 + 60
    assert one(out, "wlmap_workload_gang_waiting_reason", **gang, reason="Unschedulable") == 1

    placed = [pod(owner, "master", 0), *(pod(owner, "worker", i) for i in range(3))]
    out = metrics(capsys, write(tmp_path, [owner, *placed]))
    assert one(out, "wlmap_workload_gang_members_scheduled", **gang) == 4
    assert not values(out, "wlmap_workload_gang_waiting_since_timestamp_seconds")
    assert not values(out, "wlmap_workload_gang_waiting_reason")


def test_each_running_container_joins_its_workload_and_gpus(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    owner = job()
    pods = [
        pod(owner, "master", 0),
        pod(owner, "worker", 0),
        pod(owner, "worker", 1, end=T0 + 600),  # ended: dcgm-exporter reports it no more
    ]
    out = metrics(capsys, write(tmp_path, [namespace({"team": "vision"}), owner, *pods]))
    info = [labels for name, labels, _ in samples(out) if name == "wlmap_pod_workload_info"]
    assert {(i["pod"], i["component"]) for i in info} == {
        ("pytorch-tcp-dist-mnist-master-0", "master"),
        ("pytorch-tcp-dist-mnist-worker-0", "worker"),
    }
    assert all(
        (i["namespace"], i["workload"], i["kind"], i["group"], i["team"], i["container"])
        == ("ml", "pytorch-tcp-dist-mnist", "PyTorchJob", "kubeflow.org", "vision", "pytorch")
        for i in info
    )
    gpus = {dict(k)["pod"]: v for k, v in values(out, "wlmap_pod_gpus").items()}
    assert gpus == {"pytorch-tcp-dist-mnist-master-0": 1, "pytorch-tcp-dist-mnist-worker-0": 2}


def test_nodes_show_what_pods_hold_and_what_is_left(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    owner = job(gpus_per_worker=3)
    pods = [pod(owner, "worker", i) for i in range(2)]  # 6 of node-a's 8 GPUs
    nodes = [node("node-a", 8, "zone-1"), node("node-b", 8, "zone-2")]
    out = metrics(capsys, write(tmp_path, [*nodes, owner, *pods]))
    where = {"node": "node-a", "label_topology_kubernetes_io_zone": "zone-1"}
    assert one(out, "wlmap_node_gpus_allocatable", **where) == 8
    assert one(out, "wlmap_node_gpus_allocated", **where) == 6
    assert one(out, "wlmap_node_gpus_free", **where) == 2
    # the only GPU pod shape served asks for 3 GPUs: the 2 left on node-a cannot take
    # one, node-b's 8 can
    fragmented_a = one(out, "wlmap_node_gpus_free_fragmented", node="node-a")
    assert 0 < fragmented_a <= 2
    assert one(out, "wlmap_node_gpus_free_fragmented", node="node-b") == 0
    assert one(out, "wlmap_node_gpus_free", node="node-b") == 8


def test_gpu_seconds_count_each_pod_from_its_start(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    owner = job()
    pods = [pod(owner, "worker", 0, end=T0 + 3600), pod(owner, "worker", 1, start=None)]
    out = metrics(capsys, write(tmp_path, [namespace({"team": "vision"}), owner, *pods]))
    # worker 0: 2 GPUs for an hour; worker 1 is bound but not started: it holds nothing
    assert one(out, "wlmap_namespace_gpu_seconds_total", namespace="ml") == 7200
    assert one(out, "wlmap_team_gpu_seconds_total", team="vision") == 7200
    assert one(out, "wlmap_namespace_gpus_held", namespace="ml") == 0


def test_a_failing_definition_is_counted_and_the_scrape_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    definition = tmp_path / "failing.yaml"
    definition.write_text(hostile_yaml(".metadata.name | tonumber > 0", name="failing"))
    jobset = EXAMPLES / "jobset-tpu-multislice-v6e-jax.yaml"
    code, out, err = run(capsys, "--definitions", str(definition), "metrics", "-f", str(jobset))
    assert code == 0, err
    assert one(out, "wlmap_definition_evaluation_errors_total", definition="failing") == 1
    states = {dict(k)["state"]: v for k, v in values(out, "wlmap_workload_state").items()}
    assert [s for s, v in states.items() if v] == ["Undefined"]  # the status was not read
    assert one(out, "wlmap_exporter_cache_synced") == 1


def test_a_bad_node_is_named_and_left_out_and_a_cpu_node_has_no_series(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = node("node-bad", 8, "zone-1")
    bad["status"]["allocatable"]["cpu"] = "lots"
    cpu_only = node("node-cpu", 0, "zone-1")
    good = node("node-a", 8, "zone-1")
    code, out, err = run(capsys, "metrics", "-f", str(write(tmp_path, [bad, cpu_only, good])))
    assert code == 0, err
    assert "Node/node-bad left out" in err and "status.allocatable.cpu" in err
    assert "'lots'" in err
    assert "no definition covers Node" not in err
    assert {dict(k)["node"] for k in values(out, "wlmap_node_gpus_allocatable")} == {"node-a"}
