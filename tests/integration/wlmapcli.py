"""Running ``wlmap`` against the test cluster: in-process (fast, output captured) or as a
subprocess (real exit code and streams), always at a fixed terminal width."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.controllers import owner_reference, run_pod
from tests.integration.kube import Kube, load
from wlmap.cli.main import main

# wide enough that no cell is cut: namespaces are named after the tests
WIDTH = "200"
WLMAP = Path(sys.executable).parent / "wlmap"


@dataclass(frozen=True)
class Result:
    """What one ``wlmap`` run printed, and its exit code."""

    code: int
    out: str
    err: str

    @property
    def errors(self) -> list[str]:
        """The ``error:`` lines of stderr."""
        return [line for line in self.err.splitlines() if line.startswith("error: ")]

    @property
    def warnings(self) -> list[str]:
        """The ``warning:`` lines of stderr, without the prefix."""
        return [
            line.removeprefix("warning: ")
            for line in self.err.splitlines()
            if line.startswith("warning: ")
        ]

    def table(self) -> list[str]:
        """The table on stdout with the AGE column cut out (it depends on the clock)."""
        return without_age(self.out)


class Wlmap:
    """``wlmap --kubeconfig <the test cluster's> ARGS``."""

    def __init__(self, kubeconfig: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.kubeconfig = kubeconfig
        self._capsys = capsys

    def __call__(self, *args: str, kubeconfig: Path | None = None) -> Result:
        """Run in-process and capture what it prints."""
        self._capsys.readouterr()
        code = main(["--kubeconfig", str(kubeconfig or self.kubeconfig), *args])
        out, err = self._capsys.readouterr()
        return Result(code, out, err)

    def popen(self, *args: str) -> subprocess.Popen[str]:
        """Start ``wlmap`` as its own process, stdout and stderr piped."""
        return subprocess.Popen(
            [str(WLMAP), "--kubeconfig", str(self.kubeconfig), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=terminal_env(),
        )

    def process(self, *args: str, kubeconfig: Path | None = None) -> Result:
        """Run ``wlmap`` as its own process to the end."""
        done = subprocess.run(
            [str(WLMAP), "--kubeconfig", str(kubeconfig or self.kubeconfig), *args],
            capture_output=True,
            text=True,
            env=terminal_env(),
            timeout=60,
            check=False,
        )
        return Result(done.returncode, done.stdout, done.stderr)


def fixed_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The terminal the in-process runs see: fixed width, no colour, no KUBECONFIG, errors
    as one line."""
    for name, value in terminal_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("WLMAP_TRACEBACK", raising=False)


def terminal_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "WLMAP_TRACEBACK")}
    return {**env, "COLUMNS": WIDTH, "NO_COLOR": "1"}


def without_age(text: str) -> list[str]:
    """Table lines with the AGE column removed, trailing spaces stripped."""
    lines = text.splitlines()
    if not lines or " AGE" not in lines[0]:
        return [line.rstrip() for line in lines]
    header = lines[0]
    start = header.index(" AGE") + 1
    following = re.search(r"\S", header[start + len("AGE") :])
    end = start + len("AGE") + following.start() if following else len(header) + 1000
    return [(line[:start] + line[end:]).rstrip() for line in lines]


def aligned(*rows: Sequence[str]) -> list[str]:
    """Rows as ``wlmap`` tables print them: left-aligned columns two spaces apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]


def kubeconfig_copy(source: Path, target: Path, **changes: Any) -> Path:
    """A copy of a kubeconfig with the ``server``, the ``admin`` user's ``token`` or the
    ``admin`` context's ``namespace`` changed."""
    config = yaml.safe_load(source.read_text())
    if "namespace" in changes:
        for context in config["contexts"]:
            if context["name"] == "admin":
                context["context"]["namespace"] = changes["namespace"]
    if "server" in changes:
        for cluster in config["clusters"]:
            cluster["cluster"]["server"] = changes["server"]
    if "token" in changes:
        for user in config["users"]:
            if user["name"] == "admin":
                user["user"]["token"] = changes["token"]
    target.write_text(yaml.safe_dump(config))
    return target


# The pod-template-hash the Deployment controller derives from the template (fnv hash,
# encoded in its alphabet); any stable value in that alphabet serves.
TEMPLATE_HASH = "6b9f8c7d45"
DEPLOYMENT = "core-gpu/gpu-operator-tests-plugin-test-deployment.yaml"


def deployment_with_pods(kube: Kube, namespace: str, *, ready: int | None = None) -> dict[str, Any]:
    """The corpus Deployment, its ReplicaSet and pods as the Deployment controller creates
    them (owner references, ``pod-template-hash``), and the status it writes."""
    (manifest,) = load(DEPLOYMENT)
    deployment = kube.create(manifest, namespace)
    replicas = int(deployment["spec"]["replicas"])
    ready = replicas if ready is None else ready
    template = deployment["spec"]["template"]
    hashed = {**template["metadata"]["labels"], "pod-template-hash": TEMPLATE_HASH}
    name = f"{deployment['metadata']['name']}-{TEMPLATE_HASH}"
    replicaset = kube.create(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": name,
                "labels": hashed,
                "ownerReferences": [owner_reference(deployment)],
            },
            "spec": {
                "replicas": replicas,
                "selector": {
                    "matchLabels": {
                        **deployment["spec"]["selector"]["matchLabels"],
                        "pod-template-hash": TEMPLATE_HASH,
                    }
                },
                "template": {**template, "metadata": {**template["metadata"], "labels": hashed}},
            },
        },
        namespace,
    )
    for index, suffix in enumerate(_pod_suffixes(replicas)):
        run_pod(
            kube,
            replicaset,
            f"{name}-{suffix}",
            replicaset["spec"]["template"],
            {"pod-template-hash": TEMPLATE_HASH},
            ready=index < ready,
        )
    available = ready >= replicas
    return kube.set_status(
        deployment,
        {
            "observedGeneration": deployment["metadata"]["generation"],
            "replicas": replicas,
            "updatedReplicas": replicas,
            "readyReplicas": ready,
            "availableReplicas": ready,
            "unavailableReplicas": replicas - ready,
            "conditions": [
                {
                    "type": "Available",
                    "status": "True" if available else "False",
                    "reason": "MinimumReplicasAvailable"
                    if available
                    else "MinimumReplicasUnavailable",
                    "message": "Deployment has minimum availability."
                    if available
                    else "Deployment does not have minimum availability.",
                },
                {
                    "type": "Progressing",
                    "status": "True",
                    "reason": "NewReplicaSetAvailable",
                    "message": f'ReplicaSet "{name}" has successfully progressed.',
                },
            ],
        },
    )


def _pod_suffixes(count: int) -> Iterator[str]:
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    for index in range(count):
        yield "".join(alphabet[(index * 7 + k * 3) % len(alphabet)] for k in range(5))


def jobset_running(kube: Kube, jobset: Mapping[str, Any]) -> dict[str, Any]:
    """The status the JobSet controller writes once every child Job is ready."""
    return kube.set_status(
        jobset,
        {
            "replicatedJobsStatus": [
                {
                    "name": job["name"],
                    "ready": int(job.get("replicas", 1)),
                    "succeeded": 0,
                    "failed": 0,
                    "active": int(job.get("replicas", 1)),
                    "suspended": 0,
                }
                for job in jobset["spec"]["replicatedJobs"]
            ]
        },
    )


def jobset_completed(kube: Kube, jobset: Mapping[str, Any]) -> dict[str, Any]:
    """The status the JobSet controller writes when every Job has completed."""
    return kube.set_status(
        jobset,
        {
            "terminalState": "Completed",
            "conditions": [
                {
                    "type": "Completed",
                    "status": "True",
                    "reason": "AllJobsCompleted",
                    "message": "jobset completed successfully",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
            ],
            "replicatedJobsStatus": [
                {
                    "name": job["name"],
                    "ready": 0,
                    "succeeded": int(job.get("replicas", 1)),
                    "failed": 0,
                    "active": 0,
                    "suspended": 0,
                }
                for job in jobset["spec"]["replicatedJobs"]
            ],
        },
    )


__all__ = [
    "DEPLOYMENT",
    "Result",
    "Wlmap",
    "aligned",
    "deployment_with_pods",
    "fixed_terminal",
    "jobset_completed",
    "jobset_running",
    "kubeconfig_copy",
    "without_age",
]
