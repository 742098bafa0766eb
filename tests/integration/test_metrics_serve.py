"""``wlmap metrics serve --namespace-selector``: the namespaces the selector picks are
served, and a namespace that stops matching takes its workloads' series with it."""

from __future__ import annotations

from pathlib import Path

from tests.integration.fakenodes import KwokCluster
from tests.integration.kube import wait_for
from tests.integration.kwokpods import running
from tests.integration.test_metrics_prometheus import Exporter, job


def test_a_namespace_leaving_the_selector_takes_its_series_along(
    kwok_cluster: KwokCluster, kwok_namespace: str, tmp_path: Path
) -> None:
    kube, ns = kwok_cluster.kube, kwok_namespace
    namespace = kube.get("v1", "Namespace", None, ns)
    assert namespace is not None
    kube.patch(namespace, {"metadata": {"labels": {"metrics-test": "on"}}})
    train = job(kube, ns, "train", "vision", 1)
    wait_for(running(kube, ns, train, 1), "the Job's pod Running")
    info = f'wlmap_workload_info{{namespace="{ns}",workload="train",kind="Job"'
    exporter = Exporter(
        kwok_cluster.cluster.kubeconfig,
        tmp_path / "exporter.log",
        "--namespace-selector",
        "metrics-test=on",
        "--checkpoint-namespace",
        "",
    )
    try:
        wait_for(exporter.synced, "the exporter's caches synced", timeout=90)
        text = exporter.scrape()
        assert info in text
        assert f'wlmap_namespace_gpus_held{{namespace="{ns}"}} 8' in text
        kube.patch(namespace, {"metadata": {"labels": {"metrics-test": "off"}}})
        wait_for(lambda: info not in exporter.scrape(), "the Job's series gone", timeout=30)
        assert f'namespace="{ns}",pod=' not in exporter.scrape()
        kube.patch(namespace, {"metadata": {"labels": {"metrics-test": "on"}}})
        wait_for(lambda: info in exporter.scrape(), "the Job's series back", timeout=30)
    finally:
        exporter.stop()
        kube.delete(train)
