"""``wlmap metrics -f`` and ``wlmap describe -o json`` tell the same pods and GPUs for every
workload of the catalog's examples and of the corpus."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import CORPUS, corpus_params
from tests.unit.cli.runner import EXAMPLES, run
from tests.unit.metrics.exposition import samples

CORPUS_FILES = sorted(
    p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and "crds" not in p.parts
)
EXAMPLE_FILES = sorted(p for p in EXAMPLES.glob("*.yaml"))

Key = tuple[str, str, str]  # kind, namespace, name
Facts = dict[str, Any]


def _from_describe(out: str) -> dict[Key, list[Facts]]:
    if not out.strip():
        return {}
    payload = json.loads(out)
    items = payload.get("items", [payload])
    found: dict[Key, list[Facts]] = defaultdict(list)
    for item in items:
        components = {
            (c["name"] if c["instance"] is None else f"{c['name']}/{c['instance']}"): (
                c["pods"],
                c["gpus"],
            )
            for c in item["components"]
            if c["pods"] or c["gpus"]
        }
        found[(item["kind"], item["namespace"] or "", item["name"] or "")].append(
            {
                "pods": item["totals"]["pods"],
                "gpus": item["totals"]["gpus"],
                "components": components,
            }
        )
    return found


def _from_metrics(out: str) -> dict[Key, list[Facts]]:
    per: dict[Key, Facts] = defaultdict(lambda: {"pods": 0, "gpus": None, "components": {}})
    component_pods: dict[tuple[Key, str], float] = {}
    component_gpus: dict[tuple[Key, str], float] = {}
    for name, labels, value in samples(out):
        if "workload" not in labels or name.startswith("wlmap_pod_"):
            continue
        key = (labels["kind"], labels["namespace"], labels["workload"])
        if name == "wlmap_workload_component_pods_desired":
            per[key]["pods"] += value
            component_pods[(key, labels["component"])] = value
        elif name == "wlmap_workload_component_gpus_requested":
            component_gpus[(key, labels["component"])] = value
        elif name == "wlmap_workload_gpus_requested":
            per[key]["gpus"] = value
        elif name == "wlmap_workload_info":
            per.setdefault(key, per[key])  # a workload of no component is still one
    for (key, component), pods in component_pods.items():
        gpus = component_gpus.get((key, component), 0)
        if pods or gpus:
            per[key]["components"][component] = (pods, gpus)
    return {key: [facts] for key, facts in per.items()}


def _compare(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    _, described, _ = run(capsys, "describe", "-f", str(path), "-o", "json")
    code, exposition, err = run(capsys, "metrics", "-f", str(path))
    assert "Traceback" not in err and "unexpected" not in err, err
    expected = _from_describe(described)
    if not expected:
        return
    assert code == 0, err
    got = _from_metrics(exposition)
    assert set(got) == set(expected)
    for key, views in expected.items():
        if len(views) > 1:  # the same name twice in one file: series of one of them
            continue
        [want], [have] = views, got[key]
        assert have["pods"] == want["pods"], key
        assert have["gpus"] == pytest.approx(want["gpus"]), key
        assert {c: (p, pytest.approx(g)) for c, (p, g) in want["components"].items()} == (
            have["components"]
        ), key


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_examples_agree_with_describe(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _compare(capsys, path)


@pytest.mark.parametrize("path", corpus_params(CORPUS_FILES))
def test_corpus_manifests_agree_with_describe(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _compare(capsys, path)
