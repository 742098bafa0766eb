"""``wlmap describe -f``: the README's output is real, JSON is parseable, errors have exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.corpus import corpus_path
from tests.unit.cli.runner import EXAMPLES, ROOT, run
from wlmap.cli._exits import INVALID_DEFINITION, NO_DEFINITION, UNREADABLE_INPUT


def test_readme_example_is_the_real_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "describe", "-f", str(EXAMPLES))
    assert code == 0
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Example (offline)")[1].split("## As a library")[0]
    blocks = re.findall(r"```\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 2
    for block in blocks:
        assert block.strip() in out


def test_json_keeps_input_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "describe", "-f", str(EXAMPLES), "-o", "json")
    assert code == 0
    data = json.loads(out)
    assert data["count"] == len(data["items"]) == 4
    kinds = [item["kind"] for item in data["items"]]
    assert kinds == ["InferenceService", "JobSet", "PyTorchJob", "RayCluster"]  # file-name order
    assert data["items"][0]["totals"]["gpus"] == 1


def test_uncovered_kind_is_reported_and_non_workloads_are_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: x.io/v1\nkind: Mystery\n"
    )
    code, out, err = run(capsys, "describe", "-f", str(manifest))
    assert code == NO_DEFINITION
    assert "no definition covers Mystery (x.io/v1)" in err
    assert "ConfigMap" not in err
    assert out.strip() == ""


def test_a_trainjob_beside_its_runtime_counts_the_runtime_nodes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    trainjob = corpus_path("kubeflow-trainjob/01-multi-node.yaml")
    runtime = corpus_path("kubeflow-trainingruntime/torch-distributed.yaml")
    code, out, err = run(capsys, "describe", "-f", str(trainjob), "-f", str(runtime))
    assert code == 0
    assert "Totals: 3 pods" in out
    assert "at least 3 pods" in out
    assert "ClusterTrainingRuntime" not in err  # read as the TrainJob's runtime, not uncovered


def test_malformed_manifest_exit_code(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    manifest = tmp_path / "bad.yaml"
    manifest.write_text("kind: [unclosed\n")
    code, _, err = run(capsys, "describe", "-f", str(manifest))
    assert code == UNREADABLE_INPUT
    assert "bad.yaml:2:1: malformed YAML" in err or "bad.yaml:1" in err
    assert "Traceback" not in err


def test_invalid_definition_exit_code(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    definition = tmp_path / "def.yaml"
    definition.write_text(
        "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: broken}\n"
        "spec: {structureDefinition: {rootComponent: {name: x, kind: {group: a, version: v1, kind: B}}}}\n"
    )
    code, _, err = run(capsys, "--definitions", str(definition), "describe", "-f", str(EXAMPLES))
    assert code == INVALID_DEFINITION
    assert "broken component 'x' at spec.structureDefinition.rootComponent.statusDefinition" in err


def test_readme_library_example_runs_and_prints_what_it_says(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [code] = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.strip()
    promised = re.search(r"^# (\[.*)$", code, flags=re.MULTILINE)
    assert promised is not None
    assert promised.group(1).split("  ")[0].strip() == printed
