"""A real Prometheus and promtool, built by scripts/fetch-prometheus.sh: promtool checks and
unit-tests the generated rules; the server scrapes the exporter and the fake dcgm-exporter
on loopback and answers PromQL over its HTTP API."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.integration.kube import wait_for
from tests.integration.testcluster import REPO, free_port, terminate

PROMETHEUS_SCRIPT = REPO / "scripts" / "fetch-prometheus.sh"
WHAT = "prometheus and promtool"


def promtool(binaries: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """promtool with ``args``; its output (both streams) in ``stdout``."""
    return subprocess.run(
        [str(binaries / "promtool"), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )


@dataclass
class Prometheus:
    """A Prometheus server scraping ``targets`` (job name → host:port) every
    ``interval`` seconds and evaluating ``rules`` (a rule file) as often."""

    binaries: Path
    folder: Path
    targets: dict[str, str]
    rules: Path | None = None
    interval: float = 1.0
    port: int = field(default_factory=free_port)
    _process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Prometheus:
        self.folder.mkdir(parents=True, exist_ok=True)
        every = f"{int(self.interval * 1000)}ms"
        config: dict[str, Any] = {
            "global": {"scrape_interval": every, "evaluation_interval": every},
            "scrape_configs": [
                {"job_name": job, "static_configs": [{"targets": [target]}]}
                for job, target in self.targets.items()
            ],
        }
        if self.rules is not None:
            config["rule_files"] = [str(self.rules)]
        (self.folder / "prometheus.yml").write_text(yaml.safe_dump(config))
        log = (self.folder / "prometheus.log").open("wb")
        self._process = subprocess.Popen(
            [
                str(self.binaries / "prometheus"),
                f"--config.file={self.folder / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.folder / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_for(self._ready, "Prometheus to be ready", timeout=60)
        return self

    def _ready(self) -> bool:
        assert self._process is not None
        if self._process.poll() is not None:
            log = (self.folder / "prometheus.log").read_text(errors="replace")
            raise RuntimeError(f"prometheus exited:\n{log[-3000:]}")
        try:
            return httpx.get(f"{self.url}/-/ready", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        if self._process is not None:
            terminate(self._process)
            self._process = None

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The instant vector ``expr`` evaluates to now: each sample's labels and value."""
        answer = httpx.get(f"{self.url}/api/v1/query", params={"query": expr}, timeout=10)
        answer.raise_for_status()
        body = answer.json()
        assert body["status"] == "success", body
        return [
            {"labels": sample["metric"], "value": float(sample["value"][1])}
            for sample in body["data"]["result"]
        ]

    def targets_up(self) -> bool:
        """Whether every target's last scrape succeeded."""
        samples = self.query("up")
        return len(samples) == len(self.targets) and all(s["value"] == 1 for s in samples)


__all__ = ["PROMETHEUS_SCRIPT", "WHAT", "Prometheus", "promtool"]
