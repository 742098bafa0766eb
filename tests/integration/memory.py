"""The operator's memory against the pods of a cluster: many pods made quickly in a
namespace, and the operator process's resident memory, sampled once its cache is synced.

Shared by the integration test and ``benchmarks/operator_memory.py``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import converged, expected_minimum
from tests.integration.operator_process import OperatorProcess

SERVE = {"wlmap.dev/serve": "true"}


def pod(name: str) -> dict[str, Any]:
    """A pod as a training job's are, in size: labels, annotations, env, mounts."""
    env = [{"name": f"SETTING_{i}", "value": f"value-{i}-" + "x" * 24} for i in range(12)]
    container = {
        "name": "train",
        "image": "registry.test/train:1",
        "command": ["python", "-m", "train", "--config", "/etc/train/config.yaml"],
        "env": env,
        "resources": {"limits": {"cpu": "8", "memory": "32Gi"}},
        "volumeMounts": [{"name": "config", "mountPath": "/etc/train"}],
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "labels": {"app": "elsewhere", "example.com/run": name},
            "annotations": {"example.com/description": "a pod of a workload " + "y" * 120},
        },
        "spec": {
            "containers": [container],
            "volumes": [{"name": "config", "configMap": {"name": "train-config"}}],
        },
    }


def make_pods(
    client: Callable[[], httpx.Client], namespace: str, count: int, workers: int = 6
) -> None:
    """``count`` pods in ``namespace``, made by several connections at once."""

    def batch(start: int) -> None:
        with client() as connection:
            for index in range(start, count, workers):
                answer = connection.post(
                    f"/api/v1/namespaces/{namespace}/pods", json=pod(f"pod-{index}")
                )
                if answer.status_code not in (201, 409):
                    raise AssertionError(f"pod-{index}: {answer.status_code} {answer.text}")

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(batch, range(workers)))


def remove_pods(client: Callable[[], httpx.Client], namespace: str) -> None:
    """Every pod of the namespace gone (none is bound to a node: they go at once)."""
    with client() as connection:
        # one call deletes thousands of pods: on a loaded machine it takes longer than a read
        connection.delete(f"/api/v1/namespaces/{namespace}/pods", timeout=180).raise_for_status()
        wait_for(
            lambda: (
                not connection.get(
                    f"/api/v1/namespaces/{namespace}/pods", params={"limit": 1}
                ).json()["items"]
            ),
            f"the pods of {namespace} gone",
            timeout=300,
        )


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def settled_rss_mb(pid: int, samples: int = 6, interval: float = 0.5) -> float:
    """The largest of a few samples of resident memory (a sample can land between a
    burst of allocations and their release)."""
    found = []
    for _ in range(samples):
        found.append(rss_mb(pid))
        time.sleep(interval)
    return max(found)


@contextmanager
def serving_operator(
    kube: Kube, kubeconfig: Path, served: str, log: Path, run: str
) -> Iterator[OperatorProcess]:
    """The operator in its default mode (namespaces opted in by label), once it has
    written the gang of a JobSet made in ``served``: its cache has listed every pod.
    The JobSet goes before the operator stops, so each run starts alike."""
    operator = OperatorProcess(kubeconfig, None, log).start()
    (template,) = load("jobset/coordinator.yaml")
    obj = copy.deepcopy(template)
    obj["metadata"]["name"] = f"memory-{run}"
    made = kube.create(obj, served)
    try:
        wait_for(
            converged(kube, served, {obj["metadata"]["name"]: expected_minimum(made)}),
            "the JobSet's group",
            timeout=300,
        )
        time.sleep(2.0)  # the reconciliation's own allocations released
        yield operator
    finally:
        kube.delete(made)
        wait_for(converged(kube, served, {}), "the JobSet's group gone", timeout=120)
        operator.stop()


def label_served(kube: Kube, namespace: str) -> None:
    """Opt a namespace in (the default namespace selector)."""
    kube.patch(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"metadata": {"labels": SERVE}},
    )
