"""The operator as its users run it: a separate process, started, killed and restarted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.integration.kube import Kube, wait_for
from tests.integration.testcluster import free_port


@dataclass
class OperatorProcess:
    """``python -m wlmap.operator`` for one namespace (None: those its namespace selector
    opts in) and target, logging to a file."""

    kubeconfig: Path
    namespace: str | None
    log: Path
    target: str = "kai"
    context: str | None = None
    arguments: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # settings from the environment
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def health(self) -> str:
        return f"http://127.0.0.1:{self.port}/healthz"

    def start(self) -> OperatorProcess:
        out = self.log.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "wlmap.operator",
                "--target",
                self.target,
                *(["-n", self.namespace] if self.namespace else []),
                *self.arguments,
                "--kubeconfig",
                str(self.kubeconfig),
                "--health",
                self.health,
                *(["--context", self.context] if self.context else []),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
        )
        wait_for(self.healthy, "the operator's health endpoint", timeout=60)
        return self

    def healthy(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(
                f"the operator exited with {self.process.returncode}:\n{self.output()[-3000:]}"
            )
        try:
            return httpx.get(self.health, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        """Stop at once, as a crash or an evicted pod would."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def refused_lines(log: str) -> list[str]:
    """The operator's log lines that report a refused request: "forbidden" in the message
    (not in an object's name, which another test's namespace may well contain)."""
    found = []
    for line in log.splitlines():
        try:
            message = str(json.loads(line).get("message", ""))
        except (ValueError, AttributeError):
            message = line  # a plain-text line is all message
        if "forbidden" in message.lower():
            found.append(line)
    return found


PLACEMENT_WEBHOOK = "wlmap.dev"  # the MutatingWebhookConfiguration kopf keeps


def placement_operator(
    kube: Kube, config: Path, namespace: str, folder: Path, levels: Sequence[str]
) -> OperatorProcess:
    """The operator serving ``namespace`` with the placement controller on (topology
    ``levels``, coarsest first), started with a kubeconfig, once its webhook is registered
    with the API server."""
    env = {
        "WLMAP_PLACEMENT": "true",
        "WLMAP_PLACEMENT_LEVELS": ",".join(levels),
        "WLMAP_WEBHOOK": f"127.0.0.1:{free_port()}",
        "WLMAP_LOG_FORMAT": "plain",
    }
    process = OperatorProcess(config, namespace, folder / "operator.log", env=env).start()
    try:
        wait_for(lambda: _registered(kube, env["WLMAP_WEBHOOK"]), "the gating webhook registered")
    except AssertionError:
        process.stop()
        raise
    return process


def workload_api_operator(
    kube: Kube, config: Path, namespace: str, folder: Path
) -> OperatorProcess:
    """The operator serving ``namespace`` with the Workload API target, started once its
    pod-group webhook (which sets a pod's ``spec.schedulingGroup`` at creation) is
    registered with the API server; on a port of its own, as several may run at once."""
    env = {"WLMAP_WEBHOOK": f"127.0.0.1:{free_port()}", "WLMAP_LOG_FORMAT": "plain"}
    process = OperatorProcess(
        config, namespace, folder / "operator.log", target="workload-api", env=env
    ).start()
    try:
        wait_for(
            lambda: _registered(kube, env["WLMAP_WEBHOOK"]), "the pod-group webhook registered"
        )
    except AssertionError:
        process.stop()
        raise
    return process


def _registered(kube: Kube, address: str) -> bool:
    found = kube.get(
        "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", None, PLACEMENT_WEBHOOK
    )
    hooks = (found or {}).get("webhooks") or ()
    return any(address in str(h.get("clientConfig", {}).get("url", "")) for h in hooks)
