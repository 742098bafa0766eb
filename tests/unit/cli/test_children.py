"""``wlmap describe -f`` on a dump: a PodCliqueSet reads its own PodCliques and scaling groups
(selected by labels and controller owner) and is Degraded when one of them regressed below
minAvailable."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_object
from tests.unit.cli.runner import ROOT, run

# Children as the Grove operator writes them, with a PodClique that regressed below minAvailable.
CASE = (
    ROOT
    / "tests/catalog/cases/grove-io-podcliqueset-v1alpha1/degraded-podclique-below-min-available.yaml"
)


def _dump(tmp_path: Path, change: Any = None) -> Path:
    case = yaml.safe_load(CASE.read_text(encoding="utf-8"))
    pcs = copy.deepcopy(corpus_object("grove-podcliqueset/simple1.yaml", "PodCliqueSet"))
    metadata = case["object"]["metadata"]
    for key in ("namespace", "uid", "generation", "creationTimestamp"):
        pcs["metadata"][key] = metadata[key]
    pcs["status"] = case["object"]["status"]
    children = [*case["references"]["podCliques"], *case["references"]["scalingGroups"]]
    items = [pcs, *children]
    if change is not None:
        change(items)
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def _breached(item: dict[str, Any]) -> bool:
    return any(
        c["type"] == "MinAvailableBreached" and c["status"] == "True"
        for c in item.get("status", {}).get("conditions", ())
    )


def test_a_regressed_child_podclique_makes_the_podcliqueset_degraded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "describe", "-f", str(_dump(tmp_path)))
    assert code == 0
    assert out.startswith("PodCliqueSet/simple1  namespace: default")
    assert out.splitlines()[1] == (
        "Status: Degraded  [degraded[0]: MinAvailableBreached=True (InsufficientReadyPods)]"
    )
    # the children are read through the PodCliqueSet, not reported as uncovered kinds
    assert "no definition covers" not in err
    assert "PodClique/" not in out

    code, out, _ = run(capsys, "describe", "-f", str(_dump(tmp_path)), "-o", "json")
    item = json.loads(out)  # one workload: the object itself
    assert item["phases"] == ["Degraded"]
    (matched,) = item["explanation"]["matched"]
    assert matched["status"] == "Degraded"
    (evidence,) = matched["evidence"]
    assert evidence["holds"] is True
    assert evidence["found"] == {
        "type": "MinAvailableBreached",
        "status": "True",
        "reason": "InsufficientReadyPods",
        "message": "PodClique simple1-0-pca: Insufficient ready or starting pods. "
        "expected at least: 3, found: 1",
    }


def test_a_breached_podclique_of_another_owner_changes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def reown(items: list[dict[str, Any]]) -> None:
        # same labels, but owned by a scaling group (its condition sums such cliques up)
        for item in items:
            if item["kind"] == "PodClique" and _breached(item):
                item["metadata"]["ownerReferences"][0].update(
                    kind="PodCliqueScalingGroup", name="simple1-0-sga", uid="sga-uid"
                )

    code, out, _ = run(capsys, "describe", "-f", str(_dump(tmp_path, reown)), "-o", "json")
    assert code == 0
    assert json.loads(out)["phases"] == ["Initializing"]


def test_a_breached_podclique_of_another_podcliqueset_changes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def relabel(items: list[dict[str, Any]]) -> None:
        for item in items:
            if item["kind"] == "PodClique" and _breached(item):
                item["metadata"]["labels"]["app.kubernetes.io/part-of"] = "other"

    _, out, _ = run(capsys, "describe", "-f", str(_dump(tmp_path, relabel)), "-o", "json")
    assert json.loads(out)["phases"] == ["Initializing"]


def test_without_uids_the_owner_is_matched_by_kind_and_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def hand_written(items: list[dict[str, Any]]) -> None:
        for item in items:
            item["metadata"].pop("uid", None)
            for owner in item["metadata"].get("ownerReferences", ()):
                owner.pop("uid")

    code, out, _ = run(capsys, "describe", "-f", str(_dump(tmp_path, hand_written)), "-o", "json")
    assert code == 0
    assert json.loads(out)["phases"] == ["Degraded"]


def test_explain_names_the_regressed_child(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "explain", "-f", str(_dump(tmp_path)))
    assert code == 0
    assert out.splitlines() == [
        "PodCliqueSet/simple1: Degraded",
        "  degraded[0] matched:",
        "    ✓ condition MinAvailableBreached status=True "
        "(found status=True, reason=InsufficientReadyPods)",
        "  observed condition: MinAvailableBreached=True (InsufficientReadyPods): "
        "PodClique simple1-0-pca: Insufficient ready or starting pods. "
        "expected at least: 3, found: 1",
    ]
