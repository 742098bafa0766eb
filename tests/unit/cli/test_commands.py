"""Each command on real manifests: exact tables, parsed JSON, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.corpus import corpus_path
from tests.unit.cli.runner import EXAMPLES, ROOT, run
from wlmap.cli._exits import NO_DEFINITION, NOT_FOUND, OK, TESTS_FAILED, UNREADABLE_INPUT, USAGE


def test_get_all_types_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "get", "--all-types", "-f", str(EXAMPLES))
    assert code == OK
    # AGE depends on today's date; every other column is exact.
    assert [line.rsplit("  ", 1)[0].rstrip() for line in out.splitlines()] == [
        "NAMESPACE  NAME                    KIND              PHASE      PODS  GPUS",
        "-          huggingface-llama2      InferenceService  Undefined  1     1",
        "-          v6e-multislice          JobSet            Undefined  8     0",
        "-          verl-cluster            RayCluster        Undefined  1     4",
        "default    pytorch-tcp-dist-mnist  PyTorchJob        Completed  4     0",
    ]


def test_get_type_phase_filter_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "get", "pytorchjobs", "-f", str(EXAMPLES), "--phase", "Completed", "-o", "json"
    )
    assert code == OK
    data = json.loads(out)
    assert data["count"] == 1
    assert data["items"][0]["name"] == "pytorch-tcp-dist-mnist"
    assert data["items"][0]["phases"] == ["Completed"]
    code, out, err = run(capsys, "get", "pytorchjob", "-f", str(EXAMPLES), "--phase", "Running")
    assert (code, out) == (OK, "")
    assert "no workloads found" in err


def test_get_unknown_type_has_its_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "get", "frobnicators", "-f", str(EXAMPLES))
    assert code == NO_DEFINITION
    assert "no definition covers the type 'frobnicators'" in err


def test_get_needs_a_type_or_all_types(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "get", "-f", str(EXAMPLES))
    assert code == USAGE
    assert "give a TYPE or --all-types" in err


def test_selector_and_namespace(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "get", "--all-types", "-f", str(EXAMPLES), "-n", "default", "-o", "json"
    )
    assert code == OK
    assert [i["name"] for i in json.loads(out)["items"]] == ["pytorch-tcp-dist-mnist"]
    code, out, _ = run(
        capsys,
        "get",
        "--all-types",
        "-f",
        str(EXAMPLES),
        "-l",
        "app.kubernetes.io/name!=x",
        "-o",
        "json",
    )
    assert code == OK
    assert json.loads(out)["count"] == 4


def test_explain_names_the_rule_and_its_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "-f", str(EXAMPLES / "pytorchjob-with-status.yaml"))
    assert code == OK
    lines = out.splitlines()
    assert lines[0] == "PyTorchJob/pytorch-tcp-dist-mnist: Completed"
    assert lines[1] == "  completed[0] matched:"
    assert (
        lines[2]
        == "    ✓ condition Succeeded status=True (found status=True, reason=PyTorchJobSucceeded)"
    )


def test_explain_undefined_lists_nearest_misses(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "explain", "-f", str(EXAMPLES / "raycluster-verl-gpu.yaml"), "-o", "json"
    )
    assert code == OK
    data = json.loads(out)
    assert data["explanation"]["phases"] == ["Undefined"]
    assert data["explanation"]["note"] == "the object has no status yet"
    assert len(data["explanation"]["nearestMisses"]) == 3


def test_podgroups_for_each_target(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(EXAMPLES / "jobset-tpu-multislice-v6e-jax.yaml")
    code, out, _ = run(capsys, "podgroups", "-f", source, "--target", "kai")
    [kai] = list(yaml.safe_load_all(out))
    assert kai["apiVersion"] == "scheduling.run.ai/v2alpha2"
    # the JobSet's podGroup has one subgroup per replicatedJob component: 2 slices x 4 pods
    assert kai["spec"] == {
        "minSubGroup": 1,
        "subGroups": [{"name": "replicatedjob", "minMember": 8}],
    }
    code, out, _ = run(capsys, "podgroups", "-f", source, "--target", "volcano", "-o", "json")
    [volcano] = json.loads(out)["items"]
    assert volcano["spec"]["minMember"] == 8
    assert volcano["spec"]["minTaskMember"] == {"pod-slice": 8}
    code, out, _ = run(capsys, "podgroups", "-f", source, "--target", "workload-api", "-o", "json")
    kinds = [o["kind"] for o in json.loads(out)["items"]]
    assert kinds == ["Workload", "PodGroup"]
    code, out, _ = run(capsys, "podgroups", "-f", source, "--target", "kueue", "-o", "json")
    assert code == OK
    [podset] = json.loads(out)["items"]
    assert (podset["name"], podset["count"]) == ("pod-slice", 8)


def test_patch_prints_a_json_patch(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(EXAMPLES / "jobset-tpu-multislice-v6e-jax.yaml")
    code, out, _ = run(
        capsys,
        "patch",
        "-f",
        source,
        "--component",
        "pod",
        "--set",
        "schedulerName=kai-scheduler",
        "--add-toleration",
        "key=nvidia.com/gpu,operator=Exists,effect=NoSchedule",
    )
    assert code == OK
    ops = json.loads(out)
    assert ops[0] == {
        "op": "add",
        "path": "/spec/replicatedJobs/0/template/spec/template/spec/schedulerName",
        "value": "kai-scheduler",
    }
    assert ops[1]["path"] == "/spec/replicatedJobs/0/template/spec/template/spec/tolerations"
    code, out, _ = run(capsys, "patch", "-f", source, "--suspend", "-o", "merge-patch")
    assert json.loads(out) == {"spec": {"suspend": True}}


def test_definitions_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "definitions", "list")
    assert code == OK
    assert out.splitlines()[0].split() == ["NAME", "KIND", "ORIGIN", "COMPONENTS"]
    assert any(line.startswith("jobset-x-k8s-io-jobset-v1") for line in out.splitlines())
    assert all(len(line) <= 100 for line in out.splitlines())  # fits the terminal
    code, out, _ = run(capsys, "definitions", "show", "jobset")
    assert yaml.safe_load(out)["metadata"]["name"] == "jobset-x-k8s-io-jobset-v1alpha2"


def test_validate_reports_ok_and_invalid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = ROOT / "src" / "wlmap" / "catalog" / "definitions" / "batch-job-v1.yaml"
    bad = tmp_path / "bad.yaml"
    bad.write_text(good.read_text().replace(".spec.template", "env.HOME"))
    code, out, _ = run(capsys, "validate", str(good), str(bad))
    assert code == 5
    assert out.splitlines()[0].startswith(f"OK: {good}: batch-job-v1")
    assert f"INVALID: {bad}" in out
    assert "unsafe jq rejected" in out


def test_test_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    case_dir = tmp_path / "batch-job-v1"
    case_dir.mkdir()
    job = yaml.safe_load(
        corpus_path("core-workloads/kueue-tas-sample-job-required.yaml").read_text()
    )
    (case_dir / "right.yaml").write_text(
        yaml.safe_dump({"object": job, "expect": {"totals": {"pods": job["spec"]["parallelism"]}}})
    )
    (case_dir / "wrong.yaml").write_text(
        yaml.safe_dump({"object": job, "expect": {"totals": {"pods": 99, "nope": 1}}})
    )
    code, out, _ = run(capsys, "test", str(tmp_path))
    assert code == TESTS_FAILED
    assert "PASS batch-job-v1/right" in out
    assert "FAIL batch-job-v1/wrong" in out
    assert f"totals.pods: expected 99, got {job['spec']['parallelism']}" in out
    assert "totals.nope: the view has no field 'nope'" in out
    assert out.splitlines()[-1] == "1 passed, 1 failed"


def test_unreadable_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "describe", "-f", str(tmp_path / "missing.yaml"))
    assert code == UNREADABLE_INPUT
    assert "no such file or directory" in err


def test_completion_script(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "completion", "bash")
    assert code == OK
    assert "_WLMAP_COMPLETE" in out


def test_validate_against_a_crd(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = (
        ROOT / "src" / "wlmap" / "catalog" / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml"
    )
    crd = corpus_path("crds/jobset.x-k8s.io_jobsets.yaml")
    code, out, _ = run(capsys, "validate", str(good), "--crd", str(crd))
    assert code == OK, out
    typo = tmp_path / "typo.yaml"
    typo.write_text(good.read_text().replace("parallelism", "paralelism"))
    code, out, _ = run(capsys, "validate", str(typo), "--crd", str(crd))
    assert code == 5
    assert "has no field 'paralelism' in the JobSet v1alpha2 schema" in out


def test_get_by_name_and_not_found(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "get", "pytorchjob/pytorch-tcp-dist-mnist", "-f", str(EXAMPLES), "-o", "json"
    )
    assert code == OK
    assert json.loads(out)["name"] == "pytorch-tcp-dist-mnist"  # a NAME gives the bare item
    code, _, err = run(capsys, "get", "pytorchjob", "nope", "-f", str(EXAMPLES))
    assert code == NOT_FOUND
    assert "pytorchjob 'nope' is not in the input" in err
