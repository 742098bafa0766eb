"""The operator with ``--metrics-port``: the exporter's series of the workloads it
reconciles, served from what it reads anyway, gone with the workload."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster, free_port


@pytest.fixture
def metrics_operator(
    cluster: TestCluster, namespace: str, tmp_path: Path
) -> Iterator[tuple[OperatorProcess, str]]:
    port = free_port()
    process = OperatorProcess(
        cluster.kubeconfig,
        namespace,
        tmp_path / "operator.log",
        arguments=("--metrics-port", str(port)),
    )
    try:
        yield process.start(), f"http://127.0.0.1:{port}/metrics"
    finally:
        process.stop()


def scrape(url: str) -> str:
    answer = httpx.get(url, timeout=5)
    answer.raise_for_status()
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    return answer.text


def scraped_with(url: str, part: str) -> str:
    text = scrape(url)
    return text if part in text else ""


def test_the_operator_serves_a_reconciled_jobsets_series_and_drops_them_with_it(
    kube: Kube, namespace: str, metrics_operator: tuple[OperatorProcess, str]
) -> None:
    _, url = metrics_operator
    (obj,) = load("jobset/coordinator.yaml")
    created = kube.create(obj, namespace)
    pods = jobset_children(kube, created)
    name = created["metadata"]["name"]
    info = f'wlmap_workload_info{{namespace="{namespace}",workload="{name}",kind="JobSet"'
    wait_for(lambda: "wlmap_exporter_cache_synced 1" in scrape(url), "the metrics synced")
    wait_for(lambda: scraped_with(url, info), "the JobSet's info series")

    def joined() -> set[str]:
        lines = scrape(url).splitlines()
        return {
            pod["metadata"]["name"]
            for pod in pods
            for line in lines
            if line.startswith("wlmap_pod_workload_info{")
            and f'pod="{pod["metadata"]["name"]}"' in line
            and f'workload="{name}"' in line
        }

    # the pods come after the JobSet: their links bring it back to be reconciled
    wait_for(lambda: len(joined()) == len(pods), f"a join series for each of {len(pods)} pods")
    kube.delete(created)
    wait_for(lambda: info not in scrape(url), "the JobSet's series gone")
