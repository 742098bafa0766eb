"""A small cluster for the metrics tests: the catalog's PyTorchJob example with GPUs, its
pods as the training operator creates them, nodes and a namespace, as a dump would hold."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from tests.unit.cli.runner import EXAMPLES

T0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z
NAMESPACE = "ml"


def stamp(seconds: float) -> str:
    """An RFC 3339 timestamp as the API server writes it."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def job(gpus_per_worker: int = 2) -> dict[str, Any]:
    """The example PyTorchJob in ``ml``: 1 master with 1 GPU, 3 workers with
    ``gpus_per_worker`` GPUs each."""
    text = (EXAMPLES / "pytorchjob-with-status.yaml").read_text(encoding="utf-8")
    obj: dict[str, Any] = copy.deepcopy(next(d for d in yaml.safe_load_all(text) if d))
    obj["metadata"].update(namespace=NAMESPACE, uid="job-1")
    specs = obj["spec"]["pytorchReplicaSpecs"]
    for role, gpus in (("Master", 1), ("Worker", gpus_per_worker)):
        container = specs[role]["template"]["spec"]["containers"][0]
        container.setdefault("resources", {})["limits"] = {"nvidia.com/gpu": gpus}
    return obj


def pod(
    owner: dict[str, Any],
    role: str,
    index: int,
    *,
    node: str | None = "node-a",
    start: float | None = T0,
    end: float | None = None,
    waiting: tuple[str, float] | None = None,
) -> dict[str, Any]:
    """A pod of ``owner``'s ``role`` replica ``index``: bound to ``node`` and started at
    ``start``, finished at ``end``; unbound when ``node`` is None, waiting since the time in
    ``waiting`` for its reason."""
    template = owner["spec"]["pytorchReplicaSpecs"][role.capitalize()]["template"]
    name = f"{owner['metadata']['name']}-{role}-{index}"
    status: dict[str, Any] = {"phase": "Pending", "conditions": []}
    spec = copy.deepcopy(template["spec"])
    if node is not None:
        spec["nodeName"] = node
        status["phase"] = "Running" if end is None else "Succeeded"
        if start is not None:
            status["startTime"] = stamp(start)
        status["conditions"].append({"type": "Ready", "status": str(end is None)})
    if end is not None:
        status["containerStatuses"] = [
            {"name": c["name"], "state": {"terminated": {"finishedAt": stamp(end)}}}
            for c in spec["containers"]
        ]
    if waiting is not None:
        reason, since = waiting
        status["conditions"].append(
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": reason,
                "lastTransitionTime": stamp(since),
            }
        )
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "uid": f"uid-{name}",
            "labels": {
                "training.kubeflow.org/replica-type": role,
                "training.kubeflow.org/replica-index": str(index),
            },
            "ownerReferences": [
                {
                    "apiVersion": owner["apiVersion"],
                    "kind": owner["kind"],
                    "name": owner["metadata"]["name"],
                    "uid": owner["metadata"]["uid"],
                    "controller": True,
                }
            ],
        },
        "spec": spec,
        "status": status,
    }


def node(name: str, gpus: int, zone: str) -> dict[str, Any]:
    """A GPU node with ``gpus`` allocatable GPUs in ``zone``."""
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "topology.kubernetes.io/zone": zone,
                "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
            },
        },
        "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": str(gpus)}},
    }


def namespace(labels: dict[str, str]) -> dict[str, Any]:
    """The ``ml`` namespace with ``labels``."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": NAMESPACE, "labels": labels},
    }


def write(tmp_path: Path, objects: list[dict[str, Any]]) -> Path:
    """A ``kubectl get -o yaml`` List dump of ``objects``."""
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    return path
