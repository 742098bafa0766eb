"""Kueue's controller manager against a KWOK test cluster, built by scripts/build-kueue.sh.

Kueue runs outside the cluster, as no pod can run here, so three things a Kubernetes
install does are done by the harness:

- Kueue's webhooks (its own CRDs' mutation, validation and conversion, and batch Jobs')
  are reached through a Service of type ExternalName naming ``localhost``: the API server
  sends a service webhook to the name an ExternalName gives, on the port the webhook
  configuration names (Kueue's, on a free port), and checks the certificate against the
  service's DNS name as in a cluster.
- Kueue's internal certificate management makes the certificate and injects its CA into
  the webhook configurations and CRDs as usual; it then waits for the certificate to be
  mounted from its Secret into its certificate folder, which a kubelet would do. The
  harness copies it there.
- Only the batch/job integration is enabled, and only the webhooks of Kueue's own kinds
  and of Jobs are installed: the others would reject every pod, Deployment and
  StatefulSet with no server behind them.
"""

from __future__ import annotations

import base64
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.integration.kube import Kube, wait_for
from tests.integration.testcluster import REPO, TestCluster, free_port, terminate, wait_ready

KUEUE_SCRIPT = REPO / "scripts" / "build-kueue.sh"
NAMESPACE = "kueue-system"
SERVICE = "kueue-webhook-service"
SECRET = "kueue-webhook-server-cert"
KEPT_GROUPS = {"kueue.x-k8s.io", "batch"}
READY_TIMEOUT = 180.0


@dataclass
class Kueue:
    """Kueue's controller manager, its CRDs and webhooks installed, healthy once started."""

    binaries: Path
    cluster: TestCluster
    kube: Kube
    webhook_port: int = field(default_factory=free_port)
    _webhooks: list[dict[str, Any]] = field(default_factory=list)
    health_port: int = field(default_factory=free_port)
    _process: subprocess.Popen[bytes] | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    @property
    def certs(self) -> Path:
        return self.cluster.folder / "kueue-certs"

    def start(self) -> None:
        self.kube.namespace(NAMESPACE)
        # empty: the certificate management fills it, as in Kueue's install
        self.kube.create(
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": SECRET}}, NAMESPACE
        )
        self._install_service()
        self._install_crds()
        self._install_webhooks()
        self.certs.mkdir(parents=True, exist_ok=True)
        config = self.cluster.folder / "kueue.yaml"
        config.write_text(yaml.safe_dump(self._configuration()))
        log_path = self.cluster.folder / "kueue.log"
        with log_path.open("ab") as log:
            self._process = subprocess.Popen(
                [
                    str(self.binaries / "kueue"),
                    f"--config={config}",
                    f"--kubeconfig={self.cluster.kubeconfig}",
                    f"--visibility-server-port={free_port()}",
                    "--feature-gates=VisibilityOnDemand=false",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        threading.Thread(target=self._mount_certificate, daemon=True).start()
        wait_ready(self._process, log_path, self.health_port, "kueue", READY_TIMEOUT)

    def stop(self) -> None:
        """Stop the manager and take its webhooks out: the cluster is shared by the
        session, and a webhook of a stopped Kueue would suspend (or refuse) the Jobs other
        tests submit, corpus Jobs carrying a queue-name label among them."""
        self._stop.set()
        if self._process is not None:
            terminate(self._process)
            self._process = None
        for configuration in self._webhooks:
            self.kube.delete(configuration)
        self._webhooks.clear()

    def _configuration(self) -> dict[str, Any]:
        return {
            "apiVersion": "config.kueue.x-k8s.io/v1beta2",
            "kind": "Configuration",
            "namespace": NAMESPACE,
            "health": {"healthProbeBindAddress": f"127.0.0.1:{self.health_port}"},
            "metrics": {"bindAddress": "0"},
            "webhook": {"host": "127.0.0.1", "port": self.webhook_port, "certDir": str(self.certs)},
            "leaderElection": {"leaderElect": False},
            "internalCertManagement": {
                "enable": True,
                "webhookServiceName": SERVICE,
                "webhookSecretName": SECRET,
            },
            "integrations": {"frameworks": ["batch/job"]},
        }

    def _service_reference(self, path: str) -> dict[str, Any]:
        return {"namespace": NAMESPACE, "name": SERVICE, "path": path, "port": self.webhook_port}

    def _install_service(self) -> None:
        port = {"name": "webhook", "port": self.webhook_port}
        service = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": SERVICE},
            "spec": {"type": "ExternalName", "externalName": "localhost", "ports": [port]},
        }
        self.kube.create(service, NAMESPACE)

    def _install_crds(self) -> None:
        config = self.binaries / "config"
        converted = {
            yaml.safe_load(p.read_text())["metadata"]["name"]
            for p in (config / "crd-patches").glob("*.yaml")
        }
        paths = []
        for path in sorted((config / "crd").glob("*.yaml")):
            crd = yaml.safe_load(path.read_text())
            if crd["metadata"]["name"] in converted:
                crd["spec"]["conversion"] = {
                    "strategy": "Webhook",
                    "webhook": {
                        "clientConfig": {"service": self._service_reference("/convert")},
                        "conversionReviewVersions": ["v1"],
                    },
                }
            target = self.cluster.folder / "kueue-crds" / path.name
            target.parent.mkdir(exist_ok=True)
            target.write_text(yaml.safe_dump(crd))
            paths.append(target)
        self.kube.install_crds(paths)

    def _install_webhooks(self) -> None:
        manifests = self.binaries / "config" / "webhook" / "manifests.yaml"
        for configuration in yaml.safe_load_all(manifests.read_text()):
            hooks = []
            for hook in configuration["webhooks"]:
                if _groups(hook) <= KEPT_GROUPS:
                    path = hook["clientConfig"]["service"]["path"]
                    hooks.append(
                        {**hook, "clientConfig": {"service": self._service_reference(path)}}
                    )
            name = "kueue-" + configuration["metadata"]["name"]
            self._webhooks.append(
                self.kube.create({**configuration, "metadata": {"name": name}, "webhooks": hooks})
            )

    def _mount_certificate(self) -> None:
        """Copy the certificate's Secret into the certificate folder, as a kubelet would
        mount it, until stopped (the Secret may be rewritten once after its creation)."""
        written: dict[str, str] = {}
        while not self._stop.wait(5.0 if written else 0.5):
            try:
                secret = self.kube.get("v1", "Secret", NAMESPACE, SECRET)
            except (AssertionError, httpx.HTTPError):
                continue
            data = (secret or {}).get("data") or {}
            # the certificate last: its file is what Kueue waits for, then reads the key
            for name in sorted(data, key=lambda name: name == "tls.crt"):
                if written.get(name) != data[name]:
                    partial = self.certs / f".{name}.partial"
                    partial.write_bytes(base64.b64decode(data[name]))
                    partial.replace(self.certs / name)
                    written[name] = data[name]


def _groups(hook: dict[str, Any]) -> set[str]:
    return {group for rule in hook.get("rules") or () for group in rule.get("apiGroups") or ()}


def admitted(kube: Kube, namespace: str, name: str) -> bool:
    job = kube.get("batch/v1", "Job", namespace, name)
    return job is not None and not job["spec"].get("suspend")


__all__ = ["KUEUE_SCRIPT", "Kueue", "admitted", "wait_for"]
