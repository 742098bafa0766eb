"""``wlmap describe`` of a live PodCliqueSet: its PodCliques and scaling groups are listed by
label, kept when the PodCliqueSet controls them, and a regressed one makes it Degraded."""

from __future__ import annotations

import copy
import json

import yaml

from tests.integration.grove import CASE, create_child
from tests.integration.kube import Kube, load
from tests.integration.wlmapcli import Wlmap
from wlmap.cli._exits import OK


def test_describe_reads_the_children_the_podcliqueset_controls(
    wlmap: Wlmap, kube: Kube, namespace: str, grove: None
) -> None:
    case = yaml.safe_load(CASE.read_text(encoding="utf-8"))
    (pcs,) = load("grove-podcliqueset/simple1.yaml")
    pcs = kube.create({**pcs, "status": case["object"]["status"]}, namespace)
    children = [*case["references"]["podCliques"], *case["references"]["scalingGroups"]]
    for child in children:
        create_child(kube, namespace, child, pcs)

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
    create_child(kube, namespace, breached, other)
    result = wlmap("describe", "podcliqueset/simple1", "-n", namespace, "-o", "json")
    assert result.code == OK, result.err
    assert json.loads(result.out)["phases"] == ["Initializing"], result
