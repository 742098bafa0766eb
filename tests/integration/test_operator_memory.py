"""The operator's memory follows the pods it serves, not the cluster's: 9,000 pods in a
namespace it does not serve cost it less than 10 MB (they cost 93 MB when its cache kept
every pod of the cluster)."""

from __future__ import annotations

from pathlib import Path

from tests.integration.kube import Kube
from tests.integration.memory import (
    label_served,
    make_pods,
    remove_pods,
    serving_operator,
    settled_rss_mb,
)
from tests.integration.testcluster import TestCluster

ELSEWHERE = 9_000
WITHIN_MB = 10.0


def test_pods_of_namespaces_not_served_cost_no_memory(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    label_served(kube, namespace)
    elsewhere = kube.namespace(f"{namespace[:40]}-elsewhere")
    try:
        with serving_operator(kube, cluster.kubeconfig, namespace, tmp_path / "a.log", "a") as op:
            assert op.process is not None
            without = settled_rss_mb(op.process.pid)
        make_pods(cluster.client, elsewhere, ELSEWHERE)
        with serving_operator(kube, cluster.kubeconfig, namespace, tmp_path / "b.log", "b") as op:
            assert op.process is not None
            with_pods = settled_rss_mb(op.process.pid)
    finally:
        remove_pods(cluster.client, elsewhere)
    grown = with_pods - without
    assert grown < WITHIN_MB, (
        f"{ELSEWHERE} pods elsewhere added {grown:.1f} MB ({without:.1f} -> {with_pods:.1f})"
    )
