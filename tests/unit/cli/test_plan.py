"""``wlmap plan`` on cluster dumps: where gangs go or why not (exact text for the reason),
the clusters ranked, each rendering parsed, the planned workload's own pods not counted,
and clear errors with the CLI's exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_path
from tests.unit.cli.runner import run
from tests.unit.placement.plan.inputs import CLUSTER, KUEUE_JOB, LWS, RACK, gpu_job
from wlmap.cli._exits import OK, UNREADABLE_INPUT, USAGE

LEVELS = "cloud.provider.com/topology-block,cloud.provider.com/topology-rack"
RACK_NODES = (
    Path(__file__).resolve().parents[1] / "placement" / "gangs" / "data" / "rack_nodes.yaml"
)


def job_file(tmp_path: Path, pods: int, gpus: int) -> str:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(gpu_job(pods, gpus)))
    return str(path)


def plan(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return run(capsys, "plan", *args, "--levels", LEVELS)


def test_a_gang_that_does_not_fit_names_the_rack_it_needs_and_the_jobset_in_the_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = plan(capsys, "-f", job_file(tmp_path, 4, 4), "--cluster", str(CLUSTER))
    assert code == OK, err
    assert out.splitlines() == [
        f"cluster {CLUSTER}: 8 GPU nodes, 64 GPUs (44 free after the plan)",
        "  Job team-c/tas-sample-required gang job: 4 pods x 4 GPUs",
        "    does not fit: needs 16 GPUs (4 pods x 4) in one rack (required level "
        "cloud.provider.com/topology-rack); the emptiest rack, b1/r2, has 12 free; "
        "1 rack would fit if the pods of Job team-a/pretrain finished (it holds 8 GPUs in "
        "rack b1/r1); 3 racks would fit if the pods of JobSet team-b/train-x finished (it "
        "holds 12 GPUs in racks b1/r2, b2/r1, b2/r2)",
        "  pending: 1 pod of Job team-d/finetune (8 GPUs) waits for a node",
    ]


def test_a_gang_that_fits_reports_its_assignment_nodes_and_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = plan(
        capsys, "-f", job_file(tmp_path, 3, 4), "--cluster", str(CLUSTER), "-o", "json"
    )
    assert code == OK, err
    (cluster,) = json.loads(out)["items"]
    assert (cluster["fits"], cluster["placedGangs"], cluster["gpus"]) == (True, 1, 64)
    assert cluster["pending"] == [
        {"workload": "Job team-d/finetune", "pod": "finetune-0-z7v4c", "gpus": 8}
    ]
    (gang,) = cluster["plans"]
    assert gang["fits"] and gang["domain"]["level"] == RACK
    assert gang["required"] == {
        "level": RACK,
        "source": "annotation kueue.x-k8s.io/podset-required-topology of component job",
    }
    block, rack = gang["domain"]["values"]
    # Kueue's form names hosts only; the test cluster's host names carry block and rack
    assignment = gang["topologyAssignment"]
    assert assignment["levels"] == ["kubernetes.io/hostname"]
    assert [d["values"] for d in assignment["domains"]] == [[n["name"]] for n in gang["nodes"]]
    assert all(n["name"].startswith(f"gpu-{block}-{rack}-") for n in gang["nodes"])
    assert sum(n["pods"] for n in gang["nodes"]) == 3
    assert cluster["freeGpusAfter"] == 64 - 8 - 12 - 12  # pretrain, train-x, this job
    assert gang["reason"]


def test_the_planned_workloads_own_running_pods_do_not_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the dump holds JobSet team-b/train-x with its Jobs and pods: planned again, its 12
    # GPUs are free for it, and only pretrain's 8 are held
    code, out, err = plan(capsys, "-f", str(CLUSTER), "--cluster", str(CLUSTER), "-o", "json")
    assert code == OK, err
    (cluster,) = json.loads(out)["items"]
    (gang,) = cluster["plans"]
    assert gang["gang"] == "JobSet team-b/train-x gang replicatedJob" and gang["fits"]
    assert cluster["freeGpusAfter"] == 64 - 8 - 12
    assert (
        "Pod team-a/pretrain-0-xk2p9: no gang: its definition declares none" in err
    )  # bare pods are left out


def test_two_clusters_are_ranked_fits_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ("-f", job_file(tmp_path, 4, 4), "--cluster", str(CLUSTER), "--cluster", str(RACK_NODES))
    code, out, err = plan(capsys, *args, "-o", "yaml")
    assert code == OK, err
    first, second = yaml.safe_load(out)["items"]
    assert (first["cluster"], first["rank"], first["fits"]) == (str(RACK_NODES), 1, True)
    assert (second["cluster"], second["rank"], second["fits"]) == (str(CLUSTER), 2, False)
    code, out, _ = plan(capsys, *args)
    assert out.splitlines()[:3] == [
        line.rstrip()
        for line in (
            f"RANK  CLUSTER{' ' * (len(str(RACK_NODES)) - 7)}  FITS  GANGS  COST   FREE GPUS",
            f"1     {RACK_NODES}  yes   1/1    {first['cost']:.3f}  {first['freeGpusAfter']}",
            f"2     {CLUSTER}{' ' * (len(str(RACK_NODES)) - len(str(CLUSTER)))}  no    0/1    -      44",
        )
    ]


def rendered(capsys: pytest.CaptureFixture[str], render: str, workload: str) -> Any:
    code, out, err = plan(
        capsys, "-f", workload, "--cluster", str(CLUSTER), "--render", render, "-o", "json"
    )
    assert code == OK, err
    return json.loads(out)


def test_each_rendering_parses_as_the_objects_people_apply(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    job = job_file(tmp_path, 3, 4)
    (affinity,) = rendered(capsys, "affinity", job)["items"]
    assert affinity["workload"] == "Job team-c/tas-sample-required"
    assert affinity["jsonPatch"][0]["path"] == "/spec/template/spec/affinity"
    (kueue,) = rendered(capsys, "kueue", job)["items"]
    assert kueue["annotations"] == {"kueue.x-k8s.io/podset-required-topology": RACK}
    (kai,) = rendered(capsys, "kai", job)["items"]
    assert kai["annotations"]["kai.scheduler/topology-required-placement"] == RACK
    assert kai["topology"]["kind"] == "Topology"
    listed = rendered(capsys, "workload", job)
    assert listed["kind"] == "List"
    assert [o["kind"] for o in listed["items"]] == ["Workload", "PodGroup"]
    assert listed["items"][1]["spec"]["schedulingConstraints"] == {"topology": [{"key": RACK}]}


def test_the_lws_sample_renders_one_patch_for_its_gpu_workers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = plan(
        capsys, "-f", str(corpus_path(LWS)), "--cluster", str(CLUSTER), "--render", "affinity"
    )
    assert code == OK, err
    worker, leader = yaml.safe_load(out)["items"]
    assert (worker["component"], leader["component"]) == ("worker", "leader")
    assert worker["nodeAffinity"] == leader["nodeAffinity"]
    assert "jsonPatch" in worker and "jsonPatch" not in leader
    assert "no affinity patch: " in err and "component 'leader'" in err
    assert "component leader: no GPUs, left out of gang placement" in err


def _statefulset_file(tmp_path: Path, intent: bool) -> str:
    """Kueue's sample StatefulSet with 4 GPUs a pod, its pods requiring one rack or not."""
    (statefulset,) = yaml.safe_load_all(
        corpus_path("core-workloads/kueue-sample-statefulset.yaml").read_text()
    )
    template = statefulset["spec"]["template"]
    template["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "4"
    if intent:
        template["metadata"]["annotations"] = {"kueue.x-k8s.io/podset-required-topology": RACK}
    path = tmp_path / "statefulset.yaml"
    path.write_text(yaml.safe_dump(statefulset))
    return str(path)


def test_a_statefulset_whose_pods_require_a_rack_is_planned_as_one_gang_else_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ("--cluster", str(CLUSTER), "-o", "json")
    code, out, err = plan(capsys, "-f", _statefulset_file(tmp_path, True), *args)
    assert code == OK, err
    (cluster,) = json.loads(out)["items"]
    (gang,) = cluster["plans"]
    assert gang["gang"] == "StatefulSet default/nginx-statefulset gang pods"
    assert (gang["pods"], gang["gpusPerPod"], gang["fits"]) == (3, 4, True)
    assert gang["domain"]["level"] == RACK and gang["required"]["level"] == RACK
    block, rack = gang["domain"]["values"]
    assert all(n["name"].startswith(f"gpu-{block}-{rack}-") for n in gang["nodes"])
    assert sum(n["pods"] for n in gang["nodes"]) == 3
    code, _, err = plan(capsys, "-f", _statefulset_file(tmp_path, False), *args)
    assert code == UNREADABLE_INPUT
    assert (
        "StatefulSet default/nginx-statefulset: no gang: its definition declares none and its "
        "GPU pods carry no topology intent" in err
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["-f", "KUEUE_JOB", "--cluster", "CLUSTER", "--levels", LEVELS],
            UNREADABLE_INPUT,
            "Job default/(generated name): no gang of pods that take whole GPUs",
        ),
        (
            ["-f", "JOB", "--cluster", "CLUSTER", "--levels", "example.com/zone," + RACK],
            UNREADABLE_INPUT,
            "no GPU node has the level label 'example.com/zone'",
        ),
        (
            ["-f", "JOB", "--cluster", "CLUSTER", "--levels", LEVELS, "--policy", "fastest"],
            USAGE,
            "unknown gang policy 'fastest'; expected one of:",
        ),
        (
            ["jobs/x", "-f", "JOB", "--levels", LEVELS],
            USAGE,
            "give the workload as TYPE/NAME or with -f",
        ),
        (
            ["-f", "JOB", "--cluster", "missing.yaml", "--levels", LEVELS],
            UNREADABLE_INPUT,
            "missing.yaml",
        ),
    ],
)
def test_bad_input_gets_one_clear_line_and_its_exit_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    files = {
        "KUEUE_JOB": str(corpus_path(KUEUE_JOB)),
        "CLUSTER": str(CLUSTER),
        "JOB": job_file(tmp_path, 2, 4),
    }
    got, out, err = run(capsys, "plan", *[files.get(a, a) for a in args])
    assert got == code
    assert message in err and "Traceback" not in err
    assert out == ""
