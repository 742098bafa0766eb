"""Controller managers of workload kinds (JobSet's, Kubeflow Trainer's) against a test
cluster, built from their modules by scripts/build-jobset.sh and build-trainer.sh.

They run outside the cluster, as no pod can run here, so what an install does is done by
the harness: their CRDs are installed from the module's own config, their webhooks are
served on loopback with a certificate the harness makes (their own certificate management
is off), and their webhook configurations, taken from the module, call
``https://127.0.0.1:PORT/PATH`` with that certificate as their CA. Only the webhooks of
``groups`` are installed: a pod webhook of a manager that is not running would slow every
pod of the cluster.
"""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.integration.kube import Kube
from tests.integration.testcluster import REPO, TestCluster, free_port, terminate, wait_ready
from wlmap.operator.core.webhook import self_signed

JOBSET_SCRIPT = REPO / "scripts" / "build-jobset.sh"
TRAINER_SCRIPT = REPO / "scripts" / "build-trainer.sh"
READY_TIMEOUT = 180.0

# The manager's configuration file for a health port, a webhook port and a certificate
# folder: each manager names its fields its own way.
Configure = Callable[[int, int, Path], dict[str, Any]]


def jobset_configuration(health: int, webhook: int, certs: Path) -> dict[str, Any]:
    return {
        "apiVersion": "config.jobset.x-k8s.io/v1alpha1",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": f"127.0.0.1:{health}"},
        "metrics": {"bindAddress": "0"},
        "webhook": {"host": "127.0.0.1", "port": webhook, "certDir": str(certs)},
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
    }


def trainer_configuration(health: int, webhook: int, certs: Path) -> dict[str, Any]:
    # no certificate folder setting: controller-runtime's default under TMPDIR is used
    del certs
    return {
        "apiVersion": "config.trainer.kubeflow.org/v1alpha1",
        "kind": "Configuration",
        "health": {
            "healthProbeBindAddress": f"127.0.0.1:{health}",
            "readinessEndpointName": "readyz",
            "livenessEndpointName": "healthz",
        },
        "metrics": {"bindAddress": "0"},
        "webhook": {"host": "127.0.0.1", "port": webhook},
        "leaderElection": {"leaderElect": False},
        "certManagement": {"enable": False},
        "statusServer": {"port": free_port()},
    }


@dataclass
class Manager:
    """One controller manager, its CRDs and webhooks installed, healthy once started."""

    name: str
    binary: Path  # the build folder holds it beside config/
    cluster: TestCluster
    kube: Kube
    configure: Configure
    groups: frozenset[str]
    webhook_port: int = field(default_factory=free_port)
    health_port: int = field(default_factory=free_port)
    _process: subprocess.Popen[bytes] | None = None
    _webhooks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def folder(self) -> Path:
        return self.cluster.folder / self.name

    @property
    def certs(self) -> Path:
        # controller-runtime's default certificate folder under TMPDIR
        return self.folder / "k8s-webhook-server" / "serving-certs"

    def start(self) -> None:
        self.certs.mkdir(parents=True, exist_ok=True)
        cert, key = self_signed("127.0.0.1")
        (self.certs / "tls.crt").write_bytes(cert)
        (self.certs / "tls.key").write_bytes(key)
        config = self.binary.parent / "config"
        self.kube.install_crds(sorted((config / "crd").glob("*.yaml")))
        self._install_webhooks(config / "webhook" / "manifests.yaml", cert)
        settings = self.folder / "configuration.yaml"
        settings.write_text(
            yaml.safe_dump(self.configure(self.health_port, self.webhook_port, self.certs))
        )
        log_path = self.folder / "manager.log"
        with log_path.open("ab") as log:
            self._process = subprocess.Popen(
                [
                    str(self.binary),
                    f"--config={settings}",
                    f"--kubeconfig={self.cluster.kubeconfig}",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "TMPDIR": str(self.folder)},
            )
        wait_ready(self._process, log_path, self.health_port, self.name, READY_TIMEOUT)

    def stop(self) -> None:
        if self._process is not None:
            terminate(self._process)
            self._process = None
        for configuration in self._webhooks:
            self.kube.delete(configuration)
        self._webhooks.clear()

    def _install_webhooks(self, manifests: Path, cert: bytes) -> None:
        bundle = base64.b64encode(cert).decode()
        for configuration in yaml.safe_load_all(manifests.read_text()):
            hooks = [
                {**hook, "clientConfig": self._client(hook, bundle)}
                for hook in configuration["webhooks"]
                if _groups(hook) <= self.groups
            ]
            name = f"{self.name}-{configuration['metadata']['name']}"
            self._webhooks.append(
                self.kube.create({**configuration, "metadata": {"name": name}, "webhooks": hooks})
            )

    def _client(self, hook: Mapping[str, Any], bundle: str) -> dict[str, Any]:
        path = hook["clientConfig"]["service"]["path"]
        return {"url": f"https://127.0.0.1:{self.webhook_port}{path}", "caBundle": bundle}


def _groups(hook: Mapping[str, Any]) -> set[str]:
    return {group for rule in hook.get("rules") or () for group in rule.get("apiGroups") or ()}


__all__ = [
    "JOBSET_SCRIPT",
    "TRAINER_SCRIPT",
    "Manager",
    "jobset_configuration",
    "trainer_configuration",
]
