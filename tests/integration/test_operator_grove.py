"""The operator on a Grove PodCliqueSet: its PodCliques, selected by label, come from the
watch-fed cache, so reconciling the PodCliqueSet again lists nothing from the server."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import yaml

from tests.integration.grove import CASE, create_child
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, min_member
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster

PODCLIQUE_LISTS = re.compile(
    r'^apiserver_request_total\{[^}]*resource="podcliques"[^}]*\} (\S+)$', re.MULTILINE
)


def podclique_lists(metrics: httpx.Client) -> int:
    """LIST requests for PodCliques the server has answered so far."""
    text = metrics.get("/metrics").text
    return sum(
        int(float(match[1]))
        for match in PODCLIQUE_LISTS.finditer(text)
        if 'verb="LIST"' in match[0]
    )


def reconciled(operator: OperatorProcess) -> int:
    return int(httpx.get(operator.health, timeout=10).json().get("reconciled", 0))


def test_reconciling_a_podcliqueset_again_reads_its_podcliques_from_the_watch(
    cluster: TestCluster, kube: Kube, namespace: str, grove: None, tmp_path: Path
) -> None:
    operator = OperatorProcess(cluster.kubeconfig, namespace, tmp_path / "operator.log")
    operator.start()
    try:
        case = yaml.safe_load(CASE.read_text(encoding="utf-8"))
        (pcs,) = load("grove-podcliqueset/simple1.yaml")
        pcs = kube.create({**pcs, "status": case["object"]["status"]}, namespace)
        for child in (*case["references"]["podCliques"], *case["references"]["scalingGroups"]):
            create_child(kube, namespace, child, pcs)
        (group,) = wait_for(lambda: kube.list(*KAI, namespace), "the PodCliqueSet's PodGroup")
        # one replica: minAvailable of each clique (pca 3, pcd 2) and of the scaling group
        # (one replica of pcb 2 + pcc 2)
        assert min_member(group) == 9

        metrics = cluster.client()
        before, done = podclique_lists(metrics), reconciled(operator)
        for touch in range(1, 4):  # each change of the PodCliqueSet reconciles it again
            kube.patch(pcs, {"metadata": {"annotations": {"example.com/touch": str(touch)}}})
            target = done + touch
            wait_for(lambda: reconciled(operator) >= target, "the reconciliation")  # noqa: B023
        assert podclique_lists(metrics) == before, "PodCliques listed again per reconciliation"
    finally:
        operator.stop()
