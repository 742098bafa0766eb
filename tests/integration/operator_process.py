"""The operator as its users run it: a separate process, started, killed and restarted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.integration.kube import wait_for
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
