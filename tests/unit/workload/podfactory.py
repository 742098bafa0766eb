"""Pods and containers for tests: pods as controllers create them from a template."""

from __future__ import annotations

import copy
from typing import Any


def make_pod(
    name: str,
    template: dict[str, Any],
    labels: dict[str, str],
    *,
    ready: bool = True,
    phase: str = "Running",
    node: str | None = "node-a",
) -> dict[str, Any]:
    """A pod built from a workload's pod template, as its controller would create it."""
    metadata = copy.deepcopy(template.get("metadata") or {})
    metadata["name"] = name
    metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
    spec = copy.deepcopy(template.get("spec") or {})
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": {
            "phase": phase,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def container(name: str, requests: Any = None, limits: Any = None, **extra: Any) -> dict[str, Any]:
    """A container with the given requests and limits (omitted when None)."""
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "image": "busybox", "resources": resources, **extra}
