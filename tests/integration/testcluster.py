"""A real etcd and kube-apiserver on loopback, built by scripts/build-apiserver.sh.

The server authenticates static bearer tokens: ``admin`` (system:masters) and ``viewer``
(no permissions of its own, for forbidden-list tests), and authorizes with RBAC. No
controller manager or scheduler runs: tests create what operators would (pods, status)
themselves. (clusterparts.py adds them, and KWOK's fake nodes, to a cluster of its own.)
"""

from __future__ import annotations

import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

REPO = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO / "scripts" / "build-apiserver.sh"
ADMIN_TOKEN = "wlmap-test-admin"
VIEWER_TOKEN = "wlmap-test-viewer"
READY_TIMEOUT = 120.0
MISSING_GO = 3  # the build script's exit status when it needs the go command


class BuildUnavailable(RuntimeError):
    """The binaries are not built and cannot be: the go command is missing."""


def build_binaries(
    progress: Callable[[str], None] | None = None,
    script: Path = BUILD_SCRIPT,
    what: str = "kube-apiserver and etcd",
) -> Path:
    """The folder holding kube-apiserver and etcd (or what ``script`` builds), built on
    first use.

    Args:
        progress: called with each of the script's progress lines while it builds (or waits
            for another run's build); they go to stderr when not given.
        script: a build script of scripts/ (they share their options and exit statuses).
        what: what the script builds, for the message when Go is missing.

    Raises:
        BuildUnavailable: the go command is needed and missing.
        RuntimeError: the build failed; the message ends with the script's last lines.
    """
    say = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    tail: deque[str] = deque(maxlen=40)
    with subprocess.Popen(
        ["bash", str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as run:
        assert run.stdout is not None and run.stderr is not None
        for line in run.stderr:  # the script's progress, as it happens
            tail.append(line.rstrip("\n"))
            if line.startswith(f"{script.stem}:"):
                say(line.rstrip("\n"))
        out = run.stdout.read()
    if run.returncode == MISSING_GO:
        raise BuildUnavailable(
            f"the integration tests need Go to build {what} once "
            f"(scripts/{script.name}), and the go command is not on PATH"
        )
    if run.returncode != 0:
        raise RuntimeError(
            f"{script.name} failed with exit status {run.returncode}:\n" + "\n".join(tail)
        )
    return Path(out.strip().splitlines()[-1])


_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A loopback port nothing listens on, and none this test run handed out before: the
    kernel may offer a port again as soon as its probe closes, and two servers started
    together (the operator's health endpoint and its webhook) would then take the same."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


@dataclass
class TestCluster:
    """etcd and kube-apiserver processes under one folder, and a kubeconfig for them."""

    __test__ = False  # not a test class, despite the name

    binaries: Path
    folder: Path
    etcd_port: int = field(default_factory=free_port)
    peer_port: int = field(default_factory=free_port)
    port: int = field(default_factory=free_port)
    _etcd: subprocess.Popen[bytes] | None = None
    _apiserver: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def kubeconfig(self) -> Path:
        return self.folder / "kubeconfig"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._write_credentials()
        self._start_etcd()
        self.start_apiserver()
        self._write_kubeconfig()

    def stop(self) -> None:
        self.stop_apiserver()
        if self._etcd is not None:
            terminate(self._etcd)
            self._etcd = None

    def start_apiserver(self) -> None:
        """Start kube-apiserver and wait until it reports ready."""
        log = (self.folder / "apiserver.log").open("ab")
        self._apiserver = subprocess.Popen(
            [
                str(self.binaries / "kube-apiserver"),
                f"--etcd-servers=http://127.0.0.1:{self.etcd_port}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={self.port}",
                f"--cert-dir={self.folder / 'certs'}",
                f"--token-auth-file={self.folder / 'tokens.csv'}",
                "--authorization-mode=RBAC",
                "--service-account-issuer=https://kubernetes.default.svc",
                f"--service-account-key-file={self.folder / 'sa.pub'}",
                f"--service-account-signing-key-file={self.folder / 'sa.key'}",
                "--service-cluster-ip-range=10.96.0.0/24",
                # no controller manager creates service accounts: pods are admitted without
                "--disable-admission-plugins=ServiceAccount",
                "--feature-gates=GenericWorkload=true",
                "--runtime-config=scheduling.k8s.io/v1alpha2=true",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self._wait("/readyz", self._apiserver)

    def stop_apiserver(self) -> None:
        if self._apiserver is not None:
            terminate(self._apiserver)
            self._apiserver = None

    def client(self, token: str = ADMIN_TOKEN) -> httpx.Client:
        return httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {token}"},
            verify=ssl.create_default_context(cafile=str(self.folder / "certs" / "apiserver.crt")),
            timeout=30.0,
        )

    def _write_credentials(self) -> None:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        (self.folder / "sa.key").write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.NoEncryption(),
            )
        )
        (self.folder / "sa.pub").write_bytes(
            key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        (self.folder / "tokens.csv").write_text(
            f'{ADMIN_TOKEN},admin,1,"system:masters"\n{VIEWER_TOKEN},viewer,2\n'
        )

    def _start_etcd(self) -> None:
        peer = f"http://127.0.0.1:{self.peer_port}"
        client = f"http://127.0.0.1:{self.etcd_port}"
        log = (self.folder / "etcd.log").open("ab")
        self._etcd = subprocess.Popen(
            [
                str(self.binaries / "etcd"),
                "--name=test",
                f"--data-dir={self.folder / 'etcd'}",
                f"--listen-client-urls={client}",
                f"--advertise-client-urls={client}",
                f"--listen-peer-urls={peer}",
                f"--initial-advertise-peer-urls={peer}",
                f"--initial-cluster=test={peer}",
                "--unsafe-no-fsync",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            check_alive(self._etcd, self.folder / "etcd.log")
            try:
                if httpx.get(f"{client}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("etcd did not become healthy")

    def _wait(self, path: str, process: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            check_alive(process, self.folder / "apiserver.log")
            try:
                with httpx.Client(
                    base_url=self.url,
                    verify=False,
                    headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
                    timeout=2,
                ) as probe:
                    if probe.get(path).status_code == 200:
                        return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"kube-apiserver did not become ready: see {self.folder}/apiserver.log")

    def _write_kubeconfig(self) -> None:
        ca = str(self.folder / "certs" / "apiserver.crt")
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {"name": "test", "cluster": {"server": self.url, "certificate-authority": ca}}
            ],
            "users": [
                {"name": "admin", "user": {"token": ADMIN_TOKEN}},
                {"name": "viewer", "user": {"token": VIEWER_TOKEN}},
            ],
            "contexts": [
                {"name": "admin", "context": {"cluster": "test", "user": "admin"}},
                {"name": "viewer", "context": {"cluster": "test", "user": "viewer"}},
            ],
            "current-context": "admin",
        }
        self.kubeconfig.write_text(yaml.safe_dump(config))


def check_alive(process: subprocess.Popen[bytes], log: Path) -> None:
    if process.poll() is not None:
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"{log.stem} exited with {process.returncode}:\n{tail}")


def wait_ready(
    process: subprocess.Popen[bytes], log: Path, health_port: int, name: str, timeout: float
) -> None:
    """Wait until a controller manager answers its ``/readyz``; its log's tail if it dies."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        check_alive(process, log)
        try:
            if httpx.get(f"http://127.0.0.1:{health_port}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{name} did not become ready: see {log}")


def terminate(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


__all__ = [
    "ADMIN_TOKEN",
    "MISSING_GO",
    "VIEWER_TOKEN",
    "BuildUnavailable",
    "TestCluster",
    "build_binaries",
    "check_alive",
    "free_port",
    "remove",
    "terminate",
    "wait_ready",
]
