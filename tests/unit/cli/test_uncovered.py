"""``get --all-types -f`` and ``describe -f`` name the same objects as uncovered: an object
a workload's definition reads by reference (a TrainJob's ClusterTrainingRuntime) is read
through that workload, and only a kind nothing maps or reads is reported."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.unit.cli.runner import ROOT, run
from wlmap.cli._exits import OK

CASE = ROOT / "tests/catalog/cases/trainer-kubeflow-org-trainjob-v1alpha1/multi-node-running.yaml"
MYSTERY = {"apiVersion": "x.io/v1", "kind": "Mystery", "metadata": {"name": "m"}}


def uncovered(err: str) -> list[str]:
    return [line for line in err.splitlines() if "no definition covers" in line]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """The catalog's TrainJob case: the TrainJob, its runtime, and an unmapped object."""
    case = yaml.safe_load(CASE.read_text(encoding="utf-8"))
    path = tmp_path / "trainjob.yaml"
    objects = [case["object"], case["references"]["clusterRuntime"], MYSTERY]
    path.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    return path


def test_get_and_describe_report_the_same_uncovered_objects(
    capsys: pytest.CaptureFixture[str], inputs: Path
) -> None:
    got, listed, got_err = run(capsys, "get", "--all-types", "-f", str(inputs))
    described, shown, described_err = run(capsys, "describe", "-f", str(inputs))
    assert (got, described) == (OK, OK)
    assert "multi-node-example" in listed and "multi-node-example" in shown
    assert (
        uncovered(got_err)
        == uncovered(described_err)
        == [f"warning: {inputs}: no definition covers Mystery (x.io/v1)"]
    )
    assert "ClusterTrainingRuntime" not in got_err + described_err
