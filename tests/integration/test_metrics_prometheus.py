"""The exporter on the KWOK cluster, scraped by a real Prometheus with the generated rules,
beside a fake dcgm-exporter whose GPU utilisation the test sets.

Two Jobs hold GPUs: ``idle`` (team vision, two pods of 8 GPUs at 0 %) and ``busy`` (team
speech, one pod of 8 GPUs at 80 %). Prometheus must name ``idle`` in the idle alert and not
``busy``; the GPU-seconds counters must match the integral of each pod's GPUs from its start
time (read from the pods) to the sample's time, or to its deletion; and the deleted Job's
series must be gone from the scrape.
"""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.fake_dcgm import FakeDcgm, Gpu
from tests.integration.fakenodes import RACK_LABEL, KwokCluster
from tests.integration.kube import Kube, wait_for
from tests.integration.kwokpods import owned_pods, pod_template, running
from tests.integration.prometheus import Prometheus
from tests.integration.testcluster import free_port, terminate
from wlmap.metrics.rules import RuleSettings, render_rules

GPUS = 8
IDLE_SECONDS = 3
# the GPU-hours rules' window, short enough for the test to see one whole
HOURS_WINDOW = 30
SHORT = RuleSettings(
    idle_ratio=0.05,
    idle_seconds=IDLE_SECONDS,
    gpu_hours_seconds=HOURS_WINDOW,
    interval_seconds=1,
    domain_keys=(RACK_LABEL,),
)


def start_time(pod: dict[str, Any]) -> float:
    return datetime.fromisoformat(pod["status"]["startTime"].replace("Z", "+00:00")).timestamp()


class Exporter:
    """``wlmap metrics serve`` as a process; ``scope``: its namespace options."""

    def __init__(self, kubeconfig: Path, log: Path, *scope: str, port: int = 0) -> None:
        self.port = port or free_port()
        self.log = log
        self.kubeconfig = kubeconfig
        self.scope = scope
        wlmap = Path(sys.executable).parent / "wlmap"
        self.process = subprocess.Popen(
            [
                str(wlmap),
                "--kubeconfig",
                str(kubeconfig),
                "metrics",
                "serve",
                "--port",
                str(self.port),
                "--domain-key",
                RACK_LABEL,
                *scope,
            ],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def scrape(self) -> str:
        return httpx.get(f"http://{self.target}/metrics", timeout=5).text

    def synced(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"the exporter exited:\n{self.log.read_text()[-3000:]}")
        try:
            return httpx.get(f"http://{self.target}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        terminate(self.process)


def job(kube: Kube, namespace: str, name: str, team: str, pods: int) -> dict[str, Any]:
    return kube.create(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": name, "labels": {"team": team}},
            "spec": {
                "parallelism": pods,
                "completions": pods,
                "template": pod_template({}, GPUS, {"app": name}, restart="Never"),
            },
        },
        namespace,
    )


def restart(process: Exporter, log: Path, prometheus: Prometheus) -> Exporter:
    """Stop the exporter and start another on its port; once Prometheus scraped it."""
    process.stop()
    restarted = time.time()
    again = Exporter(process.kubeconfig, log, *process.scope, port=process.port)
    wait_for(again.synced, "the restarted exporter's caches synced", timeout=90)
    wait_for(
        lambda: prometheus.query(f"timestamp(wlmap_team_gpu_seconds_total) > {restarted + 1}"),
        "a scrape of the restarted exporter",
        timeout=30,
    )
    return again


def report(dcgm: FakeDcgm, pods: list[dict[str, Any]], utilisation: float) -> None:
    """The fake dcgm-exporter reports each GPU of each pod at ``utilisation`` percent."""
    for pod in pods:
        for index in range(GPUS):
            meta = pod["metadata"]
            gpu = Gpu(pod["spec"]["nodeName"], index, meta["namespace"], meta["name"], "train")
            dcgm.set(gpu, utilisation)


def workloads(prometheus: Prometheus, expr: str) -> set[str]:
    return {sample["labels"].get("workload", "") for sample in prometheus.query(expr)}


def gpu_hours_recorded(prometheus: Prometheus, team: str, gpus: int) -> None:
    """The team's GPU-hours recording rule, over a whole window of scrapes in which its
    pods held ``gpus`` GPUs all through, equals that integral within 1 %."""
    # scraped since before the window the rule last looked at: increase() then has no
    # edge to guess, and a counter that grows steadily is read exactly
    covered = HOURS_WINDOW + 5
    scraped = f'count_over_time(wlmap_team_gpu_seconds_total{{team="{team}"}}[{covered}s])'
    wait_for(
        lambda: prometheus.query(f"{scraped} >= {covered - 2}"),
        "a whole GPU-hours window scraped",
        timeout=HOURS_WINDOW * 3,
    )
    # the rule is named after its window (a day in production)
    hours = prometheus.query(f'{{__name__=~"wlmap:team_gpu_hours:.*", team="{team}"}}')
    held = gpus * HOURS_WINDOW / 3600
    assert [s["value"] for s in hours] == [pytest.approx(held, rel=0.01)]


def test_prometheus_finds_the_idle_workload_counts_gpu_seconds_and_drops_deleted_ones(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    prometheus_binaries: Path,
    tmp_path: Path,
) -> None:
    kube, ns = kwok_cluster.kube, kwok_namespace
    assert kube.get("v1", "ConfigMap", ns, "wlmap-metrics-checkpoint") is None
    idle = job(kube, ns, "idle", "vision", 2)
    busy = job(kube, ns, "busy", "speech", 1)
    idle_pods = wait_for(running(kube, ns, idle, 2), "the idle Job's 2 pods Running")
    busy_pods = wait_for(running(kube, ns, busy, 1), "the busy Job's pod Running")
    rules = tmp_path / "rules.yaml"
    rules.write_text(render_rules(SHORT))
    with FakeDcgm() as dcgm:
        report(dcgm, idle_pods, 0.0)
        report(dcgm, busy_pods, 80.0)
        scope = ("--namespaces", ns, "--checkpoint-namespace", ns)
        process = Exporter(kwok_cluster.cluster.kubeconfig, tmp_path / "exporter.log", *scope)
        prometheus = Prometheus(
            prometheus_binaries,
            tmp_path / "prometheus",
            {"wlmap": process.target, "dcgm": dcgm.target},
            rules,
        )
        try:
            wait_for(process.synced, "the exporter's caches synced", timeout=90)
            prometheus.start()
            wait_for(prometheus.targets_up, "both targets scraped", timeout=30)

            # the idle alert names the idle Job once it has stayed under 5 % for its window
            firing = 'ALERTS{alertname="WlmapWorkloadGPUsIdle", alertstate="firing"}'
            wait_for(lambda: workloads(prometheus, firing), "the idle alert firing", timeout=60)
            assert workloads(prometheus, firing) == {"idle"}
            assert workloads(prometheus, "wlmap:workload_gpu_utilization:ratio < 0.05") == {"idle"}
            busy_ratio = prometheus.query('wlmap:workload_gpu_utilization:ratio{workload="busy"}')
            assert [s["value"] for s in busy_ratio] == [pytest.approx(0.8)]

            gpu_hours_recorded(prometheus, "vision", len(idle_pods) * GPUS)

            # the busy Job is deleted: its pod stops holding GPUs, its series go
            deleted = time.time()
            kube.delete(busy)
            wait_for(lambda: not owned_pods(kube, ns, busy), "the busy Job's pod removed")
            gone = time.time()
            dcgm.forget(busy_pods[0]["metadata"]["name"])
            wait_for(
                lambda: not prometheus.query('{__name__=~"wlmap_.*", workload="busy"}'),
                "the busy Job's series gone from the last scrape",
                timeout=30,
            )
            assert workloads(prometheus, "wlmap_workload_info") == {"idle"}

            # a restart: the deleted pod's seconds come back from the checkpoint
            process = restart(process, tmp_path / "exporter-2.log", prometheus)
            assert kube.get("v1", "ConfigMap", ns, "wlmap-metrics-checkpoint") is not None
            resets = prometheus.query("resets(wlmap_team_gpu_seconds_total[5m])")
            assert {s["labels"]["team"]: s["value"] for s in resets} == {
                "vision": 0,
                "speech": 0,
            }

            # GPU-seconds per team against the integral from the pods' start times
            samples = prometheus.query(
                "wlmap_team_gpu_seconds_total or label_replace(timestamp("
                'wlmap_team_gpu_seconds_total), "at", "1", "", "")'
            )
        finally:
            prometheus.stop()
            process.stop()
    counted = {s["labels"]["team"]: s["value"] for s in samples if "at" not in s["labels"]}
    at = {s["labels"]["team"]: s["value"] for s in samples if "at" in s["labels"]}
    vision = sum(GPUS * (at["vision"] - start_time(pod)) for pod in idle_pods)
    assert counted["vision"] == pytest.approx(vision, rel=0.01)
    began = start_time(busy_pods[0])
    low, high = GPUS * (deleted - began), GPUS * (gone + 1 - began)
    assert low * 0.99 <= counted["speech"] <= high * 1.01, (low, counted["speech"], high)
