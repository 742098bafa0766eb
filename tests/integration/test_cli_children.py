"""``wlmap describe`` of a live PodCliqueSet: its PodCliques and scaling groups are listed by
label, kept when the PodCliqueSet controls them, and a regressed one makes it Degraded."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.kube import Kube, load
from tests.integration.wlmapcli import Wlmap
from wlmap.cli._exits import OK

CASE = (
    Path(__file__).resolve().parents[1]
    / "catalog/cases/grove-io-podcliqueset-v1alpha1/degraded-podclique-below-min-available.yaml"
)


def _crd(kind: str, plural: str) -> dict[str, Any]:
    """A CRD for a Grove child kind that keeps every field (the test writes what Grove writes)."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.grove.io"},
        "spec": {
            "group": "grove.io",
            "scope": "Namespaced",
            "names": {"kind": kind, "plural": plural, "listKind": f"{kind}List"},
            "versions": [
                {
                    "name": "v1alpha1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }


@pytest.fixture
def grove(kube: Kube, tmp_path: Path) -> Iterator[None]:
    files = []
    for kind, plural in (
        ("PodClique", "podcliques"),
        ("PodCliqueScalingGroup", "podcliquescalinggroups"),
    ):
        path = tmp_path / f"{plural}.yaml"
        path.write_text(yaml.safe_dump(_crd(kind, plural)))
        files.append(path)
    names = kube.install_crds(["grove.io_podcliquesets.yaml", *files])
    try:
        yield
    finally:
        kube.remove_crds(names)


def _child(
    kube: Kube, namespace: str, child: dict[str, Any], owner: dict[str, Any]
) -> dict[str, Any]:
    """``child`` created as owned by ``owner``, its condition times moved to its own clock."""
    body = copy.deepcopy(child)
    metadata = body["metadata"]
    for key in (
        "uid",
        "creationTimestamp",
        "namespace",
        "finalizers",
    ):  # no controller to clear finalizers
        metadata.pop(key, None)
    metadata["ownerReferences"][0].update(
        name=owner["metadata"]["name"], uid=owner["metadata"]["uid"]
    )
    status = body.pop("status")
    created = kube.create(body, namespace)
    born = datetime.fromisoformat(created["metadata"]["creationTimestamp"])
    for condition in status.get("conditions", ()):
        # keep each transition as far after creation as the case has it
        offset = datetime.fromisoformat(condition["lastTransitionTime"]) - datetime.fromisoformat(
            child["metadata"]["creationTimestamp"]
        )
        condition["lastTransitionTime"] = (born + offset).strftime("%Y-%m-%dT%H:%M:%SZ")
    return kube.set_status(created, status)


def test_describe_reads_the_children_the_podcliqueset_controls(
    wlmap: Wlmap, kube: Kube, namespace: str, grove: None
) -> None:
    case = yaml.safe_load(CASE.read_text(encoding="utf-8"))
    (pcs,) = load("grove-podcliqueset/simple1.yaml")
    pcs = kube.create({**pcs, "status": case["object"]["status"]}, namespace)
    children = [*case["references"]["podCliques"], *case["references"]["scalingGroups"]]
    for child in children:
        _child(kube, namespace, child, pcs)

    result = wlmap("describe", "podcliqueset/simple1", "-n", namespace, "-o", "json")
    assert result.code == OK, result.err
    view = json.loads(result.out)
    assert view["phases"] == ["Degraded"], result
    (condition,) = view["explanation"]["observed"]["conditions"]
    assert condition["message"].startswith("PodClique simple1-0-pca: Insufficient ready")

    # the regressed PodClique replaced by one with the same labels that another PodCliqueSet
    # controls: listed by the label selector, left out by the owner rule
    kube.delete({**children[0], "metadata": {**children[0]["metadata"], "namespace": namespace}})
    other = kube.create({**copy.deepcopy(pcs), "metadata": {"name": "other"}}, namespace)
    breached = copy.deepcopy(children[0])
    breached["metadata"]["name"] = "other-0-pca"
    _child(kube, namespace, breached, other)
    result = wlmap("describe", "podcliqueset/simple1", "-n", namespace, "-o", "json")
    assert result.code == OK, result.err
    assert json.loads(result.out)["phases"] == ["Initializing"], result
